"""actions.verify: a completed action becomes verified with its note, or goes back to in_progress with the note
kept and the assignee told; any other status is refused."""

from __future__ import annotations

from tests.integration.actions.conftest import board_events, create, get, notifications, trail, update
from tests.integration.boards.conftest import Board
from web.keys import NODE


async def test_verifying_a_completed_action_records_the_note(board: Board) -> None:
    action = await create(board)
    await update(board, action["id"], status="completed")
    reply = await board.api.mutate("actions.verify", {"id": action["id"], "verified": True,
                                                      "verificationNote": "Guard checked on the night shift"})
    assert reply.status == 200, reply.body
    verified = reply.data
    assert verified["status"] == "verified" and verified["verificationNote"] == "Guard checked on the night shift"
    assert verified["verifiedById"] == board.org.owner_id and verified["verifiedAt"] is not None
    assert verified["completedAt"] is not None
    assert await get(board, action["id"]) == verified | {"escalations": []}

    last = (await board_events(board))[-1]
    assert last["event"] == "action.updated"
    assert last["data"]["changes"] == {"status": {"old": "completed", "new": "verified"},
                                       "verificationNote": {"old": None, "new": "Guard checked on the night shift"}}
    assert (await trail(board, action["id"]))[-1] == "action.verified"

    again = await board.api.mutate("actions.verify", {"id": action["id"], "verified": True})
    assert again.status == 400 and again.error["data"]["code"] == "BAD_REQUEST"


async def test_a_failed_verification_sends_the_action_back_to_its_assignee(board: Board) -> None:
    worker_id, worker = await board.org.add_user("member")
    action = await create(board, assigneeId=worker_id)
    await update(board, action["id"], status="completed")
    reply = await board.api.mutate("actions.verify", {"id": action["id"], "verified": False,
                                                      "verificationNote": "Still leaking at station 3"})
    assert reply.status == 200, reply.body
    assert reply.data["status"] == "in_progress" and reply.data["completedAt"] is None
    assert reply.data["verificationNote"] == "Still leaking at station 3" and reply.data["verifiedAt"] is None
    [note] = await notifications(worker, "action_reopened")
    assert (note["entityType"], note["entityId"]) == ("action", action["id"])
    assert (await trail(board, action["id"]))[-1] == "action.verification_rejected"
    assert (await board_events(board))[-1]["data"]["changes"]["status"] == {"old": "completed", "new": "in_progress"}


async def test_only_completed_actions_can_be_verified(board: Board) -> None:
    action = await create(board)
    for status in ("open", "in_progress", "closed"):
        if status != "open":
            await update(board, action["id"], status=status)
        for verified in (True, False):
            reply = await board.api.mutate("actions.verify", {"id": action["id"], "verified": verified})
            assert reply.status == 400, (status, reply.body)
    assert (await get(board, action["id"]))["status"] == "closed"
    assert (await board.api.mutate("actions.verify", {"id": action["id"]})).status == 400
    assert (await board.api.mutate("actions.verify", {"id": "acn_missing", "verified": True})).status == 404


async def test_an_assignee_who_left_is_not_told(board: Board) -> None:
    worker_id, _ = await board.org.add_user("member")
    action = await create(board, assigneeId=worker_id)
    await update(board, action["id"], status="completed")
    assert (await board.org.owner.mutate("organizations.members.remove", {"userId": worker_id})).status == 200
    reply = await board.api.mutate("actions.verify", {"id": action["id"], "verified": False,
                                                      "verificationNote": "Still leaking"})
    assert reply.status == 200 and reply.data["status"] == "in_progress"
    notified = await board.api.client.app[NODE].pool.fetchval(
        "SELECT count(*) FROM notifications WHERE user_id = $1 AND type = 'action_reopened'", worker_id)
    assert notified == 0
