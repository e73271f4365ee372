"""The Stripe processor (OBEYA_BILLING=stripe) against the running server: checkout and portal sessions made by the
official SDK, and Stripe's callbacks signed the way the SDK's own test helpers sign them, through
`POST /api/v1/billing/webhook`.

api.stripe.com cannot be reached from here: the SDK's API base points at a local aiohttp server that records each
request and answers in Stripe's documented response shape (the only stand-in; docs/decisions.md "Real paths and real
processes").
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import stripe
from aiohttp import web

import actors.tenancy.stripe_processor  # noqa: F401  (the SDK is imported at start-up, never inside a request)
from protocol.ids import Prefix, new_id
from tests.conftest import server_settings
from tests.harness import Org, make_org
from web.keys import NODE

WEBHOOK_SECRET = "whsec_" + "5" * 32
PRICES = {"starter": {"monthly": "price_starter_m", "annual": "price_starter_y"},
          "business": {"monthly": "price_business_m", "annual": "price_business_y"},
          "enterprise": {"monthly": "price_enterprise_m"}}


class StripeApi:
    """Stripe's API as far as the checkout and portal sessions go: what the SDK sent, answered in Stripe's shape."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (path, Authorization, form)
        self.url = ""
        self.refusal: tuple[int, dict[str, Any]] | None = None  # the next portal request's error answer

    async def portal(self, request: web.Request) -> web.Response:
        if self.refusal is not None:
            (status, error), self.refusal = self.refusal, None
            return web.json_response({"error": error}, status=status)
        return await self.portal_session(request)

    async def checkout(self, request: web.Request) -> web.Response:
        form = {key: str(value) for key, value in (await request.post()).items()}
        self.requests.append((request.path, request.headers.get("Authorization", ""), form))
        session_id = "cs_test_" + secrets.token_hex(12)
        return web.json_response({
            "id": session_id, "object": "checkout.session", "mode": "subscription", "status": "open",
            "url": f"https://checkout.stripe.com/c/pay/{session_id}", "expires_at": int(time.time()) + 86400,
            "client_reference_id": form.get("client_reference_id"), "customer": form.get("customer"),
            "success_url": form.get("success_url"), "cancel_url": form.get("cancel_url"), "livemode": False,
            "metadata": {key[9:-1]: value for key, value in form.items() if key.startswith("metadata[")}})

    async def portal_session(self, request: web.Request) -> web.Response:
        form = {key: str(value) for key, value in (await request.post()).items()}
        self.requests.append((request.path, request.headers.get("Authorization", ""), form))
        session_id = "bps_" + secrets.token_hex(12)
        return web.json_response({
            "id": session_id, "object": "billing_portal.session", "customer": form["customer"],
            "return_url": form["return_url"], "url": f"https://billing.stripe.com/p/session/{session_id}",
            "created": int(time.time()), "livemode": False})


@pytest.fixture
async def stripe_api() -> AsyncIterator[StripeApi]:
    api = StripeApi()
    app = web.Application()
    app.router.add_post("/v1/checkout/sessions", api.checkout)
    app.router.add_post("/v1/billing_portal/sessions", api.portal)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    api.url = f"http://127.0.0.1:{port}"
    yield api
    await runner.cleanup()


@pytest.fixture
def settings(request: pytest.FixtureRequest, stripe_api: StripeApi) -> Any:
    return server_settings(request, OBEYA_BILLING="stripe", OBEYA_STRIPE_SECRET_KEY="sk_test_obeya",
                           OBEYA_STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET, OBEYA_STRIPE_PRICES=msgspec.json.encode(
                               PRICES).decode(), OBEYA_STRIPE_API_BASE=stripe_api.url)


def stripe_header(payload: bytes, secret: str = WEBHOOK_SECRET, at: int | None = None) -> str:
    """The `Stripe-Signature` header, made as the SDK's tests make it (WebhookSignature's own HMAC)."""
    timestamp = int(time.time()) if at is None else at
    signature = stripe.WebhookSignature._compute_signature(f"{timestamp}.{payload.decode()}", secret)
    return f"t={timestamp},{stripe.WebhookSignature.EXPECTED_SCHEME}={signature}"


def event(event_type: str, data_object: dict[str, Any], created: int | None = None) -> bytes:
    return msgspec.json.encode({"id": "evt_" + secrets.token_hex(12), "object": "event", "api_version": "2025-08-27",
                                "created": int(time.time()) if created is None else created, "livemode": False,
                                "type": event_type, "data": {"object": data_object}})


async def deliver(org: Org, payload: bytes, header: str | None = None) -> tuple[int, Any]:
    """A callback as Stripe sends it: to the endpoint registered on the service's host, no organization in it."""
    headers = {"Host": "localhost", "Content-Type": "application/json",
               "Stripe-Signature": stripe_header(payload) if header is None else header}
    async with org.anonymous.client.post("/api/v1/billing/webhook", data=payload, headers=headers) as response:
        return response.status, await response.json()


async def subscription(org: Org) -> dict[str, Any]:
    reply = await org.owner.query("billing.getSubscription")
    assert reply.status == 200, reply.body
    return dict(reply.data["subscription"])


def sub_id(org: Org) -> str:
    return "sub_" + org.id.removeprefix("org_")  # Stripe's ids are unique: one per organization here too


def cus_id(org: Org) -> str:
    return "cus_" + org.id.removeprefix("org_")


def subscription_object(org: Org, price: str, quantity: int, *, status: str = "active", start: int | None = None,
                        cancel: bool = False) -> dict[str, Any]:
    """A Stripe subscription (API 2025-03-31 and later: the period is on its item)."""
    begin = int(time.time()) if start is None else start
    return {"id": sub_id(org), "object": "subscription", "customer": cus_id(org), "status": status,
            "cancel_at_period_end": cancel, "metadata": {"organizationId": org.id},
            "items": {"object": "list", "data": [{
                "id": "si_1", "object": "subscription_item", "quantity": quantity,
                "price": {"id": price, "object": "price"}, "current_period_start": begin,
                "current_period_end": begin + 30 * 86400}]}}


async def bought(org: Org, stripe_api: StripeApi, plan: str = "starter", interval: str = "annual",
                 seats: int = 12) -> str:
    """A checkout made through the SDK and completed by Stripe's callback; the session id."""
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": plan, "interval": interval, "seats": seats, "successUrl": "https://app.example/billing/done",
        "cancelUrl": "https://app.example/billing"})
    assert reply.status == 200, reply.body
    session_id: str = reply.data["sessionId"]
    completed = event("checkout.session.completed", {
        "id": session_id, "object": "checkout.session", "client_reference_id": org.id, "customer": cus_id(org),
        "subscription": sub_id(org), "mode": "subscription", "payment_status": "paid",
        "metadata": {"organizationId": org.id}})
    assert await deliver(org, completed) == (200, {"received": True, "id": msgspec.json.decode(completed)["id"],
                                                   "duplicate": False, "applied": True})
    return session_id


async def test_a_checkout_is_made_by_the_sdk_and_completed_by_stripes_callback(client: Any,
                                                                               stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    assert (await org.owner.query("webhooks.list")).status == 403
    session_id = await bought(org, stripe_api)
    path, authorization, form = stripe_api.requests[0]
    assert (path, authorization) == ("/v1/checkout/sessions", "Bearer sk_test_obeya")
    assert {key: form[key] for key in ("mode", "line_items[0][price]", "line_items[0][quantity]", "success_url",
                                       "cancel_url", "client_reference_id", "customer_email",
                                       "metadata[organizationId]", "subscription_data[metadata][organizationId]")} == {
        "mode": "subscription", "line_items[0][price]": "price_starter_y", "line_items[0][quantity]": "12",
        "success_url": "https://app.example/billing/done", "cancel_url": "https://app.example/billing",
        "client_reference_id": org.id, "customer_email": f"owner@{org.slug}.test",
        "metadata[organizationId]": org.id, "subscription_data[metadata][organizationId]": org.id}
    assert "customer" not in form
    assert session_id.startswith("cs_test_")

    now = await subscription(org)
    assert (now["plan"], now["interval"], now["status"]) == ("starter", "annual", "active")
    assert (now["stripeCustomerId"], now["stripeSubscriptionId"]) == (cus_id(org), sub_id(org))
    assert now["seats"]["included"] == 12
    assert (await org.owner.query("webhooks.list")).status == 200  # the gate follows at once

    # A live subscription's plan is changed in the portal, which names the customer: a second checkout would
    # make a second subscription, billed beside the first.
    twice = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "business", "interval": "monthly", "successUrl": "https://app.example/ok",
        "cancelUrl": "https://app.example/no"})
    assert twice.status == 409 and "billing portal" in twice.error["message"], twice.body
    assert len(stripe_api.requests) == 1
    portal = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert portal.status == 200, portal.body
    assert portal.data["portalUrl"] == f"https://billing.stripe.com/p/session/{portal.data['sessionId']}"
    assert stripe_api.requests[1] == ("/v1/billing_portal/sessions", "Bearer sk_test_obeya",
                                      {"customer": cus_id(org), "return_url": "https://app.example/settings"})

    # Once that subscription is deleted, a new checkout names the same customer.
    deleted = event("customer.subscription.deleted", subscription_object(org, "price_starter_y", 12, status="canceled"))
    assert (await deliver(org, deleted))[1]["applied"] is True
    again = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "business", "interval": "monthly", "successUrl": "https://app.example/ok",
        "cancelUrl": "https://app.example/no"})
    assert again.status == 200, again.body
    assert again.data["checkoutUrl"] == f"https://checkout.stripe.com/c/pay/{again.data['sessionId']}"
    _, _, second = stripe_api.requests[2]
    assert second["customer"] == cus_id(org) and "customer_email" not in second
    assert (second["line_items[0][price]"], second["line_items[0][quantity]"]) == ("price_business_m", "25")


async def test_a_plan_without_a_price_is_400_and_the_portal_needs_a_customer(client: Any,
                                                                             stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "enterprise", "interval": "annual", "successUrl": "https://a.example/", "cancelUrl": "https://a.example/"})
    assert reply.status == 400 and reply.error["message"] == "interval: the enterprise plan is not offered annual"
    portal = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert portal.status == 409 and "customer" in portal.error["message"]
    assert stripe_api.requests == []
    # The sandbox's pages are not there with Stripe.
    async with org.anonymous.client.get(f"/billing/sandbox/checkout/{new_id(Prefix.CHECKOUT_SESSION)}",
                                        headers={"Host": org.host}) as response:
        assert response.status == 404


async def test_subscription_updates_follow_and_an_older_event_does_not_undo_a_newer(client: Any,
                                                                                    stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    start = int(time.time())
    newer = event("customer.subscription.updated",
                  subscription_object(org, "price_business_m", 30, start=start, cancel=True), created=start + 2)
    assert (await deliver(org, newer))[1]["applied"] is True
    now = await subscription(org)
    assert (now["plan"], now["interval"], now["seats"]["included"], now["cancelAtPeriodEnd"]) == (
        "business", "monthly", 30, True)
    assert now["currentPeriodEnd"].startswith(time.strftime("%Y-%m-%dT", time.gmtime(start + 30 * 86400)))
    gate = await org.owner.query("billing.checkFeatureGate", {"feature": "api_access"})
    assert gate.data["allowed"] is True and gate.data["plan"] == "business"

    older = event("customer.subscription.updated", subscription_object(org, "price_starter_m", 5, start=start),
                  created=start + 1)
    status, body = await deliver(org, older)
    assert (status, body["applied"], body["stale"]) == (200, False, True)
    assert await subscription(org) == now


async def test_a_failed_payment_is_past_due_and_a_deleted_subscription_is_free(client: Any,
                                                                               stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    failed = event("invoice.payment_failed", {
        "id": "in_1", "object": "invoice", "customer": cus_id(org), "status": "open",
        "parent": {"type": "subscription_details", "subscription_details": {"subscription": sub_id(org)}}})
    assert (await deliver(org, failed))[1]["applied"] is True
    assert ((await subscription(org))["status"], (await subscription(org))["plan"]) == ("past_due", "starter")

    deleted = event("customer.subscription.deleted",
                    subscription_object(org, "price_starter_y", 12, status="canceled"))
    assert (await deliver(org, deleted))[1]["applied"] is True
    now = await subscription(org)
    assert (now["plan"], now["status"], now["seats"]["included"]) == ("free", "canceled", 3)
    refused = await org.owner.query("webhooks.list")
    assert refused.status == 403  # the gate closes at once


async def test_bad_and_stale_signatures_are_400_and_a_repeat_is_processed_once(client: Any,
                                                                                stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    update = event("customer.subscription.updated", subscription_object(org, "price_starter_y", 14))
    for header in (stripe_header(update, "whsec_" + "6" * 32), stripe_header(update + b" "),
                   stripe_header(update, at=int(time.time()) - 600), "t=1,v1=00"):
        status, body = await deliver(org, update, header)
        assert status == 400, (header, body)
        assert body["error"]["details"][0]["field"] == "Stripe-Signature"
    assert (await subscription(org))["seats"]["included"] == 12
    stale = await deliver(org, update, stripe_header(update, at=int(time.time()) - 600))
    assert "tolerance" in stale[1]["error"]["message"]

    first = await deliver(org, update)
    repeat = await deliver(org, update)
    assert (first[1]["duplicate"], first[1]["applied"]) == (False, True)
    assert repeat == (200, {"received": True, "id": first[1]["id"], "duplicate": True})
    assert (await subscription(org))["seats"]["included"] == 14
    async with client.server.app[NODE].pool.acquire() as conn:
        applied = await conn.fetchval("SELECT count(*) FROM activity WHERE organization_id = $1"
                                      " AND action = 'billing.subscription_updated'", org.id)
    assert applied == 1


async def test_a_body_that_is_not_utf8_is_400_naming_the_body(client: Any, stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    status, body = await deliver(org, b'{"id": "evt_\xff"}', f"t={int(time.time())},v1={'0' * 64}")
    assert status == 400, body
    assert body["error"]["details"] == [{"field": "body", "message": "not UTF-8"}]


async def test_a_signed_event_with_a_time_out_of_range_is_400_naming_the_field(client: Any,
                                                                              stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    late = event("customer.subscription.updated", subscription_object(org, "price_business_m", 14), created=10**15)
    status, body = await deliver(org, late)
    assert status == 400, body
    assert body["error"]["details"][0]["field"] == "created"
    far = subscription_object(org, "price_business_m", 14)
    far["items"]["data"][0]["current_period_end"] = 10**15
    status, body = await deliver(org, event("customer.subscription.updated", far))
    assert status == 400, body
    assert body["error"]["details"][0]["field"] == "data.object.items.data[0].current_period_end"
    assert (await subscription(org))["plan"] == "starter"  # nothing applied


async def test_a_subscription_updated_to_a_canceled_status_is_free(client: Any, stripe_api: StripeApi) -> None:
    """`incomplete_expired` (the first payment never came) and `canceled` end the subscription: the plan goes back to
    free as with `customer.subscription.deleted`, not a paid plan left open under a canceled status."""
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    expired = event("customer.subscription.updated",
                    subscription_object(org, "price_starter_y", 12, status="incomplete_expired"))
    assert (await deliver(org, expired))[1]["applied"] is True
    now = await subscription(org)
    assert (now["plan"], now["status"], now["seats"]["included"]) == ("free", "canceled", 3)
    assert (await org.owner.query("webhooks.list")).status == 403


async def test_an_unhandled_event_type_is_acknowledged_and_a_quantity_of_0_keeps_the_seats(
        client: Any, stripe_api: StripeApi) -> None:
    """Stripe retries a refused callback for days: a signed event of a type nothing handles (whatever its object
    holds) is acknowledged once, and a subscription whose quantity is 0 changes everything but its seats."""
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    other = event("invoice.paid", {"id": "in_2", "object": "invoice", "quantity": -1, "items": "not a list"})
    status, body = await deliver(org, other)
    assert (status, body["duplicate"], body["applied"]) == (200, False, False)
    assert (await deliver(org, other))[1]["duplicate"] is True

    update = event("customer.subscription.updated", subscription_object(org, "price_business_m", 0))
    status, body = await deliver(org, update)
    assert (status, body["applied"]) == (200, True), body
    now = await subscription(org)
    assert (now["plan"], now["seats"]["included"]) == ("business", 12)


async def test_a_portal_stripe_refuses_is_409_saying_why_and_a_bad_key_is_503(client: Any,
                                                                              stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    stripe_api.refusal = (404, {"type": "invalid_request_error", "code": "resource_missing", "param": "customer",
                                "message": f"No such customer: '{cus_id(org)}'"})
    gone = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert gone.status == 409 and "resource_missing" in gone.error["message"], gone.body
    stripe_api.refusal = (401, {"type": "invalid_request_error", "message": "Invalid API Key provided: sk_test_***"})
    key = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert key.status == 503 and "sk_test" not in str(key.body), key.body
    assert (await org.owner.mutate("billing.createPortalSession",
                                   {"returnUrl": "https://app.example/settings"})).status == 200


async def test_a_paused_subscription_falls_back_to_free_until_it_resumes(client: Any, stripe_api: StripeApi) -> None:
    """A subscription paused (a trial ended without a payment method) makes no invoices: nobody pays, so the paid
    gates close; resumed, the plan and seats come back."""
    org = await make_org(client, plan="free")
    await bought(org, stripe_api)
    start = int(time.time())
    paused = event("customer.subscription.paused",
                   subscription_object(org, "price_starter_y", 12, status="paused", start=start), created=start)
    assert (await deliver(org, paused))[1]["applied"] is True
    now = await subscription(org)
    assert (now["plan"], now["status"], now["seats"]["included"]) == ("free", "past_due", 3)
    assert (await org.owner.query("webhooks.list")).status == 403
    again = event("customer.subscription.updated",
                  subscription_object(org, "price_starter_y", 12, status="paused", start=start), created=start)
    assert (await deliver(org, again))[1]["applied"] is False
    # Paid for in the portal, not by a second subscription beside the paused one.
    second = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "starter", "interval": "annual", "successUrl": "https://a.example/", "cancelUrl": "https://a.example/"})
    assert second.status == 409 and "billing portal" in second.error["message"]

    resumed = event("customer.subscription.resumed", subscription_object(org, "price_starter_y", 12, start=start),
                    created=start + 1)
    assert (await deliver(org, resumed))[1]["applied"] is True
    back = await subscription(org)
    assert (back["plan"], back["status"], back["seats"]["included"]) == ("starter", "active", 12)
    assert (await org.owner.query("webhooks.list")).status == 200


def checkout_object(org: Org, session_id: str, payment_status: str) -> dict[str, Any]:
    return {"id": session_id, "object": "checkout.session", "client_reference_id": org.id, "customer": cus_id(org),
            "subscription": sub_id(org), "mode": "subscription", "payment_status": payment_status,
            "metadata": {"organizationId": org.id}}


async def test_a_checkout_paid_by_bank_debit_applies_when_the_payment_succeeds(client: Any,
                                                                               stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "business", "interval": "monthly", "successUrl": "https://a.example/", "cancelUrl": "https://a.example/"})
    session_id = reply.data["sessionId"]
    completed = event("checkout.session.completed", checkout_object(org, session_id, "unpaid"))
    assert (await deliver(org, completed))[1]["applied"] is False
    waiting = await subscription(org)
    assert (waiting["plan"], waiting["stripeSubscriptionId"]) == ("free", sub_id(org))
    assert (await org.owner.query("webhooks.list")).status == 403  # not paid yet

    succeeded = event("checkout.session.async_payment_succeeded", checkout_object(org, session_id, "paid"))
    assert (await deliver(org, succeeded))[1]["applied"] is True
    paid = await subscription(org)
    assert (paid["plan"], paid["status"], paid["seats"]["included"]) == ("business", "active", 25)
    assert (await org.owner.query("webhooks.list")).status == 200


async def test_a_checkout_whose_bank_debit_fails_leaves_the_plan(client: Any, stripe_api: StripeApi) -> None:
    org = await make_org(client, plan="free")
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "business", "interval": "monthly", "successUrl": "https://a.example/", "cancelUrl": "https://a.example/"})
    session_id = reply.data["sessionId"]
    assert (await deliver(org, event("checkout.session.completed",
                                     checkout_object(org, session_id, "unpaid"))))[1]["applied"] is False
    failed = event("checkout.session.async_payment_failed", checkout_object(org, session_id, "unpaid"))
    assert (await deliver(org, failed))[1]["applied"] is True
    assert (await subscription(org))["plan"] == "free"
    # The session is over: a late success for it changes nothing.
    late = event("checkout.session.async_payment_succeeded", checkout_object(org, session_id, "paid"))
    assert (await deliver(org, late))[1]["applied"] is False
    assert (await subscription(org))["plan"] == "free"
    node = client.server.app[NODE]
    logged = await node.pool.fetchval("SELECT count(*) FROM activity WHERE organization_id = $1"
                                      " AND action = 'billing.checkout_payment_failed'", org.id)
    assert logged == 1


async def test_an_enterprise_checkout_without_seats_buys_the_seats_in_use(client: Any, stripe_api: StripeApi) -> None:
    """Prices are per seat: an enterprise checkout (a plan naming no seats) is not one seat with everyone on top;
    the seats bought bound the organization as on the other plans."""
    org = await make_org(client, plan="free")
    await org.add_user("member")
    await org.add_user("member")
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": "enterprise", "interval": "monthly", "successUrl": "https://a.example/",
        "cancelUrl": "https://a.example/"})
    assert reply.status == 200, reply.body
    _, _, form = stripe_api.requests[0]
    assert (form["line_items[0][price]"], form["line_items[0][quantity]"]) == ("price_enterprise_m", "3")
    completed = event("checkout.session.completed", checkout_object(org, reply.data["sessionId"], "paid"))
    assert (await deliver(org, completed))[1]["applied"] is True
    now = await subscription(org)
    assert (now["plan"], now["seats"]["included"], now["seats"]["available"]) == ("enterprise", 3, 0)
    gate = await org.owner.query("billing.checkFeatureGate", {"feature": "seats"})
    assert (gate.data["allowed"], gate.data["limit"]) == (False, 3)
    invite = await org.owner.mutate("organizations.members.invite", {"email": "one-more@example.test"})
    assert invite.status == 403 and "seats" in str(invite.body)
