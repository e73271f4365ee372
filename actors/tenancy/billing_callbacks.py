"""The payment processor's signed callback (`POST /api/v1/billing/webhook`): where a plan actually changes.

Signatures follow Stripe's scheme: the `Stripe-Signature` header `t=<unix time>,v1=<hex HMAC-SHA256 of
"<t>.<raw body>">` under the callback secret, compared in constant time; the timestamp must be within
SIGNATURE_TOLERANCE of the node's clock, so a captured callback cannot be replayed later. The check is written
here rather than through the `stripe` package: importing it takes half a second and grows every node's heap
(the event-loop guard of the tests saw the pauses); tests/unit/billing checks, in a separate process, that the
`stripe` package accepts these signatures and refuses altered ones. A callback is applied
once: its event id is recorded in the transaction that applies it, and a repeat is answered without a change.

The sandbox processor signs its own callbacks with the same secret (web/routes_billing.py), so its pages complete
through exactly this path. The secret is derived from `OBEYA_SECRET_KEY` when set, else kept in the database's
`secret_keys` table, shared by every node.

A plan change is written to `organizations.plan`, where every gate reads it (the feature gates of
actors/kernel/authorization.py, boards, automations per board, the seat check, the rate limit), and announced
with `OrganizationChanged`, which drops the cached organization on every node at once.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Annotated, Any

import msgspec

from actors.identity.callers import forget_organization
from actors.kernel.node import Node
from actors.tenancy.billing import add_interval, current
from protocol.errors import BadRequest, FieldError
from protocol.ids import new_id
from storage import billing as repo
from storage import mail

SIGNATURE_HEADER = "Stripe-Signature"
SIGNATURE_TOLERANCE = timedelta(minutes=5)
_KEY_NAME = "billing_callbacks"

Text = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]


class EventObject(msgspec.Struct):
    id: Text
    object: str = ""
    client_reference_id: str | None = None  # checkout.session: the organization
    quantity: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None  # subscription: seats
    cancel_at_period_end: bool | None = None
    metadata: dict[str, str] = msgspec.field(default_factory=dict)


class EventData(msgspec.Struct):
    object: EventObject


class Event(msgspec.Struct):
    id: Text
    type: Text
    data: EventData


async def callback_secret(node: Node) -> str:
    """The secret callbacks are signed with (`whsec_`, as the processor's own)."""
    if node.secret_key is not None:
        material = hmac.new(node.secret_key.encode(), b"obeya billing callbacks", hashlib.sha256).digest()
    else:
        material = await mail.secret_key(node.pool, _KEY_NAME, secrets.token_bytes(32))
    return "whsec_" + material.hex()


def sign(payload: bytes, secret: str, at: datetime) -> str:
    """A `Stripe-Signature` header value for `payload` signed at `at`."""
    timestamp = int(at.timestamp())
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _refused(message: str) -> BadRequest:
    return BadRequest(message, details=[FieldError(SIGNATURE_HEADER, message)])


async def verify(node: Node, payload: bytes, header: str | None) -> Event:
    """The event of a correctly signed, recent callback; 400 naming the header or the body's field otherwise."""
    if not header:
        raise _refused("missing signature")
    pairs = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
    stamps = [value for key, value in pairs if key == "t"]
    signatures = [value for key, value in pairs if key == "v1"]
    if len(stamps) != 1 or not stamps[0].isdigit() or not signatures:
        raise _refused("invalid signature")
    secret = await callback_secret(node)
    expected = hmac.new(secret.encode(), f"{stamps[0]}.".encode() + payload, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, signature) for signature in signatures):
        raise _refused("invalid signature")
    if abs(node.clock.now().timestamp() - int(stamps[0])) > SIGNATURE_TOLERANCE.total_seconds():
        raise _refused("signature timestamp outside the tolerance")
    try:
        return msgspec.json.decode(payload, type=Event)
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


async def _apply(node: Node, event: Event) -> dict[str, Any]:
    now = node.clock.now()
    changed_slug: str | None = None
    async with node.write(None) as uow:
        conn = uow.conn
        if not await repo.record_event(conn, event.id, None, event.type, now):
            return {"duplicate": True}
        found = event.data.object
        result: dict[str, Any] = {"duplicate": False, "applied": False}
        if event.type == "checkout.session.completed":
            session = await repo.session(conn, found.id, for_update=True)
            if session is None or session["kind"] != "checkout" or session["status"] != "open":
                return result
            org_id = session["organization_id"]
            await current(conn, node, org_id)
            before = session["current_plan"]
            changed_slug = await repo.set_plan(conn, org_id, session["plan"], now)
            await repo.update_subscription(conn, org_id, now, status="active",
                                           billing_interval=session["billing_interval"], seats=session["seats"],
                                           current_period_start=now,
                                           current_period_end=add_interval(now, session["billing_interval"]),
                                           cancel_at_period_end=False)
            await repo.complete_session(conn, found.id)
            await uow.activity("subscription", org_id, "billing.plan_changed",
                               {"old": before, "new": session["plan"], "interval": session["billing_interval"],
                                "seats": session["seats"], "eventId": event.id}, org_id=org_id)
            result = {"duplicate": False, "applied": True}
        elif event.type == "customer.subscription.updated":
            org_id = found.metadata.get("organizationId", "")
            row = await repo.subscription(conn, org_id, for_update=True) if org_id else None
            if row is None or row["id"] != found.id:
                return result
            fields: dict[str, Any] = {}
            if found.quantity is not None:
                fields["seats"] = found.quantity
            if found.cancel_at_period_end is not None:
                fields["cancel_at_period_end"] = found.cancel_at_period_end
            if fields:
                await repo.update_subscription(conn, org_id, now, **fields)
                await uow.activity("subscription", org_id, "billing.subscription_updated",
                                   {"seats": found.quantity, "cancelAtPeriodEnd": found.cancel_at_period_end,
                                    "eventId": event.id}, org_id=org_id)
            result = {"duplicate": False, "applied": bool(fields)}
    if changed_slug is not None:
        forget_organization(node, changed_slug)  # gates, rate limits and seats on every node
    return result


def sandbox_event(event_type: str, event_object: dict[str, Any]) -> bytes:
    """The body of a callback the sandbox processor sends."""
    return msgspec.json.encode({"id": new_id("evt"), "type": event_type, "data": {"object": event_object}})
