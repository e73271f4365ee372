"""An approver's mail, with its single-use links, is sealed at rest under the node's own key
(`OBEYA_SECRET_KEY`), which the flow's messages never carry (they may cross nodes): the sender opens it and
delivers it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import server_settings
from tests.integration.approvals.conftest import Form, email_of, links, mails, make_flow, one_step, submit
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


@pytest.fixture
def settings(request: pytest.FixtureRequest, smtp_url: str) -> Any:
    return server_settings(request, OBEYA_SMTP_URL=smtp_url, OBEYA_SECRET_KEY="s" * 40)


async def test_an_approvers_mail_is_sealed_under_the_nodes_key_and_delivered(form: Form, sink: Sink) -> None:
    approver_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([approver_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None

    [body] = await mails(sink, await email_of(form, approver_id), 1)

    assert {"approve", "reject"} <= set(links(body))
