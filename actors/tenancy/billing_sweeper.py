"""The sandbox's period ends: once `currentPeriodEnd` has passed, a subscription set to `cancelAtPeriodEnd` moves
to free and `canceled` through the one plan-change path (actors/tenancy/billing_callbacks.change_plan), so gates,
rate limits and seats follow on every node; any other active subscription renews, its period rolled forward by its
interval (as often as needed to reach the present), as a processor's renewal would. With Stripe the processor does
both itself and says so (`customer.subscription.deleted`, `.updated`), so the sweeper does neither.

The same worker forgets the ids of callbacks older than EVENT_MEMORY: a processor stops retrying long before (Stripe
after three days), and an older event arriving again could not undo newer state anyway (its `created` is older)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

import structlog

from actors.identity.callers import forget_organization
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from actors.tenancy.billing import add_interval
from actors.tenancy.billing_callbacks import change_plan
from actors.tenancy.billing_processors import PAYMENT_PROCESSOR
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
    if node.plugins[PAYMENT_PROCESSOR].name != "sandbox":
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


async def renew_ended_periods(node: Node) -> int:
    """Roll one batch of active subscriptions whose period ended forward by their interval; how many renewed."""
    if node.plugins[PAYMENT_PROCESSOR].name != "sandbox":
        return 0
    async with node.write(None) as uow:
        rows = await repo.renew_due(uow.conn, uow.now, BATCH)
        for row in rows:
            start, end = row["current_period_start"], row["current_period_end"]
            while end <= uow.now:  # a node stopped for months renews once, to the period holding now
                start, end = end, add_interval(end, row["billing_interval"])
            await repo.update_subscription(uow.conn, row["organization_id"], uow.now,
                                           current_period_start=start, current_period_end=end)
    return len(rows)


async def _in_batches(node: Node, step: Callable[[Node], Awaitable[int]]) -> int:
    moved = 0
    while await leads(node.leadership, "billing-sweeper"):
        done = await step(node)
        moved += done
        if done < BATCH:  # a full batch: there may be more at once
            break
    return moved


async def cancel_at_period_end_forever(node: Node) -> None:
    """A worker (node.workers, `billing-sweeper`): every SWEEP_SECONDS, ended periods are canceled or renewed."""
    while True:
        moved = await _in_batches(node, cancel_ended_periods)
        if moved:
            log.info("subscriptions_canceled_at_period_end", subscriptions=moved)
        renewed = await _in_batches(node, renew_ended_periods)
        if renewed:
            log.info("subscriptions_renewed", subscriptions=renewed)
        if await leads(node.leadership, "billing-sweeper"):
            async with node.pool.acquire() as conn:
                await repo.forget_events(conn, node.clock.now() - EVENT_MEMORY)
        await rest(node.clock, SWEEP_SECONDS)
