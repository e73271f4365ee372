"""Billing (docs/billing.md): the subscription, feature gates of every plan, the sandbox processor's pages in a real
HTTP flow, the signed callback (bad signatures, repeats) and downgrades that delete nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest

from actors.tenancy.billing_callbacks import callback_secret, sign
from protocol.ids import Prefix, iso, new_id
from server.config import DEFAULT_PORT
from tests.harness import Org, login, make_org
from tests.integration.automations.conftest import rule
from tests.integration.boards.conftest import make_board
from web.keys import NODE

FEATURES = ("kpis", "automations", "templates", "csv_import", "api_access", "sso", "audit_log", "custom_branding",
            "webhooks", "advanced_permissions")
# The plan table (docs/billing.md), with each plan's features: plan -> feature -> (allowed, limit).
TABLE: dict[str, dict[str, tuple[bool, int | None]]] = {
    "free": {"kpis": (False, None), "automations": (False, 0), "templates": (True, None),
             "csv_import": (False, None), "api_access": (False, None), "sso": (False, None),
             "audit_log": (False, None), "custom_branding": (False, None), "webhooks": (False, None),
             "advanced_permissions": (False, None), "seats": (True, 3), "boards": (True, 3)},
    "starter": {"kpis": (True, None), "automations": (True, 5), "templates": (True, None),
                "csv_import": (True, None), "api_access": (False, None), "sso": (False, None),
                "audit_log": (False, None), "custom_branding": (False, None), "webhooks": (True, None),
                "advanced_permissions": (False, None), "seats": (True, 10), "boards": (True, 10)},
    "business": {"kpis": (True, None), "automations": (True, None), "templates": (True, None),
                 "csv_import": (True, None), "api_access": (True, None), "sso": (False, None),
                 "audit_log": (True, None), "custom_branding": (False, None), "webhooks": (True, None),
                 "advanced_permissions": (True, None), "seats": (True, 25), "boards": (True, 50)},
    "enterprise": {feature: (True, None) for feature in (*FEATURES, "seats", "boards")},
}
USAGE = {"seats": 1, "boards": 0}  # a new organization: its owner, no board


def page_path(url: str) -> str:
    return urlsplit(url).path


async def open_page(org: Org, url: str) -> tuple[int, str]:
    async with org.anonymous.client.get(page_path(url), headers={"Host": org.host}) as response:
        return response.status, await response.text()


def csrf_of(text: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', text)
    assert found is not None, text
    return found.group(1)


async def submit(org: Org, url: str, form: dict[str, str]) -> tuple[int, str | None, str]:
    async with org.anonymous.client.post(page_path(url), data=form, headers={"Host": org.host},
                                         allow_redirects=False) as response:
        return response.status, response.headers.get("Location"), await response.text()


async def checkout(org: Org, plan: str, interval: str = "monthly", **extra: Any) -> dict[str, Any]:
    reply = await org.owner.mutate("billing.createCheckoutSession", {
        "plan": plan, "interval": interval, "successUrl": "https://app.example/billing/done",
        "cancelUrl": "https://app.example/billing", **extra})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def pay_through_pages(org: Org, plan: str, interval: str = "monthly", **extra: Any) -> dict[str, Any]:
    session = await checkout(org, plan, interval, **extra)
    status, text = await open_page(org, session["checkoutUrl"])
    assert status == 200 and plan in text and ">Pay<" in text
    status, location, _ = await submit(org, session["checkoutUrl"], {"csrf": csrf_of(text), "action": "pay"})
    assert (status, location) == (303, "https://app.example/billing/done")
    return session


async def subscription(org: Org) -> dict[str, Any]:
    reply = await org.owner.query("billing.getSubscription")
    assert reply.status == 200, reply.body
    return dict(reply.data["subscription"])


async def post_callback(org: Org, payload: bytes, header: str | None) -> Any:
    headers = {"Host": org.host, "Content-Type": "application/json"}
    if header is not None:
        headers["Stripe-Signature"] = header
    async with org.anonymous.client.post("/api/v1/billing/webhook", data=payload, headers=headers) as response:
        return response.status, await response.json()


@pytest.mark.parametrize("plan", list(TABLE))
async def test_every_feature_of_every_plan_through_check_feature_gate(client: Any, plan: str) -> None:
    org = await make_org(client, plan=plan)
    for feature, (allowed, limit) in TABLE[plan].items():
        reply = await org.owner.query("billing.checkFeatureGate", {"feature": feature})
        assert reply.status == 200, reply.body
        usage = USAGE.get(feature, 0 if limit is not None else None)
        assert reply.data == {"feature": feature, "allowed": allowed, "plan": plan, "limit": limit,
                              "usage": usage}, feature


async def test_an_unknown_feature_is_400_naming_the_field(org: Org) -> None:
    reply = await org.owner.query("billing.checkFeatureGate", {"feature": "teleportation"})
    assert reply.status == 400
    assert "feature" in reply.error["message"]
    missing = await org.owner.query("billing.checkFeatureGate", {})
    assert missing.status == 400 and "feature" in missing.error["message"]


async def test_the_subscription_is_created_from_the_plan_on_first_read(client: Any) -> None:
    org = await make_org(client, plan="free")
    first = await subscription(org)
    assert first["id"].startswith("bsub_")
    assert {key: first[key] for key in ("plan", "status", "interval", "cancelAtPeriodEnd", "stripeCustomerId",
                                        "stripeSubscriptionId")} == {
        "plan": "free", "status": "active", "interval": "monthly", "cancelAtPeriodEnd": False,
        "stripeCustomerId": None, "stripeSubscriptionId": None}
    assert first["seats"] == {"included": 3, "used": 1, "available": 2}
    assert first["features"]["maxBoards"] == 3 and first["features"]["kpis"] is False
    assert first["currentPeriodStart"] < first["currentPeriodEnd"]
    assert await subscription(org) == first  # one row, read again
    _, member = await org.add_user("member")
    assert (await member.query("billing.getSubscription")).status == 403
    assert (await member.mutate("billing.createCheckoutSession", {
        "plan": "starter", "interval": "monthly", "successUrl": "https://a.example/", "cancelUrl": "https://a.example/"
    })).status == 403
    assert (await member.query("billing.checkFeatureGate", {"feature": "kpis"})).status == 200


async def test_checkout_input_is_checked_by_field(org: Org) -> None:
    for bad, field in (({"plan": "free"}, "plan"), ({"interval": "weekly"}, "interval"),
                       ({"successUrl": "javascript:alert(1)"}, "successUrl"), ({"seats": 0}, "seats")):
        reply = await org.owner.mutate("billing.createCheckoutSession", {
            "plan": "starter", "interval": "monthly", "successUrl": "https://a.example/",
            "cancelUrl": "https://a.example/", **bad})
        assert reply.status == 400 and field in reply.error["message"], reply.body


async def test_an_upgrade_through_the_sandbox_pages_opens_the_gates_at_once(client: Any) -> None:
    org = await make_org(client, plan="free")
    assert (await org.owner.query("webhooks.list")).status == 403
    for _ in range(3):
        await make_board(org)
    refused = await org.owner.mutate("boards.create", {"projectId": (await make_board_project(org)), "name": "4th"})
    assert refused.status == 403 and "3 boards" in refused.error["message"]

    session = await pay_through_pages(org, "starter", "annual", seats=12)
    assert session["sessionId"].startswith("cs_")
    assert session["checkoutUrl"] == f"http://{org.host}:{DEFAULT_PORT}/billing/sandbox/checkout/{session['sessionId']}"

    now = await subscription(org)
    assert (now["plan"], now["interval"], now["status"]) == ("starter", "annual", "active")
    assert now["seats"] == {"included": 12, "used": 1, "available": 11}
    assert now["features"]["kpis"] is True and now["features"]["maxBoards"] == 10
    assert (await org.owner.query("webhooks.list")).status == 200
    allowed = await org.owner.mutate("boards.create", {"projectId": (await make_board_project(org)), "name": "4th"})
    assert allowed.status == 200, allowed.body
    gate = await org.owner.query("billing.checkFeatureGate", {"feature": "boards"})
    assert gate.data == {"feature": "boards", "allowed": True, "plan": "starter", "limit": 10, "usage": 4}
    # The organization's own settings say so too, and the page cannot be paid twice.
    assert (await org.owner.query("organizations.get")).data["plan"] == "starter"
    status, _ = await open_page(org, session["checkoutUrl"])
    assert status == 409


async def make_board_project(org: Org) -> str:
    from tests.integration.boards.conftest import make_project

    return await make_project(org)


async def test_the_checkout_page_refuses_a_forged_form_another_host_and_an_expired_session(
        clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client, plan="free")
    other = await make_org(clocked_client, plan="free")
    session = await checkout(org, "business")
    status, _, _ = await submit(org, session["checkoutUrl"], {"csrf": "0" * 64, "action": "pay"})
    assert status == 403
    status, _ = await open_page(other, session["checkoutUrl"])
    assert status == 404
    clock.advance(24 * 3600 + 1)
    status, _ = await open_page(org, session["checkoutUrl"])
    assert status == 410
    assert (await subscription(org))["plan"] == "free"


async def test_a_callback_with_a_bad_signature_is_400_and_changes_nothing(org: Org) -> None:
    node = org.anonymous.client.server.app[NODE]
    session = await checkout(org, "enterprise")
    payload = msgspec.json.encode({"id": new_id(Prefix.EVENT), "type": "checkout.session.completed",
                                   "data": {"object": {"id": session["sessionId"], "object": "checkout.session"}}})
    secret = await callback_secret(node)
    for header in (None, "t=1,v1=deadbeef", sign(payload, "whsec_not_the_secret", node.clock.now()),
                   sign(payload + b" ", secret, node.clock.now()),
                   sign(payload, secret, node.clock.now() - timedelta(minutes=6))):  # outside the tolerance
        status, body = await post_callback(org, payload, header)
        assert status == 400, (header, body)
        assert body["error"]["details"][0]["field"] == "Stripe-Signature"
    assert (await subscription(org))["plan"] == "business"
    status, body = await post_callback(org, payload, sign(payload, secret, node.clock.now()))
    assert (status, body["applied"]) == (200, True)
    assert (await subscription(org))["plan"] == "enterprise"


async def test_a_repeated_callback_is_applied_once(client: Any) -> None:
    org = await make_org(client, plan="starter")
    node = org.anonymous.client.server.app[NODE]
    secret = await callback_secret(node)
    sub = await subscription(org)
    event_id = new_id(Prefix.EVENT)

    def seats_event(seats: int, event: str) -> bytes:
        return msgspec.json.encode({"id": event, "type": "customer.subscription.updated", "data": {"object": {
            "id": sub["id"], "object": "subscription", "quantity": seats, "metadata": {"organizationId": org.id}}}})

    first = seats_event(15, event_id)
    assert await post_callback(org, first, sign(first, secret, node.clock.now())) == (
        200, {"received": True, "id": event_id, "duplicate": False, "applied": True})
    later = seats_event(20, new_id(Prefix.EVENT))
    assert (await post_callback(org, later, sign(later, secret, node.clock.now())))[0] == 200
    # The first event again (a processor retries): answered, not applied over the later change.
    assert await post_callback(org, first, sign(first, secret, node.clock.now())) == (
        200, {"received": True, "id": event_id, "duplicate": True})
    assert (await subscription(org))["seats"]["included"] == 20
    async with node.pool.acquire() as conn:
        applied = await conn.fetchval("SELECT count(*) FROM activity WHERE organization_id = $1"
                                      " AND action = 'billing.subscription_updated'", org.id)
    assert applied == 2


async def test_the_portal_changes_seats_and_cancels_at_period_end(client: Any) -> None:
    org = await make_org(client, plan="free")
    reply = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert reply.status == 200, reply.body
    url = reply.data["portalUrl"]
    assert url == f"http://{org.host}:{DEFAULT_PORT}/billing/sandbox/portal/{reply.data['sessionId']}"
    status, text = await open_page(org, url)
    assert status == 200
    status, _, _ = await submit(org, url, {"csrf": csrf_of(text), "action": "seats", "seats": "zero"})
    assert status == 400
    status, location, _ = await submit(org, url, {"csrf": csrf_of(text), "action": "seats", "seats": "1"})
    assert (status, location) == (303, "https://app.example/settings")
    assert (await subscription(org))["seats"] == {"included": 1, "used": 1, "available": 0}
    # The seat gate counts the seats the subscription has: no invitation over them (nothing is removed).
    invite = await org.owner.mutate("organizations.members.invite", {"email": "new@example.com", "role": "member"})
    assert invite.status == 403 and "seats" in invite.error["message"], invite.body
    status, location, _ = await submit(org, url, {"csrf": csrf_of(text), "action": "cancel"})
    assert status == 303
    assert (await subscription(org))["cancelAtPeriodEnd"] is True


async def test_a_downgrade_deletes_nothing_and_refuses_creates_over_the_new_limit(org: Org) -> None:
    board = await make_board(org)
    for index in range(6):
        created = await org.owner.mutate("automations.create", rule(board.id, name=f"Rule {index}"))
        assert created.status == 200, created.body
    await pay_through_pages(org, "starter")
    listed = await org.owner.query("automations.list", {"boardId": board.id})
    assert len(listed.data["automations"]) == 6
    refused = await org.owner.mutate("automations.create", rule(board.id, name="Seventh"))
    assert refused.status == 403 and "5 automations per board" in refused.error["message"]
    gate = await org.owner.query("billing.checkFeatureGate", {"feature": "automations"})
    assert gate.data == {"feature": "automations", "allowed": True, "plan": "starter", "limit": 5, "usage": 6}


async def test_a_plan_change_reaches_the_gates_and_rate_limit_of_every_node(aiohttp_client: Any, database_url: str,
                                                                           redis_url: str) -> None:
    import asyncio

    import aiohttp

    from server.app import create_app
    from server.config import Settings
    from tests.harness import Api

    settings = Settings.from_env({"OBEYA_SERVICE_HOST": "localhost", "OBEYA_REDIS_URL": redis_url,
                                  "OBEYA_BCRYPT_ROUNDS": "4"})
    node_a, node_b = [await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
                      for _ in range(2)]
    org = await make_org(node_a, plan="free")
    on_b = Api(node_b, org.host, session=org.owner.session)
    before = await on_b.query("webhooks.list")  # node B now holds the organization, on the free plan
    assert before.status == 403 and before.headers["X-RateLimit-Limit"] == "60"

    await pay_through_pages(org, "starter")  # through node A

    cache = node_b.server.app[NODE].organizations
    deadline = asyncio.get_running_loop().time() + 1.0
    while cache.peek(org.slug)[0]:  # the organization change arrives through Redis
        assert asyncio.get_running_loop().time() < deadline, "node B kept the old plan"
        await asyncio.sleep(0.01)
    after = await on_b.query("webhooks.list")
    assert after.status == 200, after.body
    assert after.headers["X-RateLimit-Limit"] == "300"


async def event_ids(node: Any) -> set[str]:
    """The ids of the callbacks the server remembers (to answer their repeats)."""
    async with node.pool.acquire() as conn:
        return {row["id"] for row in await conn.fetch("SELECT id FROM billing_events")}


@pytest.mark.workers("billing-sweeper")
async def test_a_subscription_canceled_at_period_end_becomes_free_when_the_period_ends_and_callbacks_are_forgotten(
        clocked_client: Any, clock: Any) -> None:
    from actors.tenancy.billing_sweeper import EVENT_MEMORY, SWEEP_SECONDS

    org = await make_org(clocked_client, plan="free")
    other = await make_org(clocked_client, plan="free")
    node = clocked_client.server.app[NODE]
    earlier = await event_ids(node)
    await pay_through_pages(org, "starter")
    await pay_through_pages(other, "starter")  # not canceled: it stays
    reply = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    url = reply.data["portalUrl"]
    _, text = await open_page(org, url)
    assert (await submit(org, url, {"csrf": csrf_of(text), "action": "cancel"}))[0] == 303
    paid = await subscription(org)
    assert (paid["plan"], paid["cancelAtPeriodEnd"]) == ("starter", True)
    assert (await org.owner.query("webhooks.list")).status == 200

    mine = await event_ids(node) - earlier
    assert len(mine) == 3  # both payments and the cancellation, kept to answer their repeats

    clock.advance(27 * 86400)  # before the period's end (a month at least 28 days on): nothing changes
    await node.workers.idle()
    assert await subscription(org) == paid
    assert mine <= await event_ids(node) and EVENT_MEMORY.days == 30
    clock.advance(5 * 86400 + SWEEP_SECONDS)  # 32 days on
    await node.workers.idle()
    org.owner = await login(org.anonymous, f"owner@{org.slug}.test")  # the session of a month ago has ended
    other.owner = await login(other.anonymous, f"owner@{other.slug}.test")
    ended = await subscription(org)
    assert (ended["plan"], ended["status"], ended["cancelAtPeriodEnd"], ended["seats"]["included"]) == (
        "free", "canceled", False, 3)
    assert (await org.owner.query("webhooks.list")).status == 403  # the gate follows at once
    assert (await subscription(other))["plan"] == "starter"
    async with node.pool.acquire() as conn:
        changes = await conn.fetch("SELECT metadata->>'old' AS old, metadata->>'new' AS new FROM activity"
                                   " WHERE organization_id = $1 AND action = 'billing.plan_changed'"
                                   " ORDER BY created_at", org.id)
    assert [(row["old"], row["new"]) for row in changes] == [("free", "starter"), ("starter", "free")]
    assert not mine & await event_ids(node)  # more than EVENT_MEMORY old: forgotten by the same sweep


@pytest.mark.workers("billing-sweeper")
async def test_an_active_sandbox_subscription_renews_when_its_period_ends(clocked_client: Any, clock: Any) -> None:
    """The sandbox renews as a processor would: the period rolls forward by its interval, to the one holding now
    (several at once after a long stop), and the plan stays."""
    from actors.tenancy.billing_sweeper import SWEEP_SECONDS

    org = await make_org(clocked_client, plan="free")
    node = clocked_client.server.app[NODE]
    await pay_through_pages(org, "starter")
    paid = await subscription(org)
    first_end = paid["currentPeriodEnd"]
    clock.advance(95 * 86400 + SWEEP_SECONDS)  # three months and some days on
    await node.workers.idle()
    org.owner = await login(org.anonymous, f"owner@{org.slug}.test")  # the session of months ago has ended
    renewed = await subscription(org)
    now = node.clock.now()
    assert (renewed["plan"], renewed["status"], renewed["cancelAtPeriodEnd"]) == ("starter", "active", False)
    assert renewed["currentPeriodStart"] > first_end
    assert renewed["currentPeriodStart"] <= iso(now) < renewed["currentPeriodEnd"]
    assert renewed["currentPeriodEnd"] <= iso(now + timedelta(days=31))


async def test_the_pages_let_their_forms_redirect_to_the_callers_urls(org: Org) -> None:
    """Browsers check a form's redirects against the page's form-action: Pay ends at successUrl, the portal's
    changes at returnUrl, so their origins (and no other) are allowed there."""
    session = await checkout(org, "starter", successUrl="https://shop.example:8443/done?x=1")
    portal = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "http://127.0.0.1:3000/settings"})
    for url, origin in ((session["checkoutUrl"], "https://shop.example:8443"),
                        (portal.data["portalUrl"], "http://127.0.0.1:3000")):
        async with org.anonymous.client.get(page_path(url), headers={"Host": org.host}) as response:
            policy = response.headers["Content-Security-Policy"]
        assert f"form-action 'self' {origin};" in policy, policy
