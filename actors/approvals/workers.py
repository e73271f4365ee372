"""The approval flows' two background workers.

Expiry (`approval-expiry`): every `CHECK_SECONDS` the requests whose step outlived its `expiresInHours` are
found and each flow's actor is told to expire them (it checks the time again, so a decision that came first
wins). Action nodes (`approval-actions`): each run queued by a flow's turn is claimed under a lease (SKIP
LOCKED: one node runs it), carried out by the automation engine's own action code as the flow's creator on
the submission's item, and marked done; a run interrupted by a crash is claimed again when its lease ends."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import aiohttp
import asyncpg
import structlog

from actors.approvals.commands import Expire
from actors.approvals.routing import ask_flow
from actors.automations.run import Run
from actors.delivery.outbound_http import open_session
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.errors import ApiError
from storage import approvals as repo

log = structlog.get_logger("obeya.approvals")

CHECK_SECONDS = 60.0
BATCH = 100
LEASE = timedelta(minutes=5)


async def expire_due(node: Node, batch: int = BATCH) -> int:
    """Expire every request whose step's time is up, `batch` at a time until none is left (or a whole batch
    failed: tried again next time); how many were expired."""
    expired = 0
    while True:
        rows = await repo.expiring(node.pool, node.clock.now(), batch)
        by_flow: dict[tuple[str, str], list[str]] = {}
        for row in rows:
            by_flow.setdefault((row["organization_id"], row["flow_id"]), []).append(row["id"])
        this_batch = 0
        for (org_id, flow_id), request_ids in by_flow.items():
            try:
                this_batch += int(await ask_flow(node, None, org_id, flow_id, Expire(tuple(request_ids))))
            except ApiError as error:
                log.warning("approval_expiry_failed", flow=flow_id, error=error.message)
        expired += this_batch
        if len(rows) < batch or this_batch == 0:
            return expired


async def expire_forever(node: Node) -> None:
    while True:
        if await leads(node.leadership, "approval-expiry"):  # one node of the cluster expires
            await expire_due(node)
        await rest(node.clock, CHECK_SECONDS)


class _NodeRun(Run):
    """An action node's run: the automation engine's Run without a rule of its own; its record is the
    action-run row."""

    async def _record(self, status: str, error: str | None) -> None:
        async with self.node.pool.acquire() as conn:
            await repo.finish_action_run(conn, self.job["id"], "done" if status == "success" else "failed",
                                         error, self.node.clock.now())


async def _board_of(pool: asyncpg.Pool, org_id: str, request_id: str) -> str | None:
    board_id: str | None = await pool.fetchval(
        """SELECT f.board_id FROM approval_requests r JOIN forms f ON f.id = r.form_id
            WHERE r.organization_id = $1 AND r.id = $2""", org_id, request_id)
    return board_id


async def run_next_action(node: Node, session: aiohttp.ClientSession) -> bool:
    """Claim and carry out one queued action-node run; False when none waits."""
    now = node.clock.now()
    claimed = await repo.claim_action_run(node.pool, now, now + LEASE)
    if claimed is None:
        return False
    board_id = await _board_of(node.pool, claimed["organization_id"], claimed["request_id"])
    if board_id is None:
        await repo.finish_action_run(node.pool, claimed["id"], "failed", "the form is gone", now)
        return True
    rule: dict[str, Any] = {"id": f"approval:{claimed['flow_id']}:{claimed['node_id']}", "board_id": board_id,
                            "created_by": claimed["acting_user_id"], "conditions": [], "name": "Approval flow",
                            "actions": [claimed["action"]], "trigger": {"type": "approval", "config": {}}}
    job: dict[str, Any] = {"id": claimed["id"], "organization_id": claimed["organization_id"], "depth": 0,
                           "user_id": claimed["acting_user_id"], "event": None, "trigger_type": "approval",
                           "event_id": None, "context": {}}
    await _NodeRun(node, session, rule, job, claimed["item_id"]).execute()
    return True


async def run_actions_forever(node: Node) -> None:
    session = open_session(node)
    try:
        while True:
            while await run_next_action(node, session):
                pass
            await rest(node.clock, CHECK_SECONDS / 12)
    finally:
        await session.close()
