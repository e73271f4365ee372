"""API keys (docs/scopes.md): format and storage, session-only management by owners and admins,
scopes, plan gate, tenancy, revoke / rotate / delete taking effect at once, and the activity trail."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from actors.runtime.clock import ManualClock
from tests.harness import Org, make_org
from tests.integration.credentials.helpers import create_key, create_token
from web.keys import NODE

KEY_FORMAT = re.compile(r"^svc_sk_live_[0-9a-f]{40}$")
LISTED_FIELDS = {"id", "name", "prefix", "scopes", "status", "lastUsedAt", "expiresAt", "createdAt"}


def _pool(org: Org):  # type: ignore[no-untyped-def]
    return org.owner.client.server.app[NODE].pool


@pytest.mark.bcrypt_rounds(10)  # the production default, the spec's cost for keys
async def test_create_returns_the_full_key_once_and_stores_only_a_bcrypt_hash(org: Org) -> None:
    reply = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "Line 3 dashboard"})
    assert reply.status == 201, reply.body
    key, api_key = reply.data["key"], reply.data["apiKey"]
    assert KEY_FORMAT.match(key)
    assert api_key["prefix"] == key[12:20]
    assert api_key["name"] == "Line 3 dashboard" and api_key["scopes"] == [] and api_key["expiresAt"] is None
    assert api_key["id"].startswith("key_") and api_key["status"] == "active"

    row = await _pool(org).fetchrow("SELECT * FROM credentials WHERE id = $1", api_key["id"])
    assert row["kind"] == "api_key" and row["prefix"] == key[12:20]
    assert row["secret_hash"].startswith("$2b$10$")
    assert all(key not in str(value) for value in dict(row).values())

    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert listed.status == 200
    assert [k["id"] for k in listed.data] == [api_key["id"]]
    assert set(listed.data[0]) == LISTED_FIELDS
    text = json.dumps(listed.body)
    assert key not in text and row["secret_hash"] not in text

    me = await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")
    assert me.status == 200 and me.data["id"] == org.owner_id


async def test_rpc_names_serve_the_same_procedures(org: Org) -> None:
    created = await org.owner.mutate("apiKeys.create", {"name": "rpc", "scopes": ["read:kpis"]})
    assert created.status == 200, created.body
    assert KEY_FORMAT.match(created.data["key"]) and created.data["apiKey"]["scopes"] == ["read:kpis"]
    listed = await org.owner.query("apiKeys.list")
    assert [k["id"] for k in listed.data] == [created.data["apiKey"]["id"]]
    revoked = await org.owner.mutate("apiKeys.revoke", {"id": created.data["apiKey"]["id"]})
    assert revoked.status == 200 and revoked.data["status"] == "revoked"


async def test_invalid_input_names_the_field(org: Org) -> None:
    unknown = await org.owner.rest("POST", "/api/v1/auth/api-keys",
                                   {"name": "x", "scopes": ["read:everything"]})
    assert unknown.status == 422 and unknown.error["code"] == "VALIDATION_ERROR"
    assert unknown.error["details"][0]["field"].startswith("scopes")
    rpc = await org.owner.mutate("apiKeys.create", {"name": "x", "scopes": ["admin"]})
    assert rpc.status == 400 and rpc.error["data"]["details"][0]["field"].startswith("scopes")

    missing = await org.owner.rest("POST", "/api/v1/auth/api-keys", {})
    assert missing.status == 422 and missing.error["details"][0]["field"] == "name"
    too_long = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "n" * 101})
    assert too_long.status == 422 and too_long.error["details"][0]["field"] == "name"
    assert (await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "n" * 100})).status == 201

    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    expired = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "x", "expiresAt": past})
    assert expired.status == 422 and expired.error["details"][0]["field"] == "expiresAt"
    garbage = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "x", "expiresAt": "next week"})
    assert garbage.status == 422 and garbage.error["details"][0]["field"] == "expiresAt"


async def test_keys_and_tokens_cannot_manage_keys(org: Org) -> None:
    key, api_key = await create_key(org.owner)
    as_key = org.owner.with_bearer(key)
    assert (await as_key.rest("POST", "/api/v1/auth/api-keys", {"name": "escalate"})).status == 403
    assert (await as_key.mutate("apiKeys.create", {"name": "escalate"})).status == 403
    assert (await as_key.rest("GET", "/api/v1/auth/api-keys")).status == 403
    assert (await as_key.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/rotate")).status == 403
    token = await create_token(org.owner, scopes=["admin", "write"])
    as_token = org.owner.with_bearer(token["token"])
    assert (await as_token.rest("POST", "/api/v1/auth/api-keys", {"name": "escalate"})).status == 403
    assert (await as_token.rest("DELETE", f"/api/v1/auth/api-keys/{api_key['id']}")).status == 403


async def test_only_owners_and_admins_manage_keys(org: Org) -> None:
    _, member = await org.add_user("member")
    assert (await member.rest("POST", "/api/v1/auth/api-keys", {"name": "mine"})).status == 403
    assert (await member.rest("GET", "/api/v1/auth/api-keys")).status == 403
    _, admin = await org.add_user("admin")
    key, _ = await create_key(admin, "admin's key")
    assert (await admin.rest("GET", "/api/v1/auth/api-keys")).status == 200
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200


async def test_free_plan_refuses_keys_but_not_the_session(client: object) -> None:
    free = await make_org(client, plan="free")  # type: ignore[arg-type]
    key, _ = await create_key(free.owner)
    assert (await free.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 403
    assert (await free.owner.with_bearer(key).rest("GET", "/api/v1/audit")).status == 403
    assert (await free.owner.rest("GET", "/api/v1/audit")).status == 200


async def test_another_organizations_key_and_key_ids(client: object, org: Org) -> None:
    other = await make_org(client)  # type: ignore[arg-type]
    key, api_key = await create_key(org.owner)
    on_other_host = org.owner.with_bearer(key).on_host(other.host)
    assert (await on_other_host.rest("GET", "/api/v1/auth/me")).status == 401
    assert (await on_other_host.rest("GET", "/api/v1/audit")).status == 401
    for action in ("revoke", "rotate"):
        reply = await other.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/{action}", {})
        assert reply.status == 404 and reply.error["code"] == "NOT_FOUND"
    assert (await other.owner.rest("DELETE", f"/api/v1/auth/api-keys/{api_key['id']}", {})).status == 404
    assert (await other.owner.rest("GET", "/api/v1/auth/api-keys")).data == []
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200


async def test_scopes_limit_what_a_key_may_call(org: Org) -> None:
    items_key, _ = await create_key(org.owner, scopes=["read:items"])
    kpis_key, _ = await create_key(org.owner, scopes=["read:kpis"])
    writer_key, _ = await create_key(org.owner, scopes=["write:items"])
    full_key, _ = await create_key(org.owner, scopes=[])
    assert (await org.owner.with_bearer(items_key).rest("GET", "/api/v1/audit")).status == 200
    refused = await org.owner.with_bearer(kpis_key).rest("GET", "/api/v1/audit")
    assert refused.status == 403 and refused.error["code"] == "FORBIDDEN"
    assert (await org.owner.with_bearer(writer_key).rest("GET", "/api/v1/audit")).status == 200
    assert (await org.owner.with_bearer(full_key).rest("GET", "/api/v1/audit")).status == 200


async def test_revoke_refuses_the_key_at_once(org: Org) -> None:
    key, api_key = await create_key(org.owner)
    as_key = org.owner.with_bearer(key)
    assert (await as_key.rest("GET", "/api/v1/auth/me")).status == 200  # verified and cached now
    revoked = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/revoke", {})
    assert revoked.status == 200 and revoked.data["status"] == "revoked"
    refused = await as_key.rest("GET", "/api/v1/auth/me")
    assert refused.status == 401 and refused.error["code"] == "UNAUTHORIZED"
    again = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/revoke", {})
    assert again.status == 200 and again.data["status"] == "revoked"
    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert [(k["id"], k["status"]) for k in listed.data] == [(api_key["id"], "revoked")]


async def test_rotate_replaces_the_key_atomically(org: Org) -> None:
    expires = (datetime.now(UTC) + timedelta(days=10)).replace(microsecond=0)
    key, api_key = await create_key(org.owner, "deploy bot", scopes=["read:items", "write:kpis"],
                                    expiresAt=expires.isoformat())
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200
    rotated = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/rotate", {})
    assert rotated.status == 200, rotated.body
    new_key, new = rotated.data["key"], rotated.data["apiKey"]
    assert KEY_FORMAT.match(new_key) and new_key != key and new["prefix"] == new_key[12:20]
    assert new["id"] != api_key["id"] and rotated.data["revokedKeyId"] == api_key["id"]
    assert (new["name"], new["scopes"], new["expiresAt"]) == ("deploy bot", ["read:items", "write:kpis"],
                                                              api_key["expiresAt"])
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 401
    assert (await org.owner.with_bearer(new_key).rest("GET", "/api/v1/audit")).status == 200
    statuses = {k["id"]: k["status"] for k in (await org.owner.rest("GET", "/api/v1/auth/api-keys")).data}
    assert statuses == {api_key["id"]: "revoked", new["id"]: "active"}
    again = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/rotate", {})
    assert again.status == 409 and again.error["code"] == "CONFLICT"


async def test_delete_removes_the_record(org: Org) -> None:
    key, api_key = await create_key(org.owner)
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200
    deleted = await org.owner.rest("DELETE", f"/api/v1/auth/api-keys/{api_key['id']}", {})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": api_key["id"]}
    assert (await org.owner.rest("GET", "/api/v1/auth/api-keys")).data == []
    assert await _pool(org).fetchval("SELECT count(*) FROM credentials WHERE id = $1", api_key["id"]) == 0
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 401
    assert (await org.owner.rest("DELETE", f"/api/v1/auth/api-keys/{api_key['id']}", {})).status == 404


async def test_key_operations_are_written_to_the_activity_trail(org: Org) -> None:
    _, api_key = await create_key(org.owner, "audited")
    assert (await org.owner.rest("GET", "/api/v1/auth/api-keys")).status == 200
    assert (await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/revoke", {})).status == 200
    assert (await org.owner.rest("DELETE", f"/api/v1/auth/api-keys/{api_key['id']}", {})).status == 200
    trail = await org.owner.rest("GET", "/api/v1/audit/entity",
                                 params={"entityType": "api_key", "entityId": api_key["id"]})
    assert trail.status == 200
    assert [e["action"] for e in trail.data] == ["api_key.deleted", "api_key.revoked", "api_key.created"]
    owner = {"id": org.owner_id, "name": "Olga Owner", "email": org.owner_email, "image": None}
    assert all(e["actor"] == owner for e in trail.data)
    assert trail.data[-1]["metadata"] == {"name": "audited", "prefix": api_key["prefix"], "scopes": []}
    listed = await org.owner.rest("GET", "/api/v1/audit/entity", params={"entityType": "api_key",
                                                                         "entityId": org.id})
    assert [e["action"] for e in listed.data] == ["api_key.listed"]


async def test_an_expired_key_is_refused(clocked_client: object, clock: ManualClock) -> None:
    org = await make_org(clocked_client)  # type: ignore[arg-type]
    expires = clock.now() + timedelta(hours=1)
    key, api_key = await create_key(org.owner, expiresAt=expires.isoformat())
    as_key = org.owner.with_bearer(key)
    assert (await as_key.rest("GET", "/api/v1/auth/me")).status == 200
    clock.advance(3600)
    expired = await as_key.rest("GET", "/api/v1/auth/me")
    assert expired.status == 401 and expired.error["code"] == "UNAUTHORIZED"
    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert [(k["id"], k["status"]) for k in listed.data] == [(api_key["id"], "expired")]
    rotated = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{api_key['id']}/rotate", {})
    assert rotated.status == 409


async def test_concurrent_requests_with_a_cold_key_share_one_bcrypt_check(
        org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    from actors.identity import callers as identity

    key = (await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "cold"})).data["key"]
    checks = 0
    real = identity.verify_secret

    async def counted(secret: str, hashed: str) -> bool:
        nonlocal checks
        checks += 1
        return await real(secret, hashed)

    monkeypatch.setattr(identity, "verify_secret", counted)
    api = org.owner.with_bearer(key)
    replies = await asyncio.gather(*(api.query("auth.me") for _ in range(12)))
    assert [r.status for r in replies] == [200] * 12
    assert checks == 1
