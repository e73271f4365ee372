"""Billing (docs/billing.md): the organization's subscription, its feature gates, and the processor's checkout and
portal sessions.

The organization's plan stays where every gate already reads it (`organizations.plan`, cached per node as the
caller's organization); the subscription row beside it holds what the processor says about the plan: status,
interval, period, purchased seats and the processor's ids. It is created from the organization's plan on first
read. The processor (node.plugins[PAYMENT_PROCESSOR], actors/tenancy/billing_processors.py) makes checkout and
portal sessions: the sandbox's are pages this server renders (web/routes_billing.py), Stripe's are its hosted
pages. Either completes through the signed callback (actors/tenancy/billing_callbacks.py), which is where a plan
actually changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import asyncpg

from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.tenancy.billing_processors import PAYMENT_PROCESSOR, CheckoutRequest, PortalRequest
from protocol import billing as spec
from protocol.caller import Caller
from protocol.errors import Forbidden
from protocol.ids import Prefix, iso, new_id
from protocol.plans import allows, plan
from protocol.registry import EmptyInput
from storage import billing as repo

procedures = Implementations()


def add_interval(start: datetime, interval: str) -> datetime:
    """The end of a billing period: one calendar month (or year) later, on the last day of a shorter month."""
    months = 12 if interval == "annual" else 1
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    for day in (start.day, 30, 29, 28):
        try:
            return start.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    raise AssertionError("unreachable: every month has 28 days")


async def current(conn: asyncpg.Connection | asyncpg.Pool, node: Node, org_id: str) -> asyncpg.Record:
    """The organization's subscription, created from its plan when it has none yet."""
    row = await repo.subscription(conn, org_id)
    if row is None:
        now = node.clock.now()
        await repo.ensure_subscription(conn, new_id(Prefix.SUBSCRIPTION), org_id, now, add_interval(now, "monthly"))
        row = await repo.subscription(conn, org_id)
        assert row is not None
    return row


def included_seats(plan_name: str, purchased: int | None) -> int | None:
    """The seats an organization has: those bought with the subscription, on every plan (prices are per seat),
    else the plan's (None: unlimited)."""
    return purchased if purchased is not None else plan(plan_name).seats


def seats_refused(plan_name: str, seats: int) -> Forbidden:
    """403 naming the seat limit (invitations, acceptance, `obeya user create`)."""
    return Forbidden(f"the {plan_name} plan includes {seats} seats, all in use", data={"limit": "seats", "max": seats})


async def check_seat_to_join(conn: asyncpg.Connection, org_id: str) -> None:
    """A member joining (an accepted invitation, `obeya user create`) needs a seat free among the active members,
    so an invitation sent before a downgrade cannot push the organization over its seats (pending invitations
    hold seats only against new invitations). Called in the transaction that adds the member."""
    await repo.hold_seats(conn, org_id)
    row = await repo.joining_seats(conn, org_id)
    if row is None:
        return
    seats = included_seats(row["plan"], row["seats"])
    if seats is not None and row["members"] >= seats:
        raise seats_refused(row["plan"], seats)


def features_view(plan_name: str) -> dict[str, Any]:
    rules = plan(plan_name)
    return {"maxBoards": rules.boards, "maxItemsPerBoard": rules.items_per_board,
            "automations": allows(plan_name, "automations"),
            "automationsPerBoard": rules.automations_per_board if allows(plan_name, "automations") else 0,
            "kpis": rules.kpis, "templates": allows(plan_name, "templates"),
            "csvImport": allows(plan_name, "csv_import"), "apiAccess": rules.api_access,
            "sso": allows(plan_name, "sso"), "auditLog": allows(plan_name, "audit_log"),
            "customBranding": allows(plan_name, "custom_branding"), "webhooks": allows(plan_name, "webhooks"),
            "advancedPermissions": allows(plan_name, "advanced_permissions")}


def subscription_view(row: asyncpg.Record, used: int) -> dict[str, Any]:
    included = included_seats(row["plan"], row["seats"])
    return {"id": row["id"], "plan": row["plan"], "status": row["status"], "interval": row["billing_interval"],
            "currentPeriodStart": iso(row["current_period_start"]),
            "currentPeriodEnd": iso(row["current_period_end"]), "cancelAtPeriodEnd": row["cancel_at_period_end"],
            "seats": {"included": included, "used": used,
                      "available": None if included is None else max(included - used, 0)},
            "features": features_view(row["plan"]), "stripeCustomerId": row["processor_customer_id"],
            "stripeSubscriptionId": row["processor_subscription_id"]}


@procedures.implement(spec.GET_SUBSCRIPTION)
async def get_subscription(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    async with node.pool.acquire() as conn:
        row = await current(conn, node, caller.org_id)
        used = await repo.seats_used(conn, caller.org_id, node.clock.now())
    return {"subscription": subscription_view(row, used)}


@procedures.implement(spec.CHECK_FEATURE_GATE)
async def check_feature_gate(node: Node, caller: Caller, data: spec.FeatureGateInput) -> dict[str, Any]:
    """Read from the database, not the cached organization: right after a plan change this answers the new plan
    on every node, as the gates do once the organization change has reached them."""
    feature = data.feature
    limit: int | None = None
    usage: int | None = None
    async with node.pool.acquire() as conn:
        row = await current(conn, node, caller.org_id)
        plan_name: str = row["plan"]
        rules = plan(plan_name)
        if feature == "seats":
            limit = included_seats(plan_name, row["seats"])
            usage = await repo.seats_used(conn, caller.org_id, node.clock.now())
            allowed = limit is None or usage < limit
        elif feature == "boards":
            limit = rules.boards
            usage = await repo.board_count(conn, caller.org_id)
            allowed = limit is None or usage < limit
        else:
            allowed = allows(plan_name, feature)
            if feature == "automations" and rules.automations_per_board is not None:
                limit = rules.automations_per_board if allowed else 0
                usage = await repo.busiest_board_automations(conn, caller.org_id)
    return {"feature": feature, "allowed": allowed, "plan": plan_name, "limit": limit, "usage": usage}


@procedures.implement(spec.CREATE_CHECKOUT)
async def create_checkout_session(node: Node, caller: Caller, data: spec.CheckoutInput) -> dict[str, Any]:
    assert caller.organization is not None
    row = await current(node.pool, node, caller.org_id)
    seats = data.seats
    if seats is None and plan(data.plan).seats is None:
        # Prices are per seat and this plan names no seats: it is bought for the seats in use now (at least one),
        # not for one seat with every member on top.
        seats = max(await repo.seats_used(node.pool, caller.org_id, node.clock.now()), 1)
    # The processor is asked outside any transaction: no connection is held while it answers.
    made = await node.plugins[PAYMENT_PROCESSOR].checkout(CheckoutRequest(
        organization_id=caller.org_id, base_url=node.base_url(caller.organization.slug), plan=data.plan,
        interval=data.interval, seats=seats, success_url=data.successUrl, cancel_url=data.cancelUrl,
        customer_id=row["processor_customer_id"], email=caller.user_email,
        subscription_id=row["processor_subscription_id"] if row["status"] != "canceled" else None), node.clock.now())
    async with node.write(caller) as uow:
        await repo.insert_session(uow.conn, id=made.id, organization_id=caller.org_id, kind="checkout",
                                  plan=data.plan, billing_interval=data.interval, seats=seats,
                                  success_url=data.successUrl, cancel_url=data.cancelUrl, created_by=caller.uid,
                                  created_at=uow.now, expires_at=made.expires_at)
        await uow.activity("subscription", caller.org_id, "billing.checkout_created",
                           {"sessionId": made.id, "plan": data.plan, "interval": data.interval,
                            "seats": seats, "processor": node.plugins[PAYMENT_PROCESSOR].name})
    return {"checkoutUrl": made.url, "sessionId": made.id, "expiresAt": iso(made.expires_at)}


@procedures.implement(spec.CREATE_PORTAL)
async def create_portal_session(node: Node, caller: Caller, data: spec.PortalInput) -> dict[str, Any]:
    assert caller.organization is not None
    row = await current(node.pool, node, caller.org_id)
    made = await node.plugins[PAYMENT_PROCESSOR].portal(PortalRequest(
        organization_id=caller.org_id, base_url=node.base_url(caller.organization.slug), return_url=data.returnUrl,
        customer_id=row["processor_customer_id"]), node.clock.now())
    async with node.write(caller) as uow:
        await repo.insert_session(uow.conn, id=made.id, organization_id=caller.org_id, kind="portal",
                                  return_url=data.returnUrl, created_by=caller.uid, created_at=uow.now,
                                  expires_at=made.expires_at)
    return {"portalUrl": made.url, "sessionId": made.id, "expiresAt": iso(made.expires_at)}


async def processor_session(node: Node, session_id: str) -> Mapping[str, Any] | None:
    """A checkout or portal session by its id, with its organization's slug (the sandbox's pages)."""
    return await repo.session(node.pool, session_id)


async def subscription_of(node: Node, org_id: str) -> Mapping[str, Any]:
    """The organization's subscription, created from its plan when it has none yet (the sandbox's portal)."""
    row: Mapping[str, Any] = await current(node.pool, node, org_id)
    return row
