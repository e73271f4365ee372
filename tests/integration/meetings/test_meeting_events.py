"""A meeting's `meeting.started` and `meeting.completed` reach a live screen on the board's Socket.IO room and a
webhook receiver subscribed to them, carrying the meeting and the seqs it records."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import Org
from tests.integration.boards.conftest import make_board
from tests.integration.live.conftest import follow
from tests.integration.meetings.conftest import complete, start
from tests.integration.webhooks.conftest import Receiver, create_webhook, delivery_settled

pytestmark = pytest.mark.workers("webhook-sender")


async def test_screens_and_webhooks_see_a_meeting_start_and_complete(org: Org, screens: Any,
                                                                     receiver: Receiver) -> None:
    board = await make_board(org)
    member_id, member = await org.add_user("member")
    hook = await create_webhook(org.owner, receiver.url, ["meeting.started", "meeting.completed"])
    screen = screens()
    subscribed_at = await follow(screen, member, board)

    meeting = await start(board, tier=1, attendeeIds=[org.owner_id, member_id])
    started = await screen.wait_for_event("meeting.started")
    assert started["seq"] == meeting["seqAtStart"] == subscribed_at + 1
    assert started["data"]["meeting"] == meeting
    assert started["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    assert started["organizationId"] == org.id and started["id"].startswith("evt_")

    posted = (await receiver.next()).json()
    assert posted["event"] == "meeting.started" and posted["id"] == started["id"]
    assert posted["seq"] == meeting["seqAtStart"] and posted["data"]["meeting"] == meeting

    completed = await complete(board.api, meeting, notes="Two red KPIs: actions opened.")
    ended = await screen.wait_for_event("meeting.completed")
    assert ended["seq"] == completed["seqAtCompletion"] == meeting["seqAtStart"] + 1
    assert ended["data"]["meeting"] == completed and completed["notes"] == "Two red KPIs: actions opened."

    posted = (await receiver.next()).json()
    assert posted["event"] == "meeting.completed" and posted["id"] == ended["id"]
    assert posted["seq"] == completed["seqAtCompletion"] and posted["data"]["meeting"] == completed
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    # The screen saw the board's two events, in order, and nothing else.
    assert [name for name, _ in screen.received] == ["meeting.started", "meeting.completed"]
