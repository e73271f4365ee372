"""The Stripe processor (`OBEYA_BILLING=stripe`): Checkout Sessions in subscription mode, Customer Portal
sessions, and the webhook signature check, all through the official `stripe` SDK and its asynchronous client on
aiohttp.

This module imports `stripe` at its top and is imported only at start-up (server/app.py) when the processor is
Stripe: importing the SDK takes about half a second, which must never happen inside a request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from datetime import UTC, datetime
from typing import TypeVar

import stripe
import structlog
from stripe.params.checkout import SessionCreateParams

from actors.tenancy.billing_processors import (
    SIGNATURE_TOLERANCE,
    CheckoutRequest,
    PortalRequest,
    ProcessorSession,
    refused,
)
from protocol.errors import BadRequest, Conflict, FieldError, ServiceUnavailable, ValidationFailed
from protocol.plans import plan as plan_rules

log = structlog.get_logger("obeya.billing")
T = TypeVar("T")


# Stripe's answers that no retry changes. 401/403 (our key) and 429/5xx (Stripe's side) stay 503.
_REFUSALS = frozenset({400, 402, 404, 409})

class StripeProcessor:
    name = "stripe"

    def __init__(self, *, secret_key: str, webhook_secret: str, prices: Mapping[str, Mapping[str, str]],
                 api_base: str | None = None, timeout: float = 10.0) -> None:
        self.webhook_secret: str | None = webhook_secret
        self.prices = prices
        # price id -> (plan, interval): how a subscription's price says which plan it is.
        self.plans_by_price = {price: (plan_name, interval) for plan_name, per_interval in prices.items()
                               for interval, price in per_interval.items()}
        self._http = stripe.AIOHTTPClient(timeout=timeout)
        # No retries of ours: a request that fails is answered 503 and the caller asks again.
        self._client = stripe.StripeClient(secret_key, http_client=self._http, max_network_retries=0,
                                           base_addresses={"api": api_base} if api_base else None)

    def price(self, plan_name: str, interval: str) -> str:
        per_interval = self.prices.get(plan_name)
        if per_interval is None:
            raise ValidationFailed.of("plan", f"the {plan_name} plan is not offered")
        price = per_interval.get(interval)
        if price is None:
            raise ValidationFailed.of("interval", f"the {plan_name} plan is not offered {interval}")
        return price

    async def checkout(self, request: CheckoutRequest, now: datetime) -> ProcessorSession:
        if request.subscription_id is not None:
            # A checkout makes a new subscription beside the one being paid for: the plan and seats of a live
            # subscription are changed in Stripe's portal, which updates that subscription.
            raise Conflict("the organization already has a Stripe subscription: change its plan or seats in the "
                           "billing portal (billing.createPortalSession)")
        seats = request.seats if request.seats is not None else plan_rules(request.plan).seats
        metadata = {"organizationId": request.organization_id, "plan": request.plan, "interval": request.interval}
        params: SessionCreateParams = {
            "mode": "subscription", "client_reference_id": request.organization_id,
            "line_items": [{"price": self.price(request.plan, request.interval), "quantity": seats or 1}],
            "success_url": request.success_url, "cancel_url": request.cancel_url, "metadata": metadata,
            "subscription_data": {"metadata": {"organizationId": request.organization_id}}}
        if request.customer_id is not None:
            params["customer"] = request.customer_id
        elif request.email is not None:
            params["customer_email"] = request.email
        session = await self._call(self._client.v1.checkout.sessions.create_async(params))
        assert session.url is not None
        return ProcessorSession(session.id, session.url, datetime.fromtimestamp(session.expires_at, UTC))

    async def portal(self, request: PortalRequest, now: datetime) -> ProcessorSession:
        if request.customer_id is None:
            raise Conflict("the organization has no Stripe customer yet: buy a plan through a checkout first")
        session = await self._call(self._client.v1.billing_portal.sessions.create_async(
            {"customer": request.customer_id, "return_url": request.return_url}))
        # A portal session has no expiry of its own in Stripe's answer: it is meant to be opened at once.
        return ProcessorSession(session.id, session.url, now + SIGNATURE_TOLERANCE)

    async def _call(self, request: Awaitable[T]) -> T:
        try:
            return await request
        except stripe.StripeError as error:
            # The message may name the request's values, never the key; the status says what failed.
            log.warning("stripe_request_failed", status=error.http_status, code=error.code)
            if error.http_status in _REFUSALS:  # a retry would be refused the same way (a customer deleted in
                # Stripe, a price archived): say what Stripe said rather than "try again"
                raise Conflict(f"the payment processor refused the request ({error.code or error.http_status}): "
                               f"{error.user_message or 'see the billing settings in Stripe'}") from None
            raise ServiceUnavailable("the payment processor did not accept the request; try again") from None

    def verify(self, payload: bytes, header: str | None, secret: str, now: datetime) -> None:
        # Stripe's own check, on the system's clock (the SDK's): the signature, then the tolerance. The SDK decodes
        # the body as UTF-8 first, so a body that is not is refused here rather than failing inside it.
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("the body is not UTF-8", details=[FieldError("body", "not UTF-8")]) from None
        try:
            stripe.WebhookSignature.verify_header(payload, header, secret,
                                                  tolerance=int(SIGNATURE_TOLERANCE.total_seconds()))
        except stripe.SignatureVerificationError as error:
            raise refused("signature timestamp outside the tolerance" if "tolerance" in str(error)
                          else "invalid signature") from None

    def plan_of_price(self, price_id: str) -> tuple[str, str] | None:
        return self.plans_by_price.get(price_id)

    async def close(self) -> None:
        await self._http.close_async()  # type: ignore[no-untyped-call]
