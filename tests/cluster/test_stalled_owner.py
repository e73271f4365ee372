"""A board's owner stopped (SIGSTOP) for longer than two leases, as a long pause, a frozen VM or CPU starvation
would stop it: its process keeps its Redis connection, so it still seems to listen, but once its lease lapsed
another node takes the board under a new epoch and writes through the other nodes are accepted again within
two leases of the stop. Continued, the stalled node logs that it lost the board, forwards to the new owner,
and no write is lost or applied twice."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal

import asyncpg

from tests.cluster.harness import Cluster, make_org
from tests.harness import Api
from tests.integration.boards.conftest import make_board

LEASE_SECONDS = 2
ENVIRON = {"OBEYA_ACTOR_LEASE": str(LEASE_SECONDS)}
STALL_SECONDS = 2.5 * LEASE_SECONDS
# A write's last round trip and the stalled owner's last renewal (a third of a lease before the stop) on two
# shared cores.
SLACK_SECONDS = 1.0
WRITE_SECONDS = 30.0


async def _create(api: Api, board_id: str, group_id: str, name: str) -> str:
    """Create the item `name` under one Idempotency-Key, sent again on every 503 until acknowledged."""
    key = secrets.token_hex(8)
    deadline = asyncio.get_running_loop().time() + WRITE_SECONDS
    while True:
        reply = await api.mutate("items.create", {"boardId": board_id, "groupId": group_id, "name": name},
                                 {"Idempotency-Key": key})
        if reply.status == 200:
            item_id: str = reply.data["id"]
            return item_id
        assert reply.status == 503, (reply.status, reply.body)
        assert asyncio.get_running_loop().time() < deadline, f"{name}: not accepted within {WRITE_SECONDS} s"
        await asyncio.sleep(min(float(reply.headers["Retry-After"]), 0.2))


async def test_a_stalled_owner_loses_its_board_within_two_leases_and_drops_it_on_waking(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    nodes = await cluster.start(3, **ENVIRON)
    org = await make_org(pool, nodes[0])
    board = await make_board(org)
    await board.add_item("Before the stall")
    stalled = await cluster.owner(f"board:{board.id}")
    assert stalled is not None
    writer = next(node for node in nodes if node is not stalled).reach(org.owner)
    await _create(writer, board.id, board.group_id, "Forwarded before the stall")  # the writer remembers the owner

    loop = asyncio.get_running_loop()
    os.kill(stalled.process.pid, signal.SIGSTOP)
    stopped_at = loop.time()
    try:
        await _create(writer, board.id, board.group_id, "During the stall")
        recovery = loop.time() - stopped_at
        new_owner = await cluster.owner(f"board:{board.id}")
        assert new_owner is not None and new_owner is not stalled
        await asyncio.sleep(max(0.0, STALL_SECONDS - (loop.time() - stopped_at)))
    finally:
        os.kill(stalled.process.pid, signal.SIGCONT)
    assert recovery < 2 * LEASE_SECONDS + SLACK_SECONDS, recovery

    # Continued, the stalled node writes through the new owner (a 503 while it finds out, never a 500).
    await _create(stalled.reach(org.owner), board.id, board.group_id, "Through the woken node")
    assert await cluster.owner(f"board:{board.id}") is new_owner
    # Woken, the node gives the board up: its renewal finds the key taken (lease_lost), or, when the renewal's
    # Redis call times out on a connection that slept through the stall, it forgets what it could not confirm for
    # a lease (lease_unconfirmed). Either way it stops serving the board from memory.
    dropped = [line for line in stalled.log().splitlines()
               if ("directory.lease_lost" in line or "directory.lease_unconfirmed" in line)
               and f"board:{board.id}" in line]
    assert dropped, stalled.log()[-3000:]

    names = [row["name"] for row in await pool.fetch("SELECT name FROM items WHERE board_id = $1 ORDER BY name",
                                                     board.id)]
    assert names == sorted(["Before the stall", "Forwarded before the stall", "During the stall",
                            "Through the woken node"])
    # Every epoch of the board committed from one node only: the stalled one was fenced, not merged in.
    rows = await pool.fetch("SELECT node_id, epoch FROM events WHERE stream = $1 AND epoch IS NOT NULL",
                            f"board:{board.id}")
    writers_of: dict[int, set[str]] = {}
    for row in rows:
        writers_of.setdefault(row["epoch"], set()).add(row["node_id"])
    assert all(len(writers) == 1 for writers in writers_of.values()), writers_of
