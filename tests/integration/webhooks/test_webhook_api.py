"""Managing webhooks over REST and RPC: validation, plan gate, roles, tenancy, activity."""

from __future__ import annotations

from tests.harness import Org, make_org
from tests.integration.webhooks.conftest import create_webhook


async def test_create_list_update_delete(org: Org) -> None:
    created = await create_webhook(org.owner, "http://127.0.0.1:9/hook", ["item.created", "item.created",
                                   "member.role_changed"], secret="s3cret", description="CI")
    assert created["id"].startswith("whk_")
    assert created["url"] == "http://127.0.0.1:9/hook"
    assert created["events"] == ["item.created", "member.role_changed"]
    assert created["active"] is True and created["status"] == "active"
    assert created["description"] == "CI" and created["secretSet"] is True
    assert "secret" not in created and created["createdAt"].endswith("Z")

    listed = await org.owner.rest("GET", "/api/v1/webhooks")
    assert listed.status == 200 and [hook["id"] for hook in listed.data] == [created["id"]]
    assert "secret" not in listed.data[0]

    patched = await org.owner.rest("PATCH", f"/api/v1/webhooks/{created['id']}",
                                   {"events": ["project.created"], "active": False})
    assert patched.status == 200, patched.body
    assert patched.data["events"] == ["project.created"]
    assert patched.data["active"] is False and patched.data["status"] == "inactive"
    assert patched.data["description"] == "CI"

    rpc = await org.owner.query("webhooks.list")
    assert rpc.status == 200 and rpc.data[0]["active"] is False

    deleted = await org.owner.rest("DELETE", f"/api/v1/webhooks/{created['id']}")
    assert deleted.status == 200 and deleted.data == {"success": True, "id": created["id"]}
    assert (await org.owner.rest("GET", "/api/v1/webhooks")).data == []
    gone = await org.owner.rest("DELETE", f"/api/v1/webhooks/{created['id']}")
    assert gone.status == 404

    trail = await org.owner.rest("GET", "/api/v1/audit/entity", params={"entityType": "webhook",
                                                                         "entityId": created["id"]})
    assert trail.status == 200, trail.body
    assert {entry["action"] for entry in trail.data} == {"webhook.created", "webhook.updated", "webhook.deleted"}
    assert "s3cret" not in str(trail.body)


async def test_invalid_input_names_the_field(org: Org) -> None:
    unknown = await org.owner.rest("POST", "/api/v1/webhooks",
                                   {"url": "http://127.0.0.1:9/hook", "events": ["item.created", "item.exploded"]})
    assert unknown.status == 422
    assert unknown.error["details"][0]["field"] == "events.1"

    for url in ("ftp://example.com/hook", "http:///nohost", "not a url"):
        bad = await org.owner.rest("POST", "/api/v1/webhooks", {"url": url, "events": ["item.created"]})
        assert bad.status == 422, (url, bad.body)
        assert bad.error["details"][0]["field"] == "url"

    none = await org.owner.rest("POST", "/api/v1/webhooks", {"url": "http://127.0.0.1:9/", "events": []})
    assert none.status == 422 and none.error["details"][0]["field"] == "events"


async def test_owner_and_admin_only_on_plans_with_webhooks(org: Org, client: object) -> None:
    _, admin = await org.add_user("admin")
    assert (await admin.rest("GET", "/api/v1/webhooks")).status == 200
    _, member = await org.add_user("member")
    assert (await member.rest("GET", "/api/v1/webhooks")).status == 403

    free = await make_org(client, plan="free")  # type: ignore[arg-type]
    refused = await free.owner.rest("POST", "/api/v1/webhooks", {"url": "http://127.0.0.1:9/",
                                                                 "events": ["item.created"]})
    assert refused.status == 403


async def test_another_organizations_webhook_is_not_found(org: Org, client: object) -> None:
    other = await make_org(client)  # type: ignore[arg-type]
    theirs = await create_webhook(other.owner, "http://127.0.0.1:9/hook", ["item.created"])
    for method, path in (("PATCH", f"/api/v1/webhooks/{theirs['id']}"),
                         ("DELETE", f"/api/v1/webhooks/{theirs['id']}"),
                         ("GET", f"/api/v1/webhooks/{theirs['id']}/deliveries"),
                         ("POST", f"/api/v1/webhooks/{theirs['id']}/redeliver")):
        body = {"active": False} if method == "PATCH" else {} if method == "POST" else None
        reply = await org.owner.rest(method, path, body)
        assert reply.status == 404, (method, path, reply.body)
    assert (await org.owner.rest("GET", "/api/v1/webhooks")).data == []
