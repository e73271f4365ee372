"""Forms and approval flows reach webhook receivers (docs/forms-and-approvals.md):
`form.published`, `form.submitted`, `approval.requested`, `approval.decided` and `approval.completed` are
delivered, signed, to a real receiver on 127.0.0.1 by the webhook sender."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import create_form, submit
from tests.integration.forms_flow.conftest import active_flow, one_step, request_of
from tests.integration.forms_flow.test_flow import ANSWERS
from tests.integration.webhooks.conftest import Receiver, create_webhook, receiver  # noqa: F401  (fixture)
from tests.integration.webhooks.test_delivery import check_signatures

pytestmark = pytest.mark.workers("webhook-sender")

SECRET = "whsec-forms"
EVENTS = ["form.published", "form.submitted", "approval.requested", "approval.decided", "approval.completed"]


async def received(hook: Receiver, count: int) -> dict[str, dict[str, Any]]:
    """The next `count` deliveries to `hook`, signed, by event name (streams deliver in their own order)."""
    payloads = {}
    for _ in range(count):
        delivery = await hook.next()
        check_signatures(delivery, SECRET)
        payload = delivery.json()
        assert delivery.headers["X-Svc-Event"] == payload["event"]
        payloads[payload["event"]] = payload
    return payloads


async def test_form_and_approval_events_reach_webhooks(fboard: Board, receiver: Receiver) -> None:  # noqa: F811
    org = fboard.org
    lead_id, lead = await org.add_user("member", name="Lena Lead")
    await create_webhook(org.owner, receiver.url, EVENTS, secret=SECRET)
    form = await create_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([lead_id]))
    published = await org.owner.mutate("forms.update", {"id": form["id"], "status": "published"})
    assert published.status == 200, published.body
    assert (await received(receiver, 1))["form.published"]["data"]["form"]["id"] == form["id"]

    sent = await submit(org.anonymous, form["slug"], ANSWERS)
    assert sent.status == 200, sent.body
    first = await received(receiver, 2)
    assert set(first) == {"form.submitted", "approval.requested"}
    submitted = first["form.submitted"]["data"]
    assert submitted["formId"] == form["id"] and submitted["submissionId"] == sent.body["submissionId"]
    assert submitted["item"]["name"] == ANSWERS["title"] and submitted["answers"]["quantity"] == 3
    request = await request_of(org.owner, flow["id"])
    assert first["approval.requested"]["data"]["request"]["id"] == request["id"]

    decided = await lead.mutate("formApprovalFlows.submitDecisionAuthenticated",
                                {"requestId": request["id"], "nodeId": "step", "decision": "approved"})
    assert decided.status == 200, decided.body
    last = await received(receiver, 2)
    assert set(last) == {"approval.decided", "approval.completed"}
    assert last["approval.completed"]["data"]["status"] == "approved"
    assert last["approval.decided"]["data"]["actor"]["id"] == lead_id
