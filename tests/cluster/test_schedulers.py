"""Periodic workers across nodes (separate processes on one database): each worker that has no row claims of
its own runs its steps on exactly one node, the one holding its advisory lock (actors/kernel/leadership.py);
when that node is killed, another takes the lead at its next step and does the work, once."""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
from collections.abc import Iterator
from typing import Any

import asyncpg

from tests.cluster.harness import Cluster, ClusterNode
from tests.integration.actors.conftest import until

LED = ("trash-sweeper", "approval-expiry", "form-sweeper", "idempotency-purge")
DEADLINE_SECONDS = 10.0
# The purge's step interval in the handover test: a follower asks for the lead this often.
PURGE_INTERVAL = "0.2"
# From the leader's kill -9 to another node's first step as leader: PostgreSQL ends the dead node's session
# (its socket is closed by the kernel) and a follower asks within PURGE_INTERVAL; the rest is a loaded machine.
HANDOVER_SECONDS = 5.0
EXPIRED_ROWS = 5


def _records(node: ClusterNode) -> Iterator[dict[str, Any]]:
    """The node's structured log records, in order (lines that are not JSON records are skipped)."""
    for line in node.log().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def _roles(node: ClusterNode) -> dict[str, str]:
    """worker -> "leads" or "follows", as the node logged its first step."""
    roles: dict[str, str] = {}
    for record in _records(node):
        if record.get("event") in ("worker_leads", "worker_follows"):
            roles.setdefault(record["worker"], record["event"].removeprefix("worker_"))
    return roles


def _leads(node: ClusterNode, worker: str) -> bool:
    """Whether the node took the lead of `worker` at some step."""
    return any(record.get("event") == "worker_leads" and record.get("worker") == worker
               for record in _records(node))


def _purged(node: ClusterNode) -> int:
    """How many expired idempotency records the node purged, as it logged them."""
    return sum(record["count"] for record in _records(node) if record.get("event") == "idempotency_keys_purged")


async def _expired(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval(
        "SELECT count(*) FROM idempotency_keys WHERE created_at < now() - interval '24 hours'"))


async def _expire(pool: asyncpg.Pool, count: int) -> None:
    """`count` records of a day and an hour ago: due for the purge."""
    scope = f"user_{secrets.token_hex(6)}"
    await pool.executemany(
        """INSERT INTO idempotency_keys (scope, key, request_hash, status, created_at)
           VALUES ($1, $2, 'h', 200, now() - interval '25 hours')""", [(scope, f"key-{n}") for n in range(count)])


async def test_each_scheduler_runs_on_one_node_only(cluster: Cluster) -> None:
    nodes = await cluster.start(2)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE_SECONDS
    while not all(set(LED) <= set(_roles(node)) for node in nodes):  # both took their first step
        assert loop.time() < deadline, [_roles(node) for node in nodes]
        await asyncio.sleep(0.05)
    for worker in LED:
        assert sorted(_roles(node)[worker] for node in nodes) == ["follows", "leads"], worker


async def test_another_node_takes_the_lead_when_the_leader_is_killed_and_purges_once(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    left_over = await _expired(pool)  # by earlier tests: the first leader purges them with the rows below
    nodes = await cluster.start(3, OBEYA_IDEMPOTENCY_PURGE_INTERVAL=PURGE_INTERVAL)
    worker = "idempotency-purge"

    async def roles_known() -> bool:
        return all(worker in _roles(node) for node in nodes)

    await until(roles_known, within=DEADLINE_SECONDS)
    [leader] = [node for node in nodes if _roles(node)[worker] == "leads"]
    survivors = [node for node in nodes if node is not leader]

    async def purged_by_leader() -> bool:
        return _purged(leader) == left_over + EXPIRED_ROWS

    await _expire(pool, EXPIRED_ROWS)
    await until(purged_by_leader, within=DEADLINE_SECONDS)
    assert [_purged(node) for node in survivors] == [0, 0]

    async def taken_over() -> bool:
        return any(_leads(node, worker) for node in survivors)

    await leader.stop(signal.SIGKILL)
    await until(taken_over, within=HANDOVER_SECONDS)
    [successor] = [node for node in survivors if _leads(node, worker)]

    async def purged_by_successor() -> bool:
        return _purged(successor) == EXPIRED_ROWS

    await _expire(pool, EXPIRED_ROWS)
    await until(purged_by_successor, within=DEADLINE_SECONDS)
    assert await _expired(pool) == 0
    assert [_purged(node) for node in survivors if node is not successor] == [0]
