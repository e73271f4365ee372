"""The activity trail: newest first, cursor paging in both styles, the spec's limits, entity
filtering, entry shape with and without an actor, and tenancy."""

from __future__ import annotations

from typing import Any

from storage import activity
from tests.harness import Org, make_org
from web.keys import NODE

ENTRY_FIELDS = {"id", "entityType", "entityId", "action", "metadata", "createdAt", "actor"}


async def _seed(org: Org, count: int, *, entity_id: str = "itm_1", actor: str | None = "owner") -> list[str]:
    """Entries as a mutation handler writes them; returns their ids, oldest first."""
    pool = org.owner.client.server.app[NODE].pool
    actor_id = org.owner_id if actor == "owner" else None
    return [await activity.record(pool, org.id, actor_id, "item", entity_id, "item.updated", {"n": index})
            for index in range(count)]


async def _walk_rest(org: Org, path: str, params: dict[str, Any]) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        reply = await org.owner.rest("GET", path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert reply.status == 200, reply.body
        seen += [entry["id"] for entry in reply.data]
        assert reply.body["meta"]["has_more"] == (reply.body["meta"]["cursor"] is not None)
        cursor = reply.body["meta"]["cursor"]
        if cursor is None:
            return seen


async def test_org_list_is_newest_first_with_default_page_of_thirty(org: Org) -> None:
    ids = await _seed(org, 35)
    first = await org.owner.rest("GET", "/api/v1/audit")
    assert first.status == 200
    assert [e["id"] for e in first.data] == ids[::-1][:30]
    assert first.body["meta"] == {"cursor": first.body["meta"]["cursor"], "has_more": True, "limit": 30}
    entry = first.data[0]
    assert set(entry) == ENTRY_FIELDS
    assert entry["id"].startswith("atv_")  # `act_` is the spec's prefix for actions
    assert (entry["entityType"], entry["entityId"], entry["action"], entry["metadata"]) == (
        "item", "itm_1", "item.updated", {"n": 34})
    owner = {"id": org.owner_id, "name": "Olga Owner", "email": org.owner_email, "image": None}
    assert entry["actor"] == owner
    assert entry["createdAt"].endswith("Z")


async def test_paging_visits_every_entry_once_in_both_styles(org: Org) -> None:
    ids = await _seed(org, 23)
    assert await _walk_rest(org, "/api/v1/audit", {"limit": "5"}) == ids[::-1]
    seen: list[str] = []
    cursor = None
    while True:
        page = {"limit": 10, **({"cursor": cursor} if cursor else {})}
        reply = await org.owner.query("activity.listByOrg", page)
        assert reply.status == 200, reply.body
        seen += [entry["id"] for entry in reply.data["entries"]]
        cursor = reply.data["nextCursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]


async def test_limits_outside_one_to_two_hundred_are_bad_requests(org: Org) -> None:
    for limit in ("0", "201", "-1", "ten"):
        reply = await org.owner.rest("GET", "/api/v1/audit", params={"limit": limit})
        assert reply.status == 400 and reply.error["code"] == "BAD_REQUEST", (limit, reply.body)
        entity = await org.owner.rest("GET", "/api/v1/audit/entity",
                                      params={"entityType": "item", "entityId": "itm_1", "limit": limit})
        assert entity.status == 400 and entity.error["code"] == "BAD_REQUEST", (limit, entity.body)
    for limit in (0, 201):
        reply = await org.owner.query("activity.listByOrg", {"limit": limit})
        assert reply.status == 400 and reply.error["data"]["code"] == "BAD_REQUEST"
        entity = await org.owner.query("activity.listByEntity",
                                       {"entityType": "item", "entityId": "itm_1", "limit": limit})
        assert entity.status == 400 and entity.error["data"]["code"] == "BAD_REQUEST"
    assert (await org.owner.rest("GET", "/api/v1/audit", params={"limit": "200"})).status == 200
    malformed = await org.owner.rest("GET", "/api/v1/audit", params={"cursor": "not-a-cursor"})
    assert malformed.status == 400 and malformed.error["code"] == "BAD_REQUEST"


async def test_entity_list_filters_and_defaults_to_fifty(org: Org) -> None:
    mine = await _seed(org, 55, entity_id="itm_a")
    await _seed(org, 3, entity_id="itm_b")
    reply = await org.owner.rest("GET", "/api/v1/audit/entity",
                                 params={"entityType": "item", "entityId": "itm_a"})
    assert reply.status == 200
    assert [e["id"] for e in reply.data] == mine[::-1][:50]
    assert reply.body["meta"]["limit"] == 50 and reply.body["meta"]["has_more"] is True
    assert await _walk_rest(org, "/api/v1/audit/entity",
                            {"entityType": "item", "entityId": "itm_a", "limit": "20"}) == mine[::-1]
    other_type = await org.owner.rest("GET", "/api/v1/audit/entity",
                                      params={"entityType": "board", "entityId": "itm_a"})
    assert other_type.data == []
    missing = await org.owner.rest("GET", "/api/v1/audit/entity", params={"entityId": "itm_a"})
    assert missing.status == 422 and missing.error["details"][0]["field"] == "entityType"
    rpc_missing = await org.owner.query("activity.listByEntity", {"entityType": "item"})
    assert rpc_missing.status == 400 and rpc_missing.error["data"]["details"][0]["field"] == "entityId"


async def test_entry_without_an_actor_shows_null(org: Org) -> None:
    await _seed(org, 1, actor=None)
    reply = await org.owner.rest("GET", "/api/v1/audit")
    assert reply.data[0]["actor"] is None


async def test_another_organizations_entries_never_appear(client: object, org: Org) -> None:
    other = await make_org(client)  # type: ignore[arg-type]
    await _seed(other, 3, entity_id="itm_shared")
    mine = await _seed(org, 2, entity_id="itm_shared")
    assert [e["id"] for e in (await org.owner.rest("GET", "/api/v1/audit")).data] == mine[::-1]
    entity = await org.owner.rest("GET", "/api/v1/audit/entity",
                                  params={"entityType": "item", "entityId": "itm_shared"})
    assert [e["id"] for e in entity.data] == mine[::-1]
    assert (await org.owner.on_host(other.host).rest("GET", "/api/v1/audit")).status == 403


async def test_members_read_the_trail_and_guests_do_not(org: Org) -> None:
    await _seed(org, 1)
    _, member = await org.add_user("member")
    assert (await member.rest("GET", "/api/v1/audit")).status == 200
    _, guest = await org.add_user("guest")
    assert (await guest.rest("GET", "/api/v1/audit")).status == 403
    assert (await org.anonymous.rest("GET", "/api/v1/audit")).status == 401
