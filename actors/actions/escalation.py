"""The overdue-action scheduler: an action still open or in progress after its due date (UTC) goes up one
escalation level on the first check once it is overdue, then one more level each further day its level has
not moved (by hand or by this scheduler), up to level 3. Each level goes to the next person up the board's
chain: its creator (who runs the board), then the organization's admins, then its owner, passing over the
assignee (docs/decisions.md "Action statuses and escalation").

Every node checks every `CHECK_SECONDS`. The actions to escalate are locked with SKIP LOCKED and their level
time moves in the same transaction, so each escalation happens once across nodes. After downtime the next
check escalates every action whose time has come once (missed days do not stack), and the interval counts
from then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import structlog

from actors.actions.handlers import escalate_locked
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from storage import actions as repo

log = structlog.get_logger("obeya.action_escalation")

# Escalation is a matter of days: a check every five minutes escalates an action within five minutes of its
# time at the cost of one indexed query per node.
CHECK_SECONDS = 300.0
# One tier a day: what a tier board still shows overdue at the next day's meeting goes one tier up.
ESCALATION_INTERVAL = timedelta(days=1)
# Tier 3 (plant level) is as high as overdue actions go by themselves; people may escalate further.
MAX_AUTOMATIC_LEVEL = 3
BATCH = 100


def target_for(chain: list[str], assignee_id: str | None, level: int) -> str | None:
    """The person level `level` goes to: the level-th of the chain without the assignee (the last one when the
    chain is shorter; the whole chain when the assignee is all it holds)."""
    people = [user for user in chain if user != assignee_id] or chain
    return people[min(level, len(people)) - 1] if people else None


async def _escalate_batch(node: Node, now: datetime) -> int:
    today = now.astimezone(UTC).date()
    async with node.write(None) as uow:
        conn = uow.conn
        rows = await repo.due_for_escalation(conn, today=today, unchanged_since=now - ESCALATION_INTERVAL,
                                             below_level=MAX_AUTOMATIC_LEVEL, limit=BATCH)
        for row in rows:
            chain = await repo.escalation_chain(conn, row["organization_id"], row["board_id"])
            days = (today - row["due_date"]).days
            reason = f"overdue since {row['due_date'].isoformat()} ({days} day{'s' if days > 1 else ''} past due)"
            target = target_for(chain, row["assignee_id"], row["escalation_level"] + 1)
            await escalate_locked(uow, row, target_id=target, reason=reason)
    return len(rows)


async def escalate_overdue(node: Node) -> int:
    """Escalate every overdue action whose time has come; how many were escalated."""
    now = node.clock.now()
    escalated = 0
    while True:
        done = await _escalate_batch(node, now)
        escalated += done
        if done < BATCH:
            return escalated


async def escalate_overdue_forever(node: Node) -> None:
    """A worker (node.workers): a failed check is logged by the supervisor and tried again after its backoff."""
    while True:
        escalated = await escalate_overdue(node)
        if escalated:
            log.info("overdue_actions_escalated", actions=escalated)
        await rest(node.clock, CHECK_SECONDS)
