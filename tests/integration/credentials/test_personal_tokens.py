"""Personal access tokens (docs/scopes.md): creation at POST /api/auth/tokens and over tRPC, token
scopes, the caller's own list, revocation taking effect at once, and session-only management."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from protocol.ids import parse_iso
from tests.harness import Org, make_org
from tests.integration.credentials.helpers import create_token
from web.keys import NODE

TOKEN_FORMAT = re.compile(r"^svc_pat_[0-9a-f]{40}$")


@pytest.mark.bcrypt_rounds(10)  # the production default, the spec's cost for keys
async def test_create_at_api_auth_tokens_returns_the_token_once(org: Org) -> None:
    reply = await org.owner.rest("POST", "/api/auth/tokens",
                                 {"json": {"name": "nightly export", "scopes": ["read"], "expiresIn": "30d"}})
    assert reply.status == 200, reply.body
    created = reply.body["result"]["data"]["json"]
    assert set(created) == {"id", "name", "token", "scopes", "expiresAt", "createdAt"}
    assert TOKEN_FORMAT.match(created["token"]) and created["scopes"] == ["read"]
    assert created["id"].startswith("tok_")  # the spec's prefix for personal access tokens
    lifetime = parse_iso(created["expiresAt"]) - parse_iso(created["createdAt"])
    assert abs(lifetime - timedelta(days=30)) < timedelta(minutes=1)

    row = await org.owner.client.server.app[NODE].pool.fetchrow(
        "SELECT * FROM credentials WHERE id = $1", created["id"])
    assert row["kind"] == "personal_token" and row["user_id"] == org.owner_id
    assert row["prefix"] == created["token"][8:16] and row["secret_hash"].startswith("$2b$10$")
    assert all(created["token"] not in str(value) for value in dict(row).values())

    listed = await org.owner.query("auth.tokens.list")
    assert [t["id"] for t in listed.data] == [created["id"]]
    text = json.dumps(listed.body)
    assert created["token"] not in text and row["secret_hash"] not in text


async def test_create_over_trpc_and_the_default_lifetime(org: Org) -> None:
    reply = await org.owner.mutate("auth.tokens.create", {"name": "ci", "scopes": ["read", "write", "read"]})
    assert reply.status == 200, reply.body
    assert TOKEN_FORMAT.match(reply.data["token"]) and reply.data["scopes"] == ["read", "write"]
    lifetime = parse_iso(reply.data["expiresAt"]) - parse_iso(reply.data["createdAt"])
    assert abs(lifetime - timedelta(days=90)) < timedelta(minutes=1)


async def test_invalid_token_input_names_the_field(org: Org) -> None:
    cases = [({"name": "x", "scopes": []}, "scopes"),
             ({"name": "x", "scopes": ["read:items"]}, "scopes"),
             ({"name": "x"}, "scopes"),
             ({"scopes": ["read"]}, "name"),
             ({"name": "x", "scopes": ["read"], "expiresIn": "0d"}, "expiresIn"),
             ({"name": "x", "scopes": ["read"], "expiresIn": "30"}, "expiresIn"),
             ({"name": "x", "scopes": ["read"], "expiresIn": "366d"}, "expiresIn")]
    for body, field in cases:
        reply = await org.owner.rest("POST", "/api/auth/tokens", {"json": body})
        assert reply.status == 400, (body, reply.body)
        assert reply.error["data"]["code"] == "BAD_REQUEST"
        assert reply.error["data"]["details"][0]["field"].startswith(field), (body, reply.body)
    longest = {"json": {"name": "x", "scopes": ["read"], "expiresIn": "365d"}}
    assert (await org.owner.rest("POST", "/api/auth/tokens", longest)).status == 200


async def test_token_scopes_limit_what_it_may_call(org: Org) -> None:
    reader = org.owner.with_bearer((await create_token(org.owner, scopes=["read"]))["token"])
    me = await reader.query("auth.me")
    assert me.status == 200 and me.data["id"] == org.owner_id
    refused = await reader.rest("PATCH", "/api/v1/auth/me", {"name": "Renamed"})
    assert refused.status == 403 and refused.error["code"] == "FORBIDDEN"
    assert (await reader.rest("GET", "/api/v1/audit")).status == 200
    writer = org.owner.with_bearer((await create_token(org.owner, scopes=["write"]))["token"])
    assert (await writer.rest("PATCH", "/api/v1/auth/me", {"name": "Renamed"})).status == 200
    assert (await writer.rest("GET", "/api/v1/audit")).status == 403


async def test_tokens_cannot_manage_tokens(org: Org) -> None:
    created = await create_token(org.owner, scopes=["admin", "read", "write"])
    admin_token = org.owner.with_bearer(created["token"])
    mint = {"json": {"name": "x", "scopes": ["admin"]}}
    assert (await admin_token.rest("POST", "/api/auth/tokens", mint)).status == 403
    assert (await admin_token.mutate("auth.tokens.create", {"name": "x", "scopes": ["admin"]})).status == 403
    assert (await admin_token.query("auth.tokens.list")).status == 403


async def test_revoke_is_immediate_and_only_for_the_owner_of_the_token(org: Org) -> None:
    created = await create_token(org.owner, scopes=["read"])
    as_token = org.owner.with_bearer(created["token"])
    assert (await as_token.query("auth.me")).status == 200  # verified and cached now

    _, member = await org.add_user("member")
    stranger = await member.mutate("auth.tokens.revoke", {"tokenId": created["id"]})
    assert stranger.status == 404 and stranger.error["data"]["code"] == "NOT_FOUND"
    assert (await member.query("auth.tokens.list")).data == []
    assert (await as_token.query("auth.me")).status == 200

    revoked = await org.owner.mutate("auth.tokens.revoke", {"tokenId": created["id"]})
    assert revoked.status == 200 and revoked.data["status"] == "revoked"
    refused = await as_token.query("auth.me")
    assert refused.status == 401 and refused.error["data"]["code"] == "UNAUTHORIZED"
    assert [t["status"] for t in (await org.owner.query("auth.tokens.list")).data] == ["revoked"]


async def test_a_token_is_valid_only_for_its_organization(client: object, org: Org) -> None:
    other = await make_org(client)  # type: ignore[arg-type]
    created = await create_token(org.owner, scopes=["read"])
    assert (await org.owner.with_bearer(created["token"]).on_host(other.host).query("auth.me")).status == 401


async def test_free_plan_refuses_tokens(client: object) -> None:
    free = await make_org(client, plan="free")  # type: ignore[arg-type]
    created = await create_token(free.owner, scopes=["read"])
    assert (await free.owner.with_bearer(created["token"]).query("auth.me")).status == 403
    assert (await free.owner.query("auth.me")).status == 200
