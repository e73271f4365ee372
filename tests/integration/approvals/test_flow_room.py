"""The Socket.IO room `flow:<id>`: a screen subscribed to it sees a request opened (`approval.requested`),
decided (`approval.decided`) and completed (`approval.completed`) in the order of the stream, each with the
stream's `seq`; a member of another organization, or a guest who does not see the form's board, may not
join it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from storage import events as event_log
from tests.harness import make_org
from tests.integration.approvals.conftest import Form, decide, make_flow, submit
from tests.integration.approvals.test_decisions import one_step
from tests.integration.live.conftest import Screen, screens  # noqa: F401  (fixture)
from tests.smtp_sink import QUIET_PLAIN_AUTH
from web.keys import NODE

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]



async def test_a_flow_room_shows_a_request_from_opened_to_approved(
        form: Form, screens: Callable[[], Screen]) -> None:  # noqa: F811
    approver_id, approver = await form.org.add_user("member")
    flow = await make_flow(form, one_step([approver_id]))
    room = f"flow:{flow['id']}"
    watcher = screens()
    await watcher.connect(form.api)
    ack = await watcher.call("subscribe", {"room": room})
    assert ack["ok"] is True, ack

    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    requested = await watcher.wait_for_event("approval.requested")
    assert requested["data"]["request"]["id"] == request_id and requested["data"]["nodeId"] == "a"
    assert requested["data"]["approverIds"] == [approver_id]

    decided = await decide(approver, request_id, "a")
    assert decided.status == 200, decided.body
    pool = form.org.anonymous.client.server.app[NODE].pool
    await watcher.wait_for_seq(await event_log.last_seq(pool, form.org.id, room))
    names = [name for name, _ in watcher.received if name.startswith("approval.")]
    assert names == ["approval.requested", "approval.decided", "approval.completed"]
    outcome = watcher.events("approval.decided")[0]["data"]
    assert (outcome["decisionId"], outcome["stepResult"]) == (decided.data["decisionId"], "approved")
    assert watcher.events("approval.completed")[0]["data"]["status"] == "approved"
    assert watcher.seqs() == sorted(watcher.seqs())


async def test_a_flow_room_is_closed_to_other_organizations_and_to_guests_off_the_board(
        form: Form, screens: Callable[[], Screen]) -> None:  # noqa: F811
    flow = await make_flow(form)
    stranger = await make_org(form.org.anonymous.client)
    _, guest = await form.org.add_user("guest")
    for api in (stranger.owner, guest):
        outsider = screens()
        await outsider.connect(api)
        ack = await outsider.call("subscribe", {"room": f"flow:{flow['id']}"})
        assert ack["ok"] is False, ack
