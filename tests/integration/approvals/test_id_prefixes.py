"""The ids of approval flows, requests, decisions and distribution recipients begin with the spec's prefixes
(protocol/ids.py): `flow_`, `req_`, `dec_`, `dr_`, as made through the API."""

from __future__ import annotations

from tests.integration.approvals.conftest import Form, decide, make_flow, one_step, request, submit
from tests.smtp_sink import QUIET_PLAIN_AUTH

pytestmark = QUIET_PLAIN_AUTH


async def test_flows_requests_decisions_and_recipients_take_the_spec_prefixes(form: Form) -> None:
    approver_id, approver = await form.org.add_user("member")
    flow = await make_flow(form, one_step([approver_id]))
    submission_id, request_id = await submit(form, {"title": "Desk", "amount": 10})
    decided = await decide(approver, str(request_id), "a")
    assert decided.status == 200, decided.body
    [decision] = (await request(form.api, str(request_id)))["decisions"]
    sent = await form.api.mutate("forms.createDistribution", {"formId": form.id,
                                                              "recipients": [{"email": "ann@supplier.test"}]})
    assert sent.status == 200, sent.body
    status = await form.api.query("forms.getDistributionStatus", {"formId": form.id})
    assert status.status == 200, status.body
    [recipient] = status.data["recipients"]

    assert flow["id"].startswith("flow_")
    assert submission_id.startswith("sub_")
    assert str(request_id).startswith("req_")
    assert decision["id"].startswith("dec_")
    assert recipient["id"].startswith("dr_")
