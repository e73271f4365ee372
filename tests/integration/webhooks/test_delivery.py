"""Webhook deliveries to a real receiver on 127.0.0.1 (docs/api.md, "Webhooks"): signatures, subscriptions, the retry
schedule on the server's clock, the failed mark, redelivery and catching up after a restart."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import timedelta
from typing import Any

import aiohttp
import pytest

from actors.kernel.events import emit, org_stream
from actors.runtime.clock import ManualClock
from server.app import create_app
from storage.pool import create_pool
from tests.harness import Api, Org, make_org
from tests.integration.boards.conftest import make_board, make_project
from tests.integration.webhooks.conftest import Receiver, create_webhook, deliveries, delivery_settled
from web.keys import NODE

pytestmark = pytest.mark.workers("webhook-sender")

SECRET = "whsec-test-secret"


def check_signatures(received: Any, secret: str) -> None:
    body = received.body
    expected_hex = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(received.headers["X-Svc-Signature"], f"sha256={expected_hex}")
    webhook_id, timestamp = received.headers["webhook-id"], received.headers["webhook-timestamp"]
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected_b64 = base64.b64encode(hmac.new(secret.encode(), signed, hashlib.sha256).digest()).decode()
    assert hmac.compare_digest(received.headers["webhook-signature"], f"v1,{expected_b64}")


async def test_subscribed_event_is_posted_signed(org: Org, receiver: Receiver) -> None:
    hook = await create_webhook(org.owner, receiver.url, ["project.created"], secret=SECRET)
    await make_project(org)

    received = await receiver.next()
    payload = json.loads(received.body)
    assert payload["event"] == "project.created"
    assert payload["id"].startswith("evt_") and payload["apiVersion"] == "v1"
    assert payload["organizationId"] == org.id and isinstance(payload["seq"], int)
    assert payload["timestamp"].endswith("Z")
    assert payload["data"]["project"]["name"] == "Line A"
    assert payload["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    assert received.headers["Content-Type"] == "application/json"
    assert received.headers["X-Svc-Event"] == "project.created"
    assert received.headers["X-Svc-Delivery"] == payload["id"] == received.headers["webhook-id"]
    assert received.headers["webhook-timestamp"].isdigit()
    check_signatures(received, SECRET)

    delivered = await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    assert delivered["eventId"] == payload["id"] and delivered["event"] == "project.created"
    assert delivered["responseCode"] == 200 and delivered["durationMs"] >= 0
    assert delivered["nextAttemptAt"] is None and delivered["id"].startswith("whd_")


async def test_only_subscribed_events_and_no_signature_without_secret(org: Org, receiver: Receiver) -> None:
    hook = await create_webhook(org.owner, receiver.url, ["project.deleted"])
    project_id = await make_project(org)  # project.created: not subscribed
    deleted = await org.owner.mutate("projects.delete", {"id": project_id})
    assert deleted.status == 200, deleted.body

    received = await receiver.next()
    assert json.loads(received.body)["event"] == "project.deleted"
    assert "X-Svc-Signature" not in received.headers and "webhook-signature" not in received.headers
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    assert [entry["event"] for entry in await deliveries(org.owner, hook["id"])] == ["project.deleted"]
    assert receiver.requests.empty()


async def test_inactive_webhook_receives_nothing(org: Org, receiver: Receiver) -> None:
    paused = await create_webhook(org.owner, receiver.url, ["project.created"])
    await org.owner.rest("PATCH", f"/api/v1/webhooks/{paused['id']}", {"active": False})
    live = await create_webhook(org.owner, receiver.url + "?live", ["project.created"])
    await make_project(org)
    await receiver.next()
    await delivery_settled(org.owner, live["id"], 1, "succeeded")
    assert await deliveries(org.owner, paused["id"]) == []
    assert receiver.requests.empty()


async def test_failures_follow_the_retry_schedule_then_mark_the_webhook_failed(
        clocked_client: Any, clock: ManualClock, receiver: Receiver) -> None:
    org = await make_org(clocked_client)
    receiver.status = 500
    hook = await create_webhook(org.owner, receiver.url, ["project.created"], secret=SECRET)
    await make_project(org)

    first = await receiver.next()
    event_id = first.headers["webhook-id"]
    for attempt, minutes in enumerate((1, 5, 30, 120, 720), start=1):
        failed = await delivery_settled(org.owner, hook["id"], attempt, "retrying")
        assert failed["responseCode"] == 500
        assert failed["nextAttemptAt"] == (clock.now() + timedelta(minutes=minutes)).isoformat(
            timespec="milliseconds").replace("+00:00", "Z")
        clock.advance(minutes * 60 - 1)
        await clocked_client.server.app[NODE].workers.idle()  # a second early: the sender does not retry
        assert (await deliveries(org.owner, hook["id"]))[0]["status"] == "retrying"
        clock.advance(1)
        retried = await receiver.next()
        assert retried.headers["webhook-id"] == event_id  # the same event: receivers deduplicate by id
        check_signatures(retried, SECRET)

    final = await delivery_settled(org.owner, hook["id"], 6, "failed")
    assert final["nextAttemptAt"] is None
    [marked] = (await org.owner.rest("GET", "/api/v1/webhooks")).data
    assert marked["status"] == "failed" and marked["active"] is False

    await make_project(org)  # nothing more is queued or sent to a failed webhook
    clock.advance(24 * 3600)
    await clocked_client.server.app[NODE].workers.idle()
    assert [entry["eventId"] for entry in await deliveries(org.owner, hook["id"])] == [event_id]
    assert receiver.requests.empty()

    receiver.status = 204
    again = await org.owner.rest("POST", f"/api/v1/webhooks/{hook['id']}/redeliver", {})
    assert again.status == 200, again.body
    assert again.data["requeued"] == 1 and again.data["status"] == "active" and again.data["active"] is True
    clock.advance(1)
    redelivered = await receiver.next()
    assert redelivered.headers["webhook-id"] == event_id
    done = await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    assert done["responseCode"] == 204


async def test_event_committed_while_no_worker_runs_is_delivered_on_start(
        aiohttp_client: Any, database_url: str, settings: Any, receiver: Receiver) -> None:
    first = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    org = await make_org(first)
    hook = await create_webhook(org.owner, receiver.url, ["member.role_changed"], secret=SECRET)
    moment = first.server.app[NODE].clock.now()
    await first.close()  # the node stops: no worker, no bus

    offline = await create_pool(database_url)
    try:
        async with offline.acquire() as conn, conn.transaction():
            stored = await emit(conn, org_id=org.id, stream=org_stream(org.id), name="member.role_changed",
                                data={"userId": org.owner_id}, caller=None,
                                moment=moment)
    finally:
        await offline.close()

    second = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    received = await receiver.next()
    assert received.headers["webhook-id"] == stored.id
    check_signatures(received, SECRET)
    owner = Api(second, org.host).with_session(org.owner.session)
    await delivery_settled(owner, hook["id"], 1, "succeeded")


async def test_delivery_log_is_newest_first_and_paged(org: Org, receiver: Receiver) -> None:
    hook = await create_webhook(org.owner, receiver.url, ["project.created"])
    await make_project(org)
    await receiver.next()
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    await make_project(org)
    newest = json.loads((await receiver.next()).body)["id"]
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")

    first = await org.owner.rest("GET", f"/api/v1/webhooks/{hook['id']}/deliveries", params={"limit": 1})
    assert first.status == 200 and [entry["eventId"] for entry in first.data] == [newest]
    assert first.body["meta"]["has_more"] is True
    rest = await org.owner.rest("GET", f"/api/v1/webhooks/{hook['id']}/deliveries",
                                params={"limit": 1, "cursor": first.body["meta"]["cursor"]})
    assert len(rest.data) == 1 and rest.data[0]["eventId"] != newest and rest.body["meta"]["has_more"] is False
    rpc = await org.owner.query("webhooks.deliveries", {"id": hook["id"]})
    assert [entry["eventId"] for entry in rpc.data["deliveries"]][0] == newest


async def test_an_event_logged_on_two_streams_is_delivered_once(org: Org, receiver: Receiver) -> None:
    """A KPI's events are logged on its stream and its board's, an item moved across boards on both boards:
    a webhook gets each of them once."""
    hook = await create_webhook(org.owner, receiver.url, ["kpi.value_entered", "item.moved"])
    source, target = await make_board(org), await make_board(org)
    kpi = await org.owner.mutate("kpis.define", {"boardId": source.id, "name": "Scrap", "category": "quality",
                                                 "direction": "lower_is_better", "frequency": "daily"})
    assert kpi.status == 200, kpi.body
    assert (await org.owner.mutate("kpis.setValue", {"kpiId": kpi.data["id"], "value": 3})).status == 200
    item = await source.add_item("Moves to line B")
    moved = await org.owner.mutate("items.move", {"id": item["id"], "groupId": target.group_id,
                                                  "boardId": target.id})
    assert moved.status == 200, moved.body

    first, second = json.loads((await receiver.next()).body), json.loads((await receiver.next()).body)
    assert (first["event"], second["event"]) == ("kpi.value_entered", "item.moved")
    assert second["data"]["from"]["boardId"] == source.id
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    assert sorted(entry["event"] for entry in await deliveries(org.owner, hook["id"])) == [
        "item.moved", "kpi.value_entered"]
    assert receiver.requests.empty()


async def test_redeliver_sends_now_a_delivery_waiting_for_its_next_retry(
        clocked_client: Any, clock: ManualClock, receiver: Receiver) -> None:
    org = await make_org(clocked_client)
    receiver.status = 503
    hook = await create_webhook(org.owner, receiver.url, ["project.created"])
    await make_project(org)
    event_id = (await receiver.next()).headers["webhook-id"]
    waiting = await delivery_settled(org.owner, hook["id"], 1, "retrying")
    assert waiting["nextAttemptAt"] == (clock.now() + timedelta(minutes=1)).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")

    receiver.status = 200  # the endpoint is fixed: everything pending goes now, not at its retry time
    again = await org.owner.rest("POST", f"/api/v1/webhooks/{hook['id']}/redeliver", {})
    assert again.status == 200, again.body
    assert again.data["requeued"] == 1
    clock.advance(1)
    assert (await receiver.next()).headers["webhook-id"] == event_id
    done = await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    assert done["responseCode"] == 200 and done["nextAttemptAt"] is None
    over_rpc = await org.owner.mutate("webhooks.redeliver", {"id": hook["id"]})
    assert over_rpc.status == 200 and over_rpc.data["requeued"] == 0  # nothing undelivered is left
