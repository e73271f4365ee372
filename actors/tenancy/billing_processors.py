"""The payment processor interface (docs/billing.md): create a checkout session, create a portal session,
verify a signed callback. Two implementations: the sandbox here (the default; its pages are web/routes_billing.py)
and Stripe (actors/tenancy/stripe_processor.py, built at start-up only when `OBEYA_BILLING=stripe`). The node
carries the one in use (`node.plugins[PAYMENT_PROCESSOR]`, plugged by server/node_services.py).

What a processor's callback then says is applied by actors/tenancy/billing_callbacks.py, the same for both.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from actors.kernel.plugins import Slot
from protocol.errors import BadRequest, FieldError
from protocol.ids import Prefix, new_id

SIGNATURE_HEADER = "Stripe-Signature"
SIGNATURE_TOLERANCE = timedelta(minutes=5)
# A checkout URL lives 24 hours; the sandbox's portal session as long.
SESSION_LIFETIME = timedelta(hours=24)


@dataclass(frozen=True)
class CheckoutRequest:
    organization_id: str
    base_url: str  # the organization's host: where the sandbox's pages are
    plan: str
    interval: str
    seats: int | None  # None: the plan's
    success_url: str
    cancel_url: str
    customer_id: str | None  # the processor's customer, once the organization has one
    email: str | None  # who asks, for a processor's new customer
    # The processor's subscription while it is not canceled: a second checkout would bill the organization twice.
    subscription_id: str | None = None


@dataclass(frozen=True)
class PortalRequest:
    organization_id: str
    base_url: str
    return_url: str
    customer_id: str | None


@dataclass(frozen=True)
class ProcessorSession:
    id: str
    url: str
    expires_at: datetime


class Processor(Protocol):
    name: str
    # The secret callbacks are signed with, when the processor has its own (Stripe's); None: the sandbox's,
    # derived by actors/tenancy/billing_callbacks.py.
    webhook_secret: str | None

    async def checkout(self, request: CheckoutRequest, now: datetime) -> ProcessorSession: ...

    async def portal(self, request: PortalRequest, now: datetime) -> ProcessorSession: ...

    def verify(self, payload: bytes, header: str | None, secret: str, now: datetime) -> None:
        """Nothing when `header` signs `payload` recently under `secret`; BadRequest naming the header otherwise."""
        ...

    def plan_of_price(self, price_id: str) -> tuple[str, str] | None:
        """The (plan, interval) a processor's price id stands for; None when it is not one of the plans'."""
        ...

    async def close(self) -> None: ...


PAYMENT_PROCESSOR: Slot[Processor] = Slot("payment processor")


def refused(message: str) -> BadRequest:
    return BadRequest(message, details=[FieldError(SIGNATURE_HEADER, message)])


def sign(payload: bytes, secret: str, at: datetime) -> str:
    """A `Stripe-Signature` header value for `payload` signed at `at`."""
    timestamp = int(at.timestamp())
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class SandboxProcessor:
    """The sandbox: its checkout and portal are this server's own pages; it signs its callbacks with Stripe's
    scheme (checked against the `stripe` package in tests/unit/billing), verified here on the node's clock."""

    name = "sandbox"
    webhook_secret: str | None = None

    async def checkout(self, request: CheckoutRequest, now: datetime) -> ProcessorSession:
        session_id = new_id(Prefix.CHECKOUT_SESSION)
        return ProcessorSession(session_id, f"{request.base_url}/billing/sandbox/checkout/{session_id}",
                                now + SESSION_LIFETIME)

    async def portal(self, request: PortalRequest, now: datetime) -> ProcessorSession:
        session_id = new_id(Prefix.PORTAL_SESSION)
        return ProcessorSession(session_id, f"{request.base_url}/billing/sandbox/portal/{session_id}",
                                now + SESSION_LIFETIME)

    def verify(self, payload: bytes, header: str | None, secret: str, now: datetime) -> None:
        if not header:
            raise refused("missing signature")
        pairs = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
        stamps = [value for key, value in pairs if key == "t"]
        signatures = [value for key, value in pairs if key == "v1"]
        if len(stamps) != 1 or not stamps[0].isdigit() or not signatures:
            raise refused("invalid signature")
        expected = hmac.new(secret.encode(), f"{stamps[0]}.".encode() + payload, hashlib.sha256).hexdigest()
        if not any(hmac.compare_digest(expected, signature) for signature in signatures):
            raise refused("invalid signature")
        if abs(now.timestamp() - int(stamps[0])) > SIGNATURE_TOLERANCE.total_seconds():
            raise refused("signature timestamp outside the tolerance")

    def plan_of_price(self, price_id: str) -> tuple[str, str] | None:
        return None  # the sandbox's events carry no prices: its checkout sessions name the plan

    async def close(self) -> None:
        return None
