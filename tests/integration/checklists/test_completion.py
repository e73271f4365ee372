"""Completing a checklist: required items, unknown and repeated items, one completion per period even under
concurrency, inactive and unassigned checklists, guests, and the `checklist.completed` board event."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from actors.runtime.clock import ManualClock
from tests.integration.boards.conftest import Board
from tests.integration.checklists.conftest import START, all_checked, complete, create_checklist, move_to

COMPLETION_FIELDS = {"id", "checklistId", "completedById", "date", "periodStart", "completedAt", "responses"}


async def test_a_completion_records_the_responses_and_the_period(board: Board) -> None:
    checklist = await create_checklist(board)
    guards, oil, swept = checklist["items"]
    reply = await complete(board.api, checklist, [
        {"itemId": guards["id"], "checked": True, "comment": "Light curtain tested"},
        {"itemId": oil["id"], "checked": True},
        {"itemId": swept["id"], "checked": False, "comment": "Sweeper broken"}])
    assert reply.status == 200, reply.body
    completion = reply.data
    assert set(completion) == COMPLETION_FIELDS
    assert completion["id"].startswith("comp_")
    assert (completion["checklistId"], completion["completedById"]) == (checklist["id"], board.org.owner_id)
    assert (completion["date"], completion["periodStart"], completion["completedAt"]) == (
        "2026-11-18", "2026-11-18T00:00:00.000Z", "2026-11-18T10:00:00.000Z")
    assert completion["responses"] == [
        {"itemId": guards["id"], "checked": True, "comment": "Light curtain tested"},
        {"itemId": oil["id"], "checked": True, "comment": None},
        {"itemId": swept["id"], "checked": False, "comment": "Sweeper broken"}]
    history = await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"]})
    assert history.data["items"] == [completion]


async def test_every_required_item_must_be_checked(board: Board) -> None:
    checklist = await create_checklist(board)
    guards, oil, swept = checklist["items"]
    reply = await complete(board.api, checklist, [{"itemId": guards["id"], "checked": True},
                                                  {"itemId": swept["id"], "checked": True}])
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"] == [
        {"field": "responses", "message": f"required item {oil['id']} (Oil level checked) must be checked"}]
    assert reply.error["data"]["missingItemIds"] == [oil["id"]]
    assert "Oil level checked" in reply.error["message"]

    unchecked = await complete(board.api, checklist, [{"itemId": guards["id"], "checked": False},
                                                      {"itemId": oil["id"], "checked": False}])
    assert unchecked.status == 400
    assert unchecked.error["data"]["missingItemIds"] == [guards["id"], oil["id"]]
    # Nothing was stored: the period is still open.
    assert (await complete(board.api, checklist,
                           [{"itemId": guards["id"], "checked": True}, {"itemId": oil["id"], "checked": True}])
            ).status == 200


async def test_unknown_and_repeated_items_are_refused(board: Board) -> None:
    checklist = await create_checklist(board)
    unknown = await complete(board.api, checklist, [*all_checked(checklist), {"itemId": "cli_other",
                                                                              "checked": True}])
    assert unknown.status == 400
    assert unknown.error["data"]["details"] == [{"field": "responses.3.itemId",
                                                 "message": "is not an item of this checklist"}]
    repeated = await complete(board.api, checklist, [*all_checked(checklist), all_checked(checklist)[0]])
    assert repeated.status == 400
    assert repeated.error["data"]["details"] == [{"field": "responses.3.itemId", "message": "is answered twice"}]


async def test_bad_input_is_400_naming_the_field(board: Board) -> None:
    checklist = await create_checklist(board)
    for body, field in [({"checklistId": checklist["id"], "responses": []}, "responses"),
                        ({"checklistId": checklist["id"]}, "responses"),
                        ({"responses": all_checked(checklist)}, "checklistId"),
                        ({"checklistId": checklist["id"], "responses": [{"itemId": "x", "checked": "yes"}]},
                         "responses.0.checked"),
                        ({"checklistId": checklist["id"],
                          "responses": [{"itemId": "x", "checked": True, "comment": "c" * 2001}]},
                         "responses.0.comment")]:
        reply = await board.api.mutate("checklists.complete", body)
        assert reply.status == 400, (body, reply.body)
        assert reply.error["data"]["details"][0]["field"] == field
    # A missing field inside a response is named by the response and the field's name.
    reply = await board.api.mutate("checklists.complete", {"checklistId": checklist["id"],
                                                           "responses": [{"itemId": "x"}]})
    assert reply.status == 400
    [detail] = reply.error["data"]["details"]
    assert detail["field"] == "responses.0" and "`checked`" in detail["message"]


async def test_one_completion_per_period_then_again_in_the_next(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board)
    assert (await complete(board.api, checklist)).status == 200
    again = await complete(board.api, checklist)
    assert again.status == 409, again.body
    assert again.error["data"]["code"] == "CONFLICT"
    assert (again.error["data"]["periodStart"], again.error["data"]["periodEnd"]) == (
        "2026-11-18T00:00:00.000Z", "2026-11-19T00:00:00.000Z")
    # Another member cannot complete it for the same period either.
    _, member = await board.org.add_user("member")
    assert (await complete(member, checklist)).status == 409

    move_to(clock, datetime(2026, 11, 19, 0, 0, tzinfo=START.tzinfo))
    next_day = await complete(member, checklist)
    assert next_day.status == 200, next_day.body
    assert next_day.data["date"] == "2026-11-19"
    history = await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"]})
    assert [c["date"] for c in history.data["items"]] == ["2026-11-19", "2026-11-18"]


async def test_two_concurrent_completions_of_one_period_one_wins(board: Board) -> None:
    _, member = await board.org.add_user("member")
    for round_ in range(5):
        checklist = await create_checklist(board, name=f"Race {round_}")
        replies = await asyncio.gather(complete(board.api, checklist), complete(member, checklist))
        assert sorted(reply.status for reply in replies) == [200, 409], [r.body for r in replies]
        history = await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"]})
        assert history.data["total"] == 1


async def test_an_inactive_checklist_cannot_be_completed(board: Board) -> None:
    checklist = await create_checklist(board)
    await board.api.mutate("checklists.update", {"id": checklist["id"], "isActive": False})
    reply = await complete(board.api, checklist)
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"] == [{"field": "checklistId", "message": "the checklist is inactive"}]
    await board.api.mutate("checklists.update", {"id": checklist["id"], "isActive": True})
    assert (await complete(board.api, checklist)).status == 200


async def test_only_the_assignees_complete_an_assigned_checklist(board: Board) -> None:
    assignee_id, assignee = await board.org.add_user("member")
    _, bystander = await board.org.add_user("member")
    checklist = await create_checklist(board, assigneeIds=[assignee_id])
    refused = await complete(bystander, checklist)
    assert refused.status == 403, refused.body
    assert (await complete(board.api, checklist)).status == 403  # the owner is not an assignee either
    done = await complete(assignee, checklist)
    assert done.status == 200, done.body
    assert done.data["completedById"] == assignee_id


async def test_a_guest_who_sees_the_board_completes_a_checklist_that_applies_to_them(board: Board) -> None:
    checklist = await create_checklist(board)
    guest_id, guest = await board.org.add_user("guest")
    assert (await complete(guest, checklist)).status == 404  # the board is not shared with the guest yet
    project = await board.api.query("projects.get", {"id": board.project_id})
    added = await board.api.mutate("workspaces.members.add", {"workspaceId": project.data["workspaceId"],
                                                              "userId": guest_id})
    assert added.status == 200, added.body
    done = await complete(guest, checklist)
    assert done.status == 200, done.body
    assert done.data["completedById"] == guest_id


async def test_a_completion_is_announced_on_the_board_stream(board: Board) -> None:
    checklist = await create_checklist(board)
    completion = (await complete(board.api, checklist)).data
    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    assert feed.status == 200, feed.body
    [event] = [e for e in feed.data["events"] if e["event"] == "checklist.completed"]
    assert event["data"]["checklist"] == {"id": checklist["id"], "name": checklist["name"], "boardId": board.id,
                                          "frequency": "daily"}
    assert event["data"]["completion"] == completion
    assert event["data"]["actor"]["id"] == board.org.owner_id
    assert event["timestamp"] == completion["completedAt"]


async def test_the_completion_time_is_the_servers_clock(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board)
    clock.advance(timedelta(hours=3, minutes=25, seconds=1.5).total_seconds())
    reply = await complete(board.api, checklist)
    assert reply.data["completedAt"] == "2026-11-18T13:25:01.500Z"
    assert reply.data["date"] == "2026-11-18"
