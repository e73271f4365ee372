"""A retry whose Idempotency-Key is held by a node that died (kill -9, separate processes): the board's owner
applied a keyed write and kept its reply, then died before it marked the key done. A retry through another
node is answered from that kept reply within about a lease, and the item exists once; while the holder still
runs, a retry is 409 "still in progress" as before."""

from __future__ import annotations

import asyncio
import secrets
import signal

import asyncpg

from tests.cluster.harness import Cluster, make_org
from tests.harness import Api, Reply
from tests.integration.boards.conftest import make_board

LEASE_SECONDS = 2
ENVIRON = {"OBEYA_ACTOR_LEASE": str(LEASE_SECONDS)}
# A retry is answered within about a lease once the holder died: the dead node's claim on the board lapses,
# another node activates it, and the key is taken over at once (503 with Retry-After meanwhile).
ANSWERED_WITHIN = 4 * LEASE_SECONDS


async def _left_in_flight(pool: asyncpg.Pool, key: str) -> None:
    """The key's record as its node leaves it when it dies after the actor applied the write and kept its
    reply, before the node marked the key done."""
    done = await pool.execute("UPDATE idempotency_keys SET status = NULL, response = NULL, content_type = NULL "
                              "WHERE key = $1", key)
    assert done == "UPDATE 1"


async def _create(api: Api, board_id: str, group_id: str, name: str, key: str) -> Reply:
    return await api.mutate("items.create", {"boardId": board_id, "groupId": group_id, "name": name},
                            {"Idempotency-Key": key})


async def test_a_retry_after_the_node_holding_its_key_died_is_answered_from_the_kept_reply(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    nodes = await cluster.start(2, **ENVIRON)
    org = await make_org(pool, nodes[0])
    board = await make_board(org)
    holder = await cluster.owner(f"board:{board.id}")
    assert holder is not None
    survivor = next(node for node in nodes if node is not holder)
    through_holder, through_survivor = holder.reach(org.owner), survivor.reach(org.owner)

    key, name = secrets.token_hex(8), f"Pump {secrets.token_hex(4)}"
    first = await _create(through_holder, board.id, board.group_id, name, key)
    assert first.status == 200, first.body
    assert await pool.fetchval("SELECT holder FROM idempotency_keys WHERE key = $1", key) == holder.node_id
    await _left_in_flight(pool, key)

    refused = await _create(through_survivor, board.id, board.group_id, name, key)  # the holder still runs
    assert refused.status == 409, refused.body
    assert "still in progress" in refused.body["error"]["message"]

    await holder.stop(signal.SIGKILL)
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        retry = await _create(through_survivor, board.id, board.group_id, name, key)
        if retry.status != 503:
            break
        assert loop.time() - started < ANSWERED_WITHIN, retry.body
        await asyncio.sleep(int(retry.headers["Retry-After"]))
    assert retry.status == 200, retry.body
    assert loop.time() - started < ANSWERED_WITHIN
    assert retry.data["id"] == first.data["id"]
    assert await pool.fetchval("SELECT count(*) FROM items WHERE board_id = $1 AND name = $2", board.id, name) == 1
    assert await pool.fetchval("SELECT holder FROM idempotency_keys WHERE key = $1 AND status = 200",
                               key) == survivor.node_id
