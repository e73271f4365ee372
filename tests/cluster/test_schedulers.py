"""Periodic workers across nodes (separate processes on one database): each worker that has no row claims of
its own runs its steps on exactly one node, the one holding its advisory lock (actors/kernel/leadership.py)."""

from __future__ import annotations

import asyncio
import json

from tests.cluster.harness import Cluster, ClusterNode

LED = ("trash-sweeper", "approval-expiry", "form-sweeper", "idempotency-purge")
DEADLINE_SECONDS = 10.0


def _roles(node: ClusterNode) -> dict[str, str]:
    """worker -> "leads" or "follows", as the node logged its first step."""
    roles: dict[str, str] = {}
    for line in node.log().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("event") in ("worker_leads", "worker_follows"):
            roles.setdefault(record["worker"], record["event"].removeprefix("worker_"))
    return roles


async def test_each_scheduler_runs_on_one_node_only(cluster: Cluster) -> None:
    nodes = await cluster.start(2)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE_SECONDS
    while not all(set(LED) <= set(_roles(node)) for node in nodes):  # both took their first step
        assert loop.time() < deadline, [_roles(node) for node in nodes]
        await asyncio.sleep(0.05)
    for worker in LED:
        assert sorted(_roles(node)[worker] for node in nodes) == ["follows", "leads"], worker
