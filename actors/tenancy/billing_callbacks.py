"""The payment processor's signed callback (`POST /api/v1/billing/webhook`): where a plan actually changes.

Signatures follow Stripe's scheme: the `Stripe-Signature` header `t=<unix time>,v1=<hex HMAC-SHA256 of
"<t>.<raw body>">` under the callback secret, checked by the node's processor (actors/tenancy/billing_processors.py:
the sandbox's own check on the node's clock; Stripe's SDK with `OBEYA_STRIPE_WEBHOOK_SECRET`). The timestamp must be
within the tolerance, so a captured callback cannot be replayed later. A callback is applied once: its event id
is recorded in the transaction that applies it, and a repeat is answered without a change. An event older (by
its `created` time) than the newest one applied to the subscription is recorded and not applied, so callbacks
arriving out of order never undo newer state.

The sandbox processor signs its own callbacks with the same secret (web/routes_billing.py), so its pages complete
through exactly this path. Its secret is derived from `OBEYA_SECRET_KEY` when set, else kept in the database's
`secret_keys` table, shared by every node.

Events: `checkout.session.completed` (the session's plan, interval and seats; the processor's customer and
subscription ids; a session paid by a bank debit still under way, `payment_status: unpaid`, keeps only the ids and
waits for `checkout.session.async_payment_succeeded`, which applies it, or `async_payment_failed`, which closes it
and leaves the plan), `customer.subscription.updated` (plan by price, seats = quantity, status, period,
cancellation at period end; `paused`, whose subscription makes no invoices, falls back to free as `past_due` until
it resumes; `.paused` and `.resumed` are read the same way), `customer.subscription.deleted` (back to free,
canceled), `invoice.payment_failed` (past due). A plan change (`change_plan`, also the period-end sweeper's) is
written to `organizations.plan`, where every gate reads it (the feature gates of actors/kernel/authorization.py,
boards, automations per board, items per board, the seat checks, the rate limit), and announced with
`OrganizationChanged`, which drops the cached organization on every node at once.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

import asyncpg
import msgspec

from actors.identity.callers import forget_organization
from actors.kernel.node import Node
from actors.kernel.server_secret import secret_material
from actors.kernel.write import UnitOfWork
from actors.tenancy.billing import add_interval, current
from actors.tenancy.billing_processors import PAYMENT_PROCESSOR, SIGNATURE_HEADER, sign
from protocol.errors import BadRequest, FieldError
from protocol.ids import Prefix, new_id
from storage import billing as repo

__all__ = ["SIGNATURE_HEADER", "callback_secret", "change_plan", "receive", "sandbox_event", "sign"]

_KEY_NAME = "billing_callbacks"

Text = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
# A subscription's quantity (its seats); 0, which Stripe allows, is read as "no seats given" (see the handler).
Count = Annotated[int, msgspec.Meta(ge=0, le=100_000)]
# A unix time a datetime can hold (to the end of year 9999): a larger one is 400 naming its field, not a 500.
UnixTime = Annotated[int, msgspec.Meta(ge=0, le=253_402_300_799)]
# Stripe's subscription statuses -> ours; `incomplete` (the first payment not made yet) changes nothing.
STATUSES = {"active": "active", "trialing": "active", "past_due": "past_due", "unpaid": "past_due",
            "canceled": "canceled", "incomplete_expired": "canceled"}


class Price(msgspec.Struct):
    id: str = ""


class SubscriptionItem(msgspec.Struct):
    price: Price | None = None
    quantity: Count | None = None
    # Where Stripe's API versions since 2025-03-31 put the period; older ones put it on the subscription.
    current_period_start: UnixTime | None = None
    current_period_end: UnixTime | None = None


class Items(msgspec.Struct):
    data: list[SubscriptionItem] = msgspec.field(default_factory=list)


class SubscriptionDetails(msgspec.Struct):
    subscription: str | None = None


class InvoiceParent(msgspec.Struct):
    subscription_details: SubscriptionDetails | None = None


class EventObject(msgspec.Struct):
    """The fields read from a checkout session, a subscription or an invoice; the others are ignored."""
    id: Text
    object: str = ""
    client_reference_id: str | None = None  # checkout.session: the organization
    customer: str | None = None
    subscription: str | None = None  # checkout.session; invoice (API versions before 2025-03-31)
    status: str | None = None
    payment_status: str | None = None  # checkout.session: `unpaid` while a bank debit is still under way
    quantity: Count | None = None  # subscription: seats
    cancel_at_period_end: bool | None = None
    current_period_start: UnixTime | None = None
    current_period_end: UnixTime | None = None
    items: Items | None = None
    parent: InvoiceParent | None = None  # invoice (API versions since 2025-03-31)
    metadata: dict[str, str] = msgspec.field(default_factory=dict)


class EventData(msgspec.Struct):
    object: EventObject


class Envelope(msgspec.Struct):
    """What every event is read for: its id (applied once), its type and when it was created."""
    id: Text
    type: Text
    created: UnixTime | None = None  # unix time; absent: when it is received


class Event(Envelope, kw_only=True):
    """An event of a type this server handles, with the object it is about."""
    data: EventData


async def callback_secret(node: Node) -> str:
    """The secret callbacks are signed with: Stripe's webhook secret, or the sandbox's own (`whsec_` too)."""
    own = node.plugins[PAYMENT_PROCESSOR].webhook_secret
    if own is not None:
        return own
    material = await secret_material(node.pool, node.settings.secret_key, _KEY_NAME)
    if node.settings.secret_key is not None:  # the stored key is random already; OBEYA_SECRET_KEY is shared by purposes
        material = hmac.new(material, b"obeya billing callbacks", hashlib.sha256).digest()
    return "whsec_" + material.hex()


async def verify(node: Node, payload: bytes, header: str | None) -> Envelope:
    """The event of a correctly signed, recent callback; 400 naming the header or the body's field otherwise. Only
    the types handled are read whole: a signed event of another type that the processor sends is acknowledged
    rather than refused (a refusal would be retried for days)."""
    node.plugins[PAYMENT_PROCESSOR].verify(payload, header, await callback_secret(node), node.clock.now())
    try:
        envelope = msgspec.json.decode(payload, type=Envelope)
        return msgspec.json.decode(payload, type=Event) if envelope.type in _HANDLERS else envelope
    except msgspec.ValidationError as error:
        field = str(error).rsplit("at `$.", 1)[-1].rstrip("`") if "at `$." in str(error) else "body"
        raise BadRequest(f"invalid event: {error}", details=[FieldError(field, str(error))]) from None
    except msgspec.DecodeError:
        raise BadRequest("the body is not JSON", details=[FieldError("body", "not JSON")]) from None


async def receive(node: Node, payload: bytes, header: str | None) -> dict[str, Any]:
    """Verify and apply one callback; repeated ones are answered `duplicate` without a second change."""
    event = await verify(node, payload, header)
    handled = await _apply(node, event)
    return {"received": True, "id": event.id, **handled}


async def change_plan(uow: UnitOfWork, org_id: str, new_plan: str, now: datetime, reason: dict[str, Any],
                      **subscription: Any) -> str:
    """The one way a plan changes (callbacks and the period-end sweeper): the organization's plan, the
    subscription's fields, an activity entry. The caller drops the cached organization after the commit
    (`forget_organization` with the slug returned) so gates, rate limits and seats follow on every node."""
    row = await repo.subscription(uow.conn, org_id)
    before = row["plan"] if row is not None else None
    slug = await repo.set_plan(uow.conn, org_id, new_plan, now)
    if subscription:
        await repo.update_subscription(uow.conn, org_id, now, **subscription)
    await uow.activity("subscription", org_id, "billing.plan_changed", {"old": before, "new": new_plan, **reason},
                       org_id=org_id)
    return slug


class _Outcome(msgspec.Struct):
    applied: bool = False
    stale: bool = False
    changed_slug: str | None = None


Handler = Callable[[Node, UnitOfWork, Event, datetime], Awaitable[_Outcome]]


async def _apply(node: Node, event: Envelope) -> dict[str, Any]:
    now = node.clock.now()
    # Whole seconds, as the processor's `created`: an event without one is as new as one created this second.
    at = datetime.fromtimestamp(event.created, UTC) if event.created is not None else now.replace(microsecond=0)
    async with node.write(None) as uow:
        if not await repo.record_event(uow.conn, event.id, None, event.type, now):
            return {"duplicate": True}
        handler = _HANDLERS.get(event.type)
        outcome = await handler(node, uow, event, at) if handler and isinstance(event, Event) else _Outcome()
    if outcome.changed_slug is not None:
        forget_organization(node, outcome.changed_slug)  # gates, rate limits and seats on every node
    reply: dict[str, Any] = {"duplicate": False, "applied": outcome.applied}
    if outcome.stale:
        reply["stale"] = True
    return reply


def _stale(row: asyncpg.Record, at: datetime) -> bool:
    return row["processor_event_at"] is not None and at < row["processor_event_at"]


def _time(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


async def _checkout_completed(node: Node, uow: UnitOfWork, event: Event, at: datetime) -> _Outcome:
    """A checkout paid (`completed`, or `async_payment_succeeded` once a bank debit went through): its plan."""
    found = event.data.object
    conn = uow.conn
    session = await repo.session(conn, found.id, for_update=True)
    if session is None or session["kind"] != "checkout" or session["status"] != "open":
        return _Outcome()
    org_id = session["organization_id"]
    if found.client_reference_id is not None and found.client_reference_id != org_id:
        return _Outcome()
    await current(conn, node, org_id)
    row = await repo.subscription(conn, org_id, for_update=True)
    assert row is not None
    ids: dict[str, Any] = {}
    if found.customer is not None:
        ids["processor_customer_id"] = found.customer
    if found.subscription is not None:
        ids["processor_subscription_id"] = found.subscription
    if found.payment_status == "unpaid":  # a bank debit under way: the session waits for its outcome
        if ids:
            await repo.update_subscription(conn, org_id, uow.now, **ids)
        return _Outcome()
    await repo.complete_session(conn, found.id)
    if _stale(row, at):  # the subscription's later events already said more: keep only the ids
        if ids:
            await repo.update_subscription(conn, org_id, uow.now, **ids)
        return _Outcome(stale=True)
    slug = await change_plan(uow, org_id, session["plan"], uow.now,
                             {"interval": session["billing_interval"], "seats": session["seats"],
                              "eventId": event.id},
                             status="active", billing_interval=session["billing_interval"], seats=session["seats"],
                             current_period_start=uow.now,
                             current_period_end=add_interval(uow.now, session["billing_interval"]),
                             cancel_at_period_end=False, processor_event_at=at, **ids)
    return _Outcome(applied=True, changed_slug=slug)


async def _checkout_payment_failed(node: Node, uow: UnitOfWork, event: Event, at: datetime) -> _Outcome:
    """A checkout's bank debit failed: the session closes and the plan stays as it was."""
    found = event.data.object
    session = await repo.session(uow.conn, found.id, for_update=True)
    if session is None or session["kind"] != "checkout" or session["status"] != "open":
        return _Outcome()
    org_id = session["organization_id"]
    await repo.complete_session(uow.conn, found.id)
    await uow.activity("subscription", org_id, "billing.checkout_payment_failed",
                       {"sessionId": found.id, "plan": session["plan"], "eventId": event.id}, org_id=org_id)
    return _Outcome(applied=True)


async def _subscription_of(conn: asyncpg.Connection, found: EventObject) -> asyncpg.Record | None:
    """The subscription a processor's subscription event is about: by the processor's subscription id, else by
    the organization in its metadata (our own id for the sandbox; adopting the processor's id when an update
    arrives before the checkout's completion)."""
    row = await repo.subscription_by_processor(conn, found.id)
    if row is not None:
        return row
    org_id = found.metadata.get("organizationId", "")
    row = await repo.subscription(conn, org_id[:64], for_update=True) if org_id else None
    if row is None:
        return None
    if found.id == row["id"] or found.id == row["processor_subscription_id"]:
        return row
    return row if row["processor_subscription_id"] is None and found.object == "subscription" \
        and found.customer is not None else None


async def _subscription_updated(node: Node, uow: UnitOfWork, event: Event, at: datetime) -> _Outcome:
    found = event.data.object
    conn = uow.conn
    row = await _subscription_of(conn, found)
    if row is None:
        return _Outcome()
    if _stale(row, at):
        return _Outcome(stale=True)
    if STATUSES.get(found.status or "") == "canceled":  # e.g. `incomplete_expired`: the first payment never came
        return await _to_free(uow, row, event, at)
    if found.status == "paused":
        return await _paused(uow, row, event, at)
    org_id = row["organization_id"]
    item = found.items.data[0] if found.items is not None and found.items.data else SubscriptionItem()
    fields: dict[str, Any] = {}
    seats = found.quantity or item.quantity
    if seats:
        fields["seats"] = seats
    if found.cancel_at_period_end is not None:
        fields["cancel_at_period_end"] = found.cancel_at_period_end
    if found.status in STATUSES:
        fields["status"] = STATUSES[found.status]
    start = _time(found.current_period_start or item.current_period_start)
    end = _time(found.current_period_end or item.current_period_end)
    if start is not None and end is not None:
        fields.update(current_period_start=start, current_period_end=end)
    if found.id != row["id"] and row["processor_subscription_id"] is None:
        fields["processor_subscription_id"] = found.id
    if found.customer is not None and row["processor_customer_id"] is None:
        fields["processor_customer_id"] = found.customer
    priced = node.plugins[PAYMENT_PROCESSOR].plan_of_price(item.price.id) if item.price is not None else None
    if not fields and (priced is None or priced[0] == row["plan"]):
        return _Outcome()
    fields["processor_event_at"] = at
    slug: str | None = None
    if priced is not None and priced[0] != row["plan"]:
        fields["billing_interval"] = priced[1]
        slug = await change_plan(uow, org_id, priced[0], uow.now,
                                 {"interval": priced[1], "seats": seats, "eventId": event.id}, **fields)
    else:
        if priced is not None:
            fields["billing_interval"] = priced[1]
        await repo.update_subscription(conn, org_id, uow.now, **fields)
        await uow.activity("subscription", org_id, "billing.subscription_updated",
                           {"seats": seats, "cancelAtPeriodEnd": found.cancel_at_period_end,
                            "status": fields.get("status"), "eventId": event.id}, org_id=org_id)
    return _Outcome(applied=True, changed_slug=slug)


async def _subscription_deleted(node: Node, uow: UnitOfWork, event: Event, at: datetime) -> _Outcome:
    row = await _subscription_of(uow.conn, event.data.object)
    if row is None:
        return _Outcome()
    if _stale(row, at):
        return _Outcome(stale=True)
    return await _to_free(uow, row, event, at)


async def _to_free(uow: UnitOfWork, row: asyncpg.Record, event: Event, at: datetime) -> _Outcome:
    """A subscription that ended (deleted, or updated to a canceled status) is free: its seats, nothing deleted
    (creates over the free limits are refused from now on)."""
    slug = await change_plan(uow, row["organization_id"], "free", uow.now, {"eventId": event.id, "canceled": True},
                             status="canceled", seats=None, cancel_at_period_end=False, processor_event_at=at)
    return _Outcome(applied=True, changed_slug=slug)


async def _paused(uow: UnitOfWork, row: asyncpg.Record, event: Event, at: datetime) -> _Outcome:
    """A paused subscription (its trial ended without a payment method) makes no invoices: nobody pays, so the plan
    falls back to free, and `past_due` says the subscription awaits a payment method in the portal (a new checkout
    would make a second subscription beside it). Resumed, its update names the price and the plan comes back."""
    if row["plan"] == "free" and row["status"] == "past_due":  # already paused: `.paused` and `.updated` both say so
        await repo.update_subscription(uow.conn, row["organization_id"], uow.now, processor_event_at=at)
        return _Outcome()
    slug = await change_plan(uow, row["organization_id"], "free", uow.now, {"eventId": event.id, "paused": True},
                             status="past_due", seats=None, processor_event_at=at)
    return _Outcome(applied=True, changed_slug=slug)


async def _payment_failed(node: Node, uow: UnitOfWork, event: Event, at: datetime) -> _Outcome:
    found = event.data.object
    subscription_id = found.subscription
    if subscription_id is None and found.parent is not None and found.parent.subscription_details is not None:
        subscription_id = found.parent.subscription_details.subscription
    row = await repo.subscription_by_processor(uow.conn, subscription_id) if subscription_id else None
    if row is None and found.customer is not None:
        row = await repo.subscription_by_processor(uow.conn, customer_id=found.customer)
    if row is None:
        return _Outcome()
    if _stale(row, at):
        return _Outcome(stale=True)
    await repo.update_subscription(uow.conn, row["organization_id"], uow.now, status="past_due",
                                   processor_event_at=at)
    await uow.activity("subscription", row["organization_id"], "billing.payment_failed",
                       {"invoiceId": found.id, "eventId": event.id}, org_id=row["organization_id"])
    return _Outcome(applied=True)


_HANDLERS: dict[str, Handler] = {
    "checkout.session.completed": _checkout_completed,
    "checkout.session.async_payment_succeeded": _checkout_completed,
    "checkout.session.async_payment_failed": _checkout_payment_failed,
    "customer.subscription.paused": _subscription_updated,
    "customer.subscription.resumed": _subscription_updated,
    "customer.subscription.updated": _subscription_updated,
    "customer.subscription.deleted": _subscription_deleted,
    "invoice.payment_failed": _payment_failed,
}


def sandbox_event(event_type: str, event_object: dict[str, Any], at: datetime) -> bytes:
    """The body of a callback the sandbox processor sends."""
    return msgspec.json.encode({"id": new_id(Prefix.EVENT), "type": event_type, "created": int(at.timestamp()),
                                "data": {"object": event_object}})

