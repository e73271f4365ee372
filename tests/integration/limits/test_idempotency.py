"""Safe retries with `Idempotency-Key` (docs/architecture.md, "The write path"): one run per credential and key, the
first response replayed byte for byte from PostgreSQL (also by another node), 409 for another body or a
request still in flight, reads untouched, records purged after 24 hours."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
import asyncpg
import pytest

import web.idempotency_store as idempotency
from actors.kernel.settings import NodeSettings
from actors.runtime.clock import ManualClock
from protocol.errors import Conflict
from server.app import create_app
from server.node_services import build_node
from tests.harness import Api, Org
from web.keys import NODE

RPC_PATH = "/api/trpc/auth.updateProfile"
REST_PATH = "/api/v1/auth/me"


@dataclass
class Raw:
    status: int
    body: bytes
    headers: Any


async def write(api: Api, method: str, path: str, body: Any, key: str | None = None) -> Raw:
    """A write whose answer is kept as raw bytes, so replays can be compared byte for byte."""
    extra = {"Content-Type": "application/json"}
    if key is not None:
        extra["Idempotency-Key"] = key
    data = json.dumps(body)
    async with api.client.request(method, path, data=data, headers=api.headers(extra)) as response:
        return Raw(response.status, await response.read(), response.headers)


async def rename_rpc(api: Api, name: str, key: str | None = None) -> Raw:
    return await write(api, "POST", RPC_PATH, {"json": {"name": name}}, key)


async def rename_rest(api: Api, name: str, key: str | None = None) -> Raw:
    return await write(api, "PATCH", REST_PATH, {"name": name}, key)


async def current_name(api: Api) -> str:
    return str((await api.query("auth.me")).data["name"])


def new_key() -> str:
    return secrets.token_hex(16)


async def test_rpc_retry_replays_the_first_response_without_a_second_change(org: Org) -> None:
    key = new_key()
    first = await rename_rpc(org.owner, "Ada First", key)
    assert first.status == 200 and "Idempotent-Replayed" not in first.headers
    assert (await rename_rpc(org.owner, "Bob Between")).status == 200

    replay = await rename_rpc(org.owner, "Ada First", key)
    assert (replay.status, replay.body) == (first.status, first.body)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.headers["Content-Type"] == first.headers["Content-Type"]
    assert json.loads(replay.body)["result"]["data"]["json"]["name"] == "Ada First"
    assert await current_name(org.owner) == "Bob Between"


async def test_rest_retry_replays_the_first_response_without_a_second_change(org: Org) -> None:
    key = new_key()
    first = await rename_rest(org.owner, "Cy First", key)
    assert first.status == 200
    assert (await rename_rest(org.owner, "Dee Between")).status == 200
    replay = await rename_rest(org.owner, "Cy First", key)
    assert (replay.status, replay.body) == (first.status, first.body)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.headers["X-RateLimit-Limit"] == "1000"
    assert await current_name(org.owner) == "Dee Between"


async def test_same_key_with_another_body_is_a_conflict(org: Org) -> None:
    key = new_key()
    assert (await rename_rest(org.owner, "Eve First", key)).status == 200

    rest = await rename_rest(org.owner, "Eve Other", key)
    assert rest.status == 409
    error = json.loads(rest.body)["error"]
    assert error["code"] == "CONFLICT" and error["details"][0]["field"] == "Idempotency-Key"

    rpc = await rename_rpc(org.owner, "Eve First", key)  # same key on another path: another request
    assert rpc.status == 409
    assert json.loads(rpc.body)["error"]["data"]["code"] == "CONFLICT"
    assert await current_name(org.owner) == "Eve First"


async def test_keys_are_scoped_per_credential(org: Org) -> None:
    member_id, member = await org.add_user("member", name="Mia Member")
    key = new_key()
    owner_reply = await rename_rest(org.owner, "Same Name", key)
    member_reply = await rename_rest(member, "Same Name", key)
    assert owner_reply.status == member_reply.status == 200
    assert "Idempotent-Replayed" not in member_reply.headers
    assert json.loads(owner_reply.body)["data"]["id"] == org.owner_id
    assert json.loads(member_reply.body)["data"]["id"] == member_id
    assert await current_name(member) == "Same Name"


async def test_another_node_replays_after_the_first_one_answered(
        org: Org, aiohttp_client: Any, database_url: str, settings: Any) -> None:
    key = new_key()
    first = await rename_rpc(org.owner, "Gus First", key)
    assert (await rename_rpc(org.owner, "Hal Between")).status == 200

    other_node = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    replay = await rename_rpc(Api(other_node, org.host, session=org.owner.session), "Gus First", key)
    assert (replay.status, replay.body) == (first.status, first.body)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert await current_name(org.owner) == "Hal Between"


async def test_a_retry_while_the_first_is_in_flight_is_a_conflict(org: Org) -> None:
    key = new_key()
    node = org.anonymous.client.app[NODE]
    body = json.dumps({"json": {"name": "Ivy"}}).encode()
    digest = idempotency.request_hash("POST", org.id, RPC_PATH, body)
    assert await idempotency.begin(node, f"user:{org.owner_id}", key, digest) is None  # another node runs it

    async with org.owner.client.post(RPC_PATH, data=body, headers=org.owner.headers(
            {"Content-Type": "application/json", "Idempotency-Key": key})) as response:
        assert response.status == 409
        assert "in progress" in (await response.json())["error"]["message"]
    assert await current_name(org.owner) == "Olga Owner"


async def test_a_refused_write_releases_its_key(org: Org) -> None:
    key = new_key()
    refused = await rename_rest(org.owner, "", key)
    assert refused.status == 422
    accepted = await rename_rest(org.owner, "Jo Fixed", key)
    assert accepted.status == 200 and "Idempotent-Replayed" not in accepted.headers
    assert await current_name(org.owner) == "Jo Fixed"


async def test_reads_ignore_the_key(org: Org) -> None:
    key = new_key()
    before = await org.owner.query("auth.me", headers={"Idempotency-Key": key})
    assert (await rename_rest(org.owner, "Kim Changed")).status == 200
    after = await org.owner.query("auth.me", headers={"Idempotency-Key": key})
    assert "Idempotent-Replayed" not in after.headers
    assert (before.data["name"], after.data["name"]) == ("Olga Owner", "Kim Changed")


async def test_key_length_is_checked(org: Org) -> None:
    for key in ("", "k" * 256):
        rest = await rename_rest(org.owner, "Lee", key)
        assert rest.status == 400
        assert json.loads(rest.body)["error"]["details"][0]["field"] == "Idempotency-Key"
        rpc = await rename_rpc(org.owner, "Lee", key)
        assert rpc.status == 400 and json.loads(rpc.body)["error"]["data"]["code"] == "BAD_REQUEST"
    assert (await rename_rest(org.owner, "Lee", "k" * 255)).status == 200


async def test_release_lets_a_failed_request_run_again(pool: asyncpg.Pool) -> None:
    node = build_node(pool, clock=ManualClock())
    scope, key, digest = f"test:{new_key()}", new_key(), "a" * 64
    assert await idempotency.begin(node, scope, key, digest) is None
    await idempotency.release(node, scope, key, digest)  # what the edge does after a 5xx
    assert await idempotency.begin(node, scope, key, digest) is None


async def test_purge_removes_records_older_than_a_day(pool: asyncpg.Pool) -> None:
    clock = ManualClock()
    node = build_node(pool, clock=clock)
    scope, digest = f"test:{new_key()}", "b" * 64
    stored = idempotency.StoredResponse(200, b'{"data":1}', "application/json")
    old_key, new_key_ = new_key(), new_key()
    assert await idempotency.begin(node, scope, old_key, digest) is None
    await idempotency.finish(node, scope, old_key, digest, stored)
    clock.advance(timedelta(hours=23).total_seconds())
    assert await idempotency.begin(node, scope, new_key_, digest) is None
    await idempotency.finish(node, scope, new_key_, digest, stored)
    clock.advance(timedelta(hours=1, seconds=1).total_seconds())

    assert await idempotency.purge(node) >= 1
    remaining = await pool.fetch("SELECT key FROM idempotency_keys WHERE scope = $1", scope)
    assert [row["key"] for row in remaining] == [new_key_]
    assert await idempotency.begin(node, scope, new_key_, digest) == stored


async def test_purge_removes_the_replies_actors_kept_for_keys_older_than_a_day(pool: asyncpg.Pool) -> None:
    actor_key = f"board:test-{new_key()}"
    await pool.execute("""INSERT INTO actor_replies (actor_key, call_key, reply, created_at)
                          VALUES ($1, 'old', '\\x00', now() - interval '25 hours'), ($1, 'new', '\\x01', now())""",
                       actor_key)

    await idempotency.purge(build_node(pool))

    kept = await pool.fetch("SELECT call_key FROM actor_replies WHERE actor_key = $1", actor_key)
    assert [row["call_key"] for row in kept] == ["new"]


async def test_an_expired_record_is_not_replayed_before_the_purge(pool: asyncpg.Pool) -> None:
    clock = ManualClock()
    node = build_node(pool, clock=clock)
    scope, key, digest = f"test:{new_key()}", new_key(), "c" * 64
    assert await idempotency.begin(node, scope, key, digest) is None
    await idempotency.finish(node, scope, key, digest, idempotency.StoredResponse(200, b"{}", None))
    clock.advance(timedelta(hours=24, seconds=1).total_seconds())
    assert await idempotency.begin(node, scope, key, "d" * 64) is None


async def test_concurrent_claims_let_exactly_one_request_run(pool: asyncpg.Pool) -> None:
    node = build_node(pool, clock=ManualClock())
    scope, key, digest = f"test:{new_key()}", new_key(), "e" * 64
    results = await asyncio.gather(*(idempotency.begin(node, scope, key, digest) for _ in range(5)),
                                   return_exceptions=True)
    assert results.count(None) == 1
    assert sum(isinstance(result, Conflict) for result in results) == 4


async def test_a_claim_abandoned_by_a_dead_node_is_taken_over(pool: asyncpg.Pool) -> None:
    clock = ManualClock()
    node = build_node(pool, clock=clock)
    scope, key, digest = f"test:{new_key()}", new_key(), "f" * 64
    assert await idempotency.begin(node, scope, key, digest) is None
    clock.advance(idempotency.ABANDONED_AFTER.total_seconds() + 1)
    assert await idempotency.begin(node, scope, key, digest) is None


async def test_a_claim_left_by_a_previous_process_of_a_single_node_is_taken_over_at_once(
        pool: asyncpg.Pool) -> None:
    scope, key, digest = f"test:{new_key()}", new_key(), "1" * 64
    before_restart = build_node(pool, NodeSettings(node_id="plant-a1b2c3"), clock=ManualClock())
    assert await idempotency.begin(before_restart, scope, key, digest) is None  # then the process was killed

    with pytest.raises(Conflict, match="in progress"):  # the same process: its request still runs
        await idempotency.begin(before_restart, scope, key, digest)
    after_restart = build_node(pool, NodeSettings(node_id="plant-d4e5f6"), clock=ManualClock())
    assert await idempotency.begin(after_restart, scope, key, digest) is None
    assert await pool.fetchval("SELECT holder FROM idempotency_keys WHERE scope = $1 AND key = $2",
                               scope, key) == "plant-d4e5f6"
    # The old request, were it to fail late, no longer releases the claim the retry now holds.
    await idempotency.release(before_restart, scope, key, digest)
    assert await pool.fetchval("SELECT holder FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status IS NULL",
                               scope, key) == "plant-d4e5f6"


async def test_a_claim_is_taken_over_only_when_its_node_is_no_longer_alive(pool: asyncpg.Pool) -> None:
    scope, key, digest = f"test:{new_key()}", new_key(), "2" * 64
    alive = {"node-a", "node-b"}

    async def node_alive(node_id: str) -> bool:
        return node_id in alive

    node_a = build_node(pool, NodeSettings(node_id="node-a"), clock=ManualClock())
    node_b = build_node(pool, NodeSettings(node_id="node-b"), clock=ManualClock())
    node_a.node_alive = node_b.node_alive = node_alive
    assert await idempotency.begin(node_a, scope, key, digest) is None
    with pytest.raises(Conflict, match="in progress"):
        await idempotency.begin(node_b, scope, key, digest)
    alive.discard("node-a")
    assert await idempotency.begin(node_b, scope, key, digest) is None
    with pytest.raises(Conflict, match="in progress"):  # node B runs it now
        await idempotency.begin(node_b, scope, key, digest)


async def _stored_rows(org: Org, key: str) -> list[asyncpg.Record]:
    pool = org.anonymous.client.server.app[NODE].pool
    return list(await pool.fetch("SELECT status, response, content_type FROM idempotency_keys WHERE key = $1", key))


async def test_a_new_api_key_is_never_stored_nor_replayed(org: Org) -> None:
    key = f"secret-{secrets.token_hex(4)}"
    first = await write(org.owner, "POST", "/api/v1/auth/api-keys", {"name": "Line 3"}, key)
    assert first.status == 201
    secret = json.loads(first.body)["data"]["key"]
    assert secret.startswith("svc_sk_live_")
    again = await write(org.owner, "POST", "/api/v1/auth/api-keys", {"name": "Line 3"}, key)
    assert again.status == 409 and secret.encode() not in again.body
    error = json.loads(again.body)["error"]
    assert error["code"] == "CONFLICT" and error["secretWithheld"] is True
    assert [d["field"] for d in error["details"]] == ["Idempotency-Key"]
    # The retry made no second key, and the record keeps that the first succeeded, never its reply.
    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert [k["name"] for k in listed.data] == ["Line 3"]
    rows = await _stored_rows(org, key)
    assert len(rows) == 1 and rows[0]["status"] == 201 and rows[0]["response"] is None
    assert all(secret not in str(value) for value in rows[0].values())


async def test_rotated_keys_and_personal_tokens_are_never_stored_nor_replayed(org: Org) -> None:
    created = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "Rotate me"})
    rotate_key, token_key = f"rotate-{secrets.token_hex(4)}", f"token-{secrets.token_hex(4)}"
    path = f"/api/v1/auth/api-keys/{created.data['apiKey']['id']}/rotate"
    rotated = await write(org.owner, "POST", path, {}, rotate_key)
    assert rotated.status == 200
    new_secret = json.loads(rotated.body)["data"]["key"]
    rotated_again = await write(org.owner, "POST", path, {}, rotate_key)
    assert rotated_again.status == 409 and new_secret.encode() not in rotated_again.body
    # Over RPC, a batch holding one secret-returning call is not kept either.
    body = {"0": {"json": {"name": "script", "scopes": ["read"]}}, "1": {"json": {"name": "Renamed"}}}
    batch_path = "/api/trpc/auth.tokens.create,auth.updateProfile?batch=1"
    made = await write(org.owner, "POST", batch_path, body, token_key)
    assert made.status == 200, made.body
    token = json.loads(made.body)[0]["result"]["data"]["json"]["token"]
    assert token.startswith("svc_pat_")
    retried = await write(org.owner, "POST", batch_path, body, token_key)
    assert retried.status == 409 and token.encode() not in retried.body
    for key in (rotate_key, token_key):
        rows = await _stored_rows(org, key)
        assert len(rows) == 1 and rows[0]["response"] is None
    tokens = await org.owner.query("auth.tokens.list")
    assert [t["name"] for t in tokens.data] == ["script"]
