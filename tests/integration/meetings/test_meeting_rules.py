"""The rules of a tier meeting: members start meetings (guests only read them); only the starter or an admin
completes one, and only once (409); attendees are active members of the organization, each listed once (400
naming `attendeeIds.<i>`); the tier is 1 to 5 (400 naming `tier`); one meeting of a tier in progress at a board
at a time (409), also when two screens start it at the same moment. A refused call changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from storage import events as event_log
from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.meetings.conftest import board_seq, complete, start
from web.keys import NODE


async def test_guests_read_meetings_but_do_not_start_them(board: Board) -> None:
    guest_id, guest = await board.org.add_user("guest")
    # The board lives in an open workspace: a guest sees only workspaces it belongs to.
    workspace_id = (await board.api.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    added = await board.api.mutate("workspaces.members.add", {"workspaceId": workspace_id, "userId": guest_id})
    assert added.status == 200, added.body
    meeting = await start(board)
    refused = await guest.mutate("meetings.start", {"boardId": board.id, "tier": 2})
    assert refused.status == 403, refused.body
    got = await guest.query("meetings.get", {"id": meeting["id"]})
    assert got.status == 200 and got.data == meeting
    listed = await guest.query("meetings.list", {"boardId": board.id})
    assert [m["id"] for m in listed.data["meetings"]] == [meeting["id"]]


async def test_only_the_starter_or_an_admin_completes(board: Board) -> None:
    _, starter = await board.org.add_user("member")
    _, colleague = await board.org.add_user("member")
    _, admin = await board.org.add_user("admin")

    by_member = await start(board, starter, tier=1)
    refused = await colleague.mutate("meetings.complete", {"id": by_member["id"], "notes": "not mine to close"})
    assert refused.status == 403 and refused.error["data"]["code"] == "FORBIDDEN", refused.body
    still = await board.api.query("meetings.get", {"id": by_member["id"]})
    assert still.data == by_member
    completed = await complete(starter, by_member, notes="Closed by its starter")
    assert completed["completedBy"] == completed["startedBy"] != board.org.owner_id

    by_colleague = await start(board, colleague, tier=2)
    closed_by_admin = await complete(admin, by_colleague)
    assert closed_by_admin["status"] == "completed" and closed_by_admin["completedBy"] != by_colleague["startedBy"]
    by_admin = await start(board, admin, tier=3)
    closed_by_owner = await complete(board.api, by_admin)  # the owner is an admin too
    assert closed_by_owner["completedBy"] == board.org.owner_id


async def test_completing_twice_is_409_and_keeps_the_first_completion(board: Board) -> None:
    meeting = await start(board)
    completed = await complete(board.api, meeting, notes="First")
    seq = await board_seq(board)
    again = await board.api.mutate("meetings.complete", {"id": meeting["id"], "notes": "Second"})
    assert again.status == 409 and again.error["data"]["code"] == "CONFLICT", again.body
    got = await board.api.query("meetings.get", {"id": meeting["id"]})
    assert got.data == completed and got.data["notes"] == "First"
    assert await board_seq(board) == seq  # no second meeting.completed


async def test_attendees_must_be_active_members_listed_once(client: Any, board: Board) -> None:
    member_id, _ = await board.org.add_user("member")
    guest_id, _ = await board.org.add_user("guest")
    outsider = await make_org(client)
    seq = await board_seq(board)
    cases: list[tuple[list[str], list[str]]] = [
        ([board.org.owner_id, outsider.owner_id], ["attendeeIds.1"]),
        (["usr_nobody00000000000000", member_id, "usr_ghost000000000000000"], ["attendeeIds.0", "attendeeIds.2"]),
        ([member_id, board.org.owner_id, member_id], ["attendeeIds.2"]),
    ]
    for attendees, fields in cases:
        reply = await board.api.mutate("meetings.start", {"boardId": board.id, "tier": 1, "attendeeIds": attendees})
        assert reply.status == 400 and reply.error["data"]["code"] == "BAD_REQUEST", (attendees, reply.body)
        assert [d["field"] for d in reply.error["data"]["details"]] == fields, (attendees, reply.body)
    listed = await board.api.query("meetings.list", {"boardId": board.id})
    assert listed.data["meetings"] == [] and await board_seq(board) == seq
    # A guest is a member of the organization and may attend.
    meeting = await start(board, attendeeIds=[guest_id, member_id])
    assert meeting["attendeeIds"] == [guest_id, member_id]


async def test_removed_members_cannot_attend(board: Board) -> None:
    member_id, _ = await board.org.add_user("member")
    removed = await board.api.mutate("organizations.members.remove", {"userId": member_id})
    assert removed.status == 200, removed.body
    reply = await board.api.mutate("meetings.start", {"boardId": board.id, "tier": 1, "attendeeIds": [member_id]})
    assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == "attendeeIds.0", reply.body


async def test_bad_input_is_400_naming_the_field(board: Board) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"tier": 0}, "tier"), ({"tier": 6}, "tier"), ({"tier": "two"}, "tier"), ({"tier": 1.5}, "tier"),
        ({"tier": None}, "tier"), ({"boardId": ""}, "boardId"), ({"attendeeIds": "usr_x"}, "attendeeIds"),
        ({"attendeeIds": [7]}, "attendeeIds.0"), ({"attendeeIds": ["usr_x"] * 101}, "attendeeIds"),
    ]
    for change, field in cases:
        reply = await board.api.mutate("meetings.start", {"boardId": board.id, "tier": 1, **change})
        assert reply.status == 400, (change, reply.body)
        assert reply.error["data"]["details"][0]["field"] == field, (change, reply.body)
    missing = await board.api.mutate("meetings.start", {"boardId": board.id})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "tier", missing.body
    listed = await board.api.query("meetings.list", {"boardId": board.id})
    assert listed.data["meetings"] == []

    meeting = await start(board)
    for notes in ("n" * 10_001, 42):
        reply = await board.api.mutate("meetings.complete", {"id": meeting["id"], "notes": notes})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == "notes", reply.body
    got = await board.api.query("meetings.get", {"id": meeting["id"]})
    assert got.data["status"] == "in_progress"


async def test_one_meeting_of_a_tier_in_progress_at_a_board(board: Board) -> None:
    first = await start(board, tier=1)
    again = await board.api.mutate("meetings.start", {"boardId": board.id, "tier": 1})
    assert again.status == 409 and again.error["data"]["meetingId"] == first["id"], again.body
    assert again.error["data"]["details"][0]["field"] == "tier"
    other_tier = await start(board, tier=2)  # a tier-2 walk of the same board may run meanwhile
    await complete(board.api, first)
    following = await start(board, tier=1)
    assert following["id"] not in (first["id"], other_tier["id"])


async def test_concurrent_starts_of_one_tier_make_one_meeting(board: Board) -> None:
    replies = await asyncio.gather(*(board.api.mutate("meetings.start", {"boardId": board.id, "tier": 3})
                                     for _ in range(6)))
    assert sorted(reply.status for reply in replies) == [200] + [409] * 5, [r.body for r in replies]
    listed = await board.api.query("meetings.list", {"boardId": board.id})
    [meeting] = listed.data["meetings"]
    assert meeting["seqAtStart"] == await board_seq(board)


async def test_a_start_retried_with_its_idempotency_key_gives_the_same_meeting(board: Board) -> None:
    body = {"boardId": board.id, "tier": 1, "attendeeIds": [board.org.owner_id]}
    first = await board.api.mutate("meetings.start", body, headers={"Idempotency-Key": "tablet-7-start"})
    retry = await board.api.mutate("meetings.start", body, headers={"Idempotency-Key": "tablet-7-start"})
    assert first.status == retry.status == 200, (first.body, retry.body)
    assert retry.data == first.data
    listed = await board.api.query("meetings.list", {"boardId": board.id})
    assert [m["id"] for m in listed.data["meetings"]] == [first.data["id"]]
    assert await board_seq(board) == first.data["seqAtStart"]


@pytest.mark.parametrize("procedure", ["meetings.start", "meetings.complete"])
async def test_a_meeting_write_racing_the_boards_deletion_is_404_and_the_deletion_commits(board: Board,
                                                                                         procedure: str) -> None:
    """The board actor deletes a board by deleting its row (and its meetings') and then appending
    `board.deleted` to the board's stream. A meeting write meanwhile must not hold the stream while it waits on
    those rows (a deadlock: one of the two aborted, possibly the deletion): it waits for the deletion and
    answers 404."""
    node = board.api.client.app[NODE]
    meeting = await start(board, tier=2)
    call = {"boardId": board.id, "tier": 1} if procedure == "meetings.start" else {"id": meeting["id"]}
    async with node.pool.acquire() as deleting:
        transaction = deleting.transaction()
        await transaction.start()
        await deleting.execute("DELETE FROM boards WHERE id = $1", board.id)  # the actor's turn, not yet committed
        writing = asyncio.ensure_future(board.api.mutate(procedure, call))
        while not await deleting.fetchval(  # the write now waits on the deletion's lock
                "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid)))",
                deleting.get_server_pid()):
            assert not writing.done(), writing.result().body
        await event_log.append_all(deleting, [(board.org.id, f"board:{board.id}", "board.deleted", {})])
        await transaction.commit()
    written = await writing
    assert written.status == 404, written.body
    assert await node.pool.fetchval("SELECT count(*) FROM meetings WHERE board_id = $1", board.id) == 0
