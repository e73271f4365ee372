"""The billing callback and the sandbox processor's pages (docs/billing.md).

`POST /api/v1/billing/webhook` takes the processor's signed callbacks (actors/tenancy/billing_callbacks.py).

The sandbox processor (`OBEYA_BILLING=sandbox`, the default) renders its checkout and portal here, on the
organization's host, as plain HTML forms without JavaScript: `GET /billing/sandbox/checkout/<sessionId>` shows the
plan with a Pay button; its POST signs a `checkout.session.completed` callback with the callback secret and hands
it to the same verification and processing as the webhook route, then sends the browser to the `successUrl`.
`/billing/sandbox/portal/<sessionId>` changes the seats or sets cancellation at period end through a signed
`customer.subscription.updated`, then returns to the `returnUrl`. The session id (100 random bits) is what
reaches a page, as a processor's hosted page; its forms carry a CSRF value bound to the session id (HMAC under
the callback secret). Sessions expire after 24 hours (410).
"""

from __future__ import annotations

import hashlib
import hmac
import html
from collections.abc import Mapping
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from actors.tenancy import billing_callbacks as callbacks
from actors.tenancy.billing import included_seats, processor_session, subscription_of
from actors.tenancy.billing_processors import PAYMENT_PROCESSOR
from protocol.errors import ApiError
from web.context import host_name, org_slug
from web.keys import NODE
from web.plain_pages import plain_page

WEBHOOK_PATH = "/api/v1/billing/webhook"
CHECKOUT_PATH = "/billing/sandbox/checkout/{session_id}"
PORTAL_PATH = "/billing/sandbox/portal/{session_id}"


async def webhook(request: web.Request) -> web.Response:
    node = request.app[NODE]
    reply = await callbacks.receive(node, await request.read(), request.headers.get(callbacks.SIGNATURE_HEADER))
    return web.json_response(reply)



async def _csrf(request: web.Request, session_id: str) -> str:
    secret = await callbacks.callback_secret(request.app[NODE])
    return hmac.new(secret.encode(), f"sandbox:{session_id}".encode(), hashlib.sha256).hexdigest()


async def _session(request: web.Request, kind: str) -> Mapping[str, Any] | web.Response:
    """The open session the URL names on its own organization's host, or the page that says why not."""
    node = request.app[NODE]
    if node.plugins[PAYMENT_PROCESSOR].name != "sandbox":  # with Stripe, its own hosted pages take the place of these
        return plain_page("Billing session not found", "", 404)
    session_id = request.match_info["session_id"]
    row = await processor_session(node, session_id[:64])
    slug = org_slug(host_name(request), node.settings.service_host)
    if row is None or row["kind"] != kind or slug is None or row["slug"].lower() != slug.lower():
        return plain_page("Billing session not found", "", 404)
    if row["expires_at"] <= node.clock.now():
        return plain_page("This billing session has expired", "<p>Start again from the billing settings.</p>", 410)
    if row["status"] != "open":
        return plain_page("This checkout is already complete", "", 409)
    return row


async def _form(request: web.Request) -> Any:
    try:
        return await request.post()
    except (ValueError, AssertionError, HttpProcessingError):  # aiohttp's refusals of a malformed body
        return None


async def _deliver(request: web.Request, event_type: str, event_object: dict[str, Any]) -> web.Response | None:
    """Sign the sandbox's callback and hand it to the callback processing, as the processor would."""
    node = request.app[NODE]
    payload = callbacks.sandbox_event(event_type, event_object, node.clock.now())
    header = callbacks.sign(payload, await callbacks.callback_secret(node), node.clock.now())
    try:
        await callbacks.receive(node, payload, header)
    except ApiError as error:
        return plain_page("The payment could not be completed", f"<p>{html.escape(error.message)}</p>", error.status)
    return None


async def show_checkout(request: web.Request) -> web.Response:
    row = await _session(request, "checkout")
    if isinstance(row, web.Response):
        return row
    seats = row["seats"] if row["seats"] is not None else included_seats(row["plan"], None)
    fields = f'<input type="hidden" name="csrf" value="{await _csrf(request, row["id"])}">'
    return plain_page("Sandbox checkout",
                      f"<p>Plan: <strong>{html.escape(row['plan'])}</strong>, billed "
                      f"{html.escape(row['billing_interval'])}, seats: {'unlimited' if seats is None else seats}.</p>"
                      "<p>This is the sandbox processor: no payment is taken.</p>"
                      f'<form method="post">{fields}<button type="submit" name="action" value="pay">Pay</button></form>'
                      f'<p><a href="{html.escape(row["cancel_url"])}">Cancel</a></p>',
                      redirects_to=(row["success_url"],))


async def _posted(request: web.Request, kind: str, again: str) -> tuple[Mapping[str, Any], Any] | web.Response:
    """The open session and the form posted to its page with that page's CSRF value, or the page that says why
    not (`again`: what to open again when the form expired)."""
    row = await _session(request, kind)
    if isinstance(row, web.Response):
        return row
    form = await _form(request)
    if form is None or not hmac.compare_digest(str(form.get("csrf", "")), await _csrf(request, row["id"])):
        return plain_page("This form has expired", f"<p>Open {again} again.</p>", 403)
    return row, form


async def pay(request: web.Request) -> web.Response:
    posted = await _posted(request, "checkout", "the checkout link")
    if isinstance(posted, web.Response):
        return posted
    row, _ = posted
    refused = await _deliver(request, "checkout.session.completed",
                             {"id": row["id"], "object": "checkout.session",
                              "client_reference_id": row["organization_id"]})
    if refused is not None:
        return refused
    raise web.HTTPSeeOther(row["success_url"])


async def show_portal(request: web.Request) -> web.Response:
    row = await _session(request, "portal")
    if isinstance(row, web.Response):
        return row
    node = request.app[NODE]
    subscription = await subscription_of(node, row["organization_id"])
    included = included_seats(subscription["plan"], subscription["seats"])
    token = await _csrf(request, row["id"])
    seats = "unlimited" if included is None else str(included)
    cancel = ("<button type='submit' name='action' value='resume'>Keep the subscription</button>"
              if subscription["cancel_at_period_end"] else
              "<button type='submit' name='action' value='cancel'>Cancel at period end</button>")
    return plain_page("Sandbox billing portal",
                      f"<p>Plan: <strong>{html.escape(subscription['plan'])}</strong>, seats: {seats}.</p>"
                      f'<form method="post"><input type="hidden" name="csrf" value="{token}">'
                      f'<label>Seats <input type="number" name="seats" min="1" max="100000" value="{included or ""}">'
                      "</label> <button type='submit' name='action' value='seats'>Change seats</button></form>"
                      f'<form method="post"><input type="hidden" name="csrf" value="{token}">{cancel}</form>'
                      f'<p><a href="{html.escape(row["return_url"])}">Back</a></p>',
                      redirects_to=(row["return_url"],))


async def change_in_portal(request: web.Request) -> web.Response:
    posted = await _posted(request, "portal", "the billing portal")
    if isinstance(posted, web.Response):
        return posted
    row, form = posted
    node = request.app[NODE]
    subscription = await subscription_of(node, row["organization_id"])
    change: dict[str, Any] = {"id": subscription["id"], "object": "subscription",
                              "metadata": {"organizationId": row["organization_id"]}}
    action = str(form.get("action", ""))
    if action == "seats":
        text = str(form.get("seats", "")).strip()
        if not text.isdigit() or not 1 <= int(text) <= 100_000:
            return plain_page("Seats must be a whole number from 1 to 100000", "", 400)
        change["quantity"] = int(text)
    elif action in ("cancel", "resume"):
        change["cancel_at_period_end"] = action == "cancel"
    else:
        return plain_page("Choose a change", "", 400)
    refused = await _deliver(request, "customer.subscription.updated", change)
    if refused is not None:
        return refused
    raise web.HTTPSeeOther(row["return_url"])


def add_billing_routes(app: web.Application) -> None:
    app.router.add_post(WEBHOOK_PATH, webhook)
    app.router.add_get(CHECKOUT_PATH, show_checkout)
    app.router.add_post(CHECKOUT_PATH, pay)
    app.router.add_get(PORTAL_PATH, show_portal)
    app.router.add_post(PORTAL_PATH, change_in_portal)
