"""getToday lists the caller's active checklists of the current period (assigned to them, or to nobody in
particular) with whether they are done; getMissed lists every active checklist whose deadline hour the current
UTC hour is beyond and that has no completion in the current period."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from actors.runtime.clock import ManualClock
from tests.harness import Api
from tests.integration.boards.conftest import Board
from tests.integration.checklists.conftest import complete, create_checklist, move_to

TODAY_FIELDS = {"id", "name", "description", "frequency", "deadlineHour", "items", "isCompleted", "periodStart",
                "periodEnd"}
MISSED_FIELDS = {"id", "name", "frequency", "deadlineHour", "assigneeIds", "periodStart", "periodEnd"}


async def today(api: Api, board: Board) -> list[dict[str, Any]]:
    reply = await api.query("checklists.getToday", {"boardId": board.id})
    assert reply.status == 200, reply.body
    return list(reply.data)


async def missed(board: Board) -> list[str]:
    reply = await board.api.query("checklists.getMissed", {"boardId": board.id})
    assert reply.status == 200, reply.body
    assert all(set(entry) == MISSED_FIELDS for entry in reply.data)
    return [entry["name"] for entry in reply.data]


async def test_today_shows_what_applies_to_the_caller_with_its_state(board: Board) -> None:
    alice_id, alice = await board.org.add_user("member", name="Alice")
    bob_id, bob = await board.org.add_user("member", name="Bob")
    everyone = await create_checklist(board, name="Everyone", deadlineHour=9)
    for_alice = await create_checklist(board, name="Alice's", assigneeIds=[alice_id], frequency="weekly")
    await create_checklist(board, name="Bob's", assigneeIds=[bob_id], deadlineHour=8)
    retired = await create_checklist(board, name="Retired")
    await board.api.mutate("checklists.update", {"id": retired["id"], "isActive": False})

    alices = await today(alice, board)
    assert [c["name"] for c in alices] == ["Everyone", "Alice's"]  # by deadline hour
    assert all(set(c) == TODAY_FIELDS for c in alices)
    assert alices[0]["items"] == everyone["items"]
    assert (alices[1]["frequency"], alices[1]["deadlineHour"], alices[1]["isCompleted"]) == ("weekly", 17, False)
    assert [c["name"] for c in await today(bob, board)] == ["Bob's", "Everyone"]
    assert [c["name"] for c in await today(board.api, board)] == ["Everyone"]

    assert (await complete(alice, for_alice)).status == 200
    assert (await complete(bob, everyone)).status == 200
    assert [(c["name"], c["isCompleted"]) for c in await today(alice, board)] == [("Everyone", True),
                                                                                  ("Alice's", True)]
    assert [(c["name"], c["isCompleted"]) for c in await today(bob, board)] == [("Bob's", False), ("Everyone", True)]


async def test_today_needs_a_board_the_caller_sees(board: Board) -> None:
    _, guest = await board.org.add_user("guest")
    await create_checklist(board)
    reply = await guest.query("checklists.getToday", {"boardId": board.id})
    assert reply.status == 404
    missing = await board.api.query("checklists.getToday", {})
    assert (missing.status, missing.error["data"]["details"][0]["field"]) == (400, "boardId")


async def test_missed_after_the_deadline_hour_until_completed(board: Board, clock: ManualClock) -> None:
    member_id, member = await board.org.add_user("member")
    start_up = await create_checklist(board, name="Start-up", deadlineHour=17)
    assigned = await create_checklist(board, name="Assigned", deadlineHour=12, assigneeIds=[member_id])
    await create_checklist(board, name="Late", deadlineHour=23)
    retired = await create_checklist(board, name="Retired", deadlineHour=0)
    await board.api.mutate("checklists.update", {"id": retired["id"], "isActive": False})

    assert await missed(board) == []  # 10:00
    move_to(clock, datetime(2026, 11, 18, 12, 59, tzinfo=UTC))
    assert await missed(board) == []  # the deadline hour itself is not past
    move_to(clock, datetime(2026, 11, 18, 13, 0, tzinfo=UTC))
    assert await missed(board) == ["Assigned"]  # for the whole board, whoever it is assigned to
    move_to(clock, datetime(2026, 11, 18, 17, 59, tzinfo=UTC))
    assert await missed(board) == ["Assigned"]
    move_to(clock, datetime(2026, 11, 18, 18, 0, tzinfo=UTC))
    reply = await board.api.query("checklists.getMissed", {"boardId": board.id})
    assert [(c["name"], c["deadlineHour"], c["frequency"]) for c in reply.data] == [
        ("Assigned", 12, "daily"), ("Start-up", 17, "daily")]
    assert reply.data[0]["assigneeIds"] == [member_id]
    assert reply.data[1]["periodStart"] == "2026-11-18T00:00:00.000Z"

    assert (await complete(member, assigned)).status == 200
    assert await missed(board) == ["Start-up"]
    assert (await complete(board.api, start_up)).status == 200
    assert await missed(board) == []

    # A new day: nothing is past its deadline at 01:00, then the same checklists are due again.
    move_to(clock, datetime(2026, 11, 19, 1, 0, tzinfo=UTC))
    assert await missed(board) == []
    move_to(clock, datetime(2026, 11, 19, 18, 0, tzinfo=UTC))
    assert await missed(board) == ["Assigned", "Start-up"]
