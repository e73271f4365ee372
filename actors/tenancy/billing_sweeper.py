"""The sandbox's cancellation at period end: once `currentPeriodEnd` has passed for a subscription set to
`cancelAtPeriodEnd`, it moves to free and `canceled` through the one plan-change path
(actors/tenancy/billing_callbacks.change_plan), so gates, rate limits and seats follow on every node. With Stripe
the processor does this itself and says so with `customer.subscription.deleted`, so the sweeper does nothing.

The same worker forgets the ids of callbacks older than EVENT_MEMORY: a processor stops retrying long before (Stripe
after three days), and an older event arriving again could not undo newer state anyway (its `created` is older)."""

from __future__ import annotations

from datetime import timedelta

import structlog

from actors.identity.callers import forget_organization
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from actors.tenancy.billing_callbacks import change_plan
from storage import billing as repo

log = structlog.get_logger("obeya.billing")

# How often ended periods are looked for: a subscription runs at most this long past its end.
SWEEP_SECONDS = 60.0
# Subscriptions moved in one transaction; the next sweep takes the rest at once.
BATCH = 100
# How long a callback's id is kept to answer its repeats `duplicate`.
EVENT_MEMORY = timedelta(days=30)


async def cancel_ended_periods(node: Node) -> int:
    """Move one batch of subscriptions whose period ended with cancellation set to free; how many moved."""
    if node.billing.name != "sandbox":
        return 0
    slugs: list[str] = []
    async with node.write(None) as uow:
        for row in await repo.cancel_due(uow.conn, uow.now, BATCH):
            slugs.append(await change_plan(uow, row["organization_id"], "free", uow.now,
                                           {"canceled": True, "reason": "period ended"}, status="canceled",
                                           seats=None, cancel_at_period_end=False))
    for slug in slugs:
        forget_organization(node, slug)
    return len(slugs)


async def cancel_at_period_end_forever(node: Node) -> None:
    """A worker (node.workers, `billing-sweeper`): every SWEEP_SECONDS, ended periods are canceled."""
    while True:
        moved = 0
        while await leads(node.leadership, "billing-sweeper"):
            step = await cancel_ended_periods(node)
            moved += step
            if step < BATCH:  # a full batch: there may be more at once
                break
        if moved:
            log.info("subscriptions_canceled_at_period_end", subscriptions=moved)
        if await leads(node.leadership, "billing-sweeper"):
            async with node.pool.acquire() as conn:
                await repo.forget_events(conn, node.clock.now() - EVENT_MEMORY)
        await rest(node.clock, SWEEP_SECONDS)
