"""Checklist templates: create with its defaults and limits, update (item ids kept or new), delete with the
completions, list with the active filter, who may manage them, the activity trail, tenancy."""

from __future__ import annotations

from typing import Any

import pytest

from actors.runtime.clock import ManualClock
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.checklists.conftest import ITEMS, START, complete, create_checklist

TEMPLATE_FIELDS = {"id", "boardId", "name", "description", "frequency", "items", "assigneeIds", "deadlineHour",
                   "isActive", "createdBy", "createdAt", "updatedAt"}


async def test_create_answers_the_template_with_item_ids_and_defaults(board: Board) -> None:
    checklist = await create_checklist(board)
    assert set(checklist) == TEMPLATE_FIELDS
    assert checklist["id"].startswith("cl_")
    assert (checklist["boardId"], checklist["name"], checklist["frequency"]) == (board.id, "Press 4 start-up",
                                                                                  "daily")
    assert [(item["text"], item["required"]) for item in checklist["items"]] == [
        ("Guards in place", True), ("Oil level checked", True), ("Area swept", False)]
    assert len({item["id"] for item in checklist["items"]}) == 3
    assert (checklist["description"], checklist["assigneeIds"], checklist["deadlineHour"], checklist["isActive"]) == (
        None, [], 17, True)
    assert checklist["createdBy"] == board.org.owner_id
    assert checklist["createdAt"] == "2026-11-18T10:00:00.000Z" == START.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    member_id, _ = await board.org.add_user("member")
    assigned = await create_checklist(board, name="Weekly 5S walk", frequency="weekly", deadlineHour=9,
                                      description="Walk the line", assigneeIds=[member_id, member_id])
    assert (assigned["assigneeIds"], assigned["deadlineHour"], assigned["description"]) == (
        [member_id], 9, "Walk the line")


@pytest.mark.parametrize(("change", "field"), [
    ({"name": ""}, "name"),
    ({"name": "x" * 201}, "name"),
    ({"description": "x" * 2001}, "description"),
    ({"frequency": "hourly"}, "frequency"),
    ({"items": []}, "items"),
    ({"items": [{"text": ""}]}, "items.0.text"),
    ({"items": [{"text": "Ok", "required": "yes"}]}, "items.0.required"),
    ({"items": [{"id": "cli_made_up", "text": "Invented id"}]}, "items.0.id"),
    ({"deadlineHour": 24}, "deadlineHour"),
    ({"deadlineHour": -1}, "deadlineHour"),
    ({"assigneeIds": ["usr_nobody"]}, "assigneeIds"),
    ({"boardId": None}, "boardId"),
])
async def test_bad_input_is_400_naming_the_field(board: Board, change: dict[str, Any], field: str) -> None:
    body = {"boardId": board.id, "name": "Start-up", "frequency": "daily", "items": ITEMS, **change}
    reply = await board.api.mutate("checklists.create", body)
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"][0]["field"] == field
    assert (await board.api.query("checklists.list", {"boardId": board.id})).data == []


async def test_missing_required_fields_are_named(board: Board) -> None:
    reply = await board.api.mutate("checklists.create", {"boardId": board.id})
    assert reply.status == 400
    assert {d["field"] for d in reply.error["data"]["details"]} == {"name", "frequency", "items"}


async def test_an_assignee_must_be_an_active_member_of_this_organization(board: Board) -> None:
    other = await make_org(board.org.anonymous.client)
    reply = await board.api.mutate("checklists.create", {"boardId": board.id, "name": "Start-up",
                                                         "frequency": "daily", "items": ITEMS,
                                                         "assigneeIds": [other.owner_id]})
    assert reply.status == 400
    assert reply.error["data"]["details"] == [
        {"field": "assigneeIds", "message": f"not members of the organization: {other.owner_id}"}]


async def test_update_keeps_the_ids_of_items_given_with_one_and_gives_new_ones_new_ids(board: Board) -> None:
    checklist = await create_checklist(board)
    guards, oil, swept = checklist["items"]
    reply = await board.api.mutate("checklists.update", {"id": checklist["id"], "items": [
        {"id": oil["id"], "text": "Oil level between the marks"},
        {"text": "Emergency stop tested"},
        {"id": guards["id"], "text": guards["text"], "required": False}]})
    assert reply.status == 200, reply.body
    items = reply.data["items"]
    assert [(item["text"], item["required"]) for item in items] == [
        ("Oil level between the marks", True), ("Emergency stop tested", True), ("Guards in place", False)]
    assert (items[0]["id"], items[2]["id"]) == (oil["id"], guards["id"])
    assert items[1]["id"] not in {guards["id"], oil["id"], swept["id"]}

    # The removed item's id is no longer one of the checklist's.
    gone = await board.api.mutate("checklists.update", {"id": checklist["id"], "items": [
        {"id": swept["id"], "text": "Area swept"}]})
    assert gone.status == 400
    assert gone.error["data"]["details"] == [{"field": "items.0.id", "message": "is not an item of this checklist"}]
    twice = await board.api.mutate("checklists.update", {"id": checklist["id"], "items": [
        {"id": oil["id"], "text": "a"}, {"id": oil["id"], "text": "b"}]})
    assert twice.status == 400
    assert twice.error["data"]["details"] == [{"field": "items.1.id", "message": "is given twice"}]


async def test_update_changes_only_the_given_fields(board: Board) -> None:
    checklist = await create_checklist(board)
    member_id, _ = await board.org.add_user("member")
    reply = await board.api.mutate("checklists.update", {
        "id": checklist["id"], "name": "Press 4 shift start", "frequency": "shift", "deadlineHour": 7,
        "assigneeIds": [member_id], "description": "Before the first part", "isActive": False})
    assert reply.status == 200, reply.body
    updated = reply.data
    assert set(updated) == TEMPLATE_FIELDS
    assert (updated["name"], updated["frequency"], updated["deadlineHour"], updated["assigneeIds"],
            updated["description"], updated["isActive"]) == (
        "Press 4 shift start", "shift", 7, [member_id], "Before the first part", False)
    assert updated["items"] == checklist["items"]

    nothing = await board.api.mutate("checklists.update", {"id": checklist["id"]})
    assert nothing.status == 400
    assert nothing.error["data"]["details"][0]["field"] == "input"
    bad = await board.api.mutate("checklists.update", {"id": checklist["id"], "deadlineHour": 30})
    assert (bad.status, bad.error["data"]["details"][0]["field"]) == (400, "deadlineHour")
    missing = await board.api.mutate("checklists.update", {"id": "cl_missing", "name": "x"})
    assert missing.status == 404


async def test_list_is_newest_first_and_filters_by_active(board: Board, clock: ManualClock) -> None:
    first = await create_checklist(board, name="First")
    clock.advance(1)
    second = await create_checklist(board, name="Second")
    await board.api.mutate("checklists.update", {"id": first["id"], "isActive": False})

    listed = await board.api.query("checklists.list", {"boardId": board.id})
    assert listed.status == 200, listed.body
    assert [c["name"] for c in listed.data] == ["Second", "First"]
    assert all(set(c) == TEMPLATE_FIELDS for c in listed.data)
    active = await board.api.query("checklists.list", {"boardId": board.id, "isActive": True})
    assert [c["id"] for c in active.data] == [second["id"]]
    inactive = await board.api.query("checklists.list", {"boardId": board.id, "isActive": False})
    assert [c["id"] for c in inactive.data] == [first["id"]]
    assert (await board.api.query("checklists.list", {})).error["data"]["details"][0]["field"] == "boardId"


async def test_delete_removes_the_template_and_its_completions(board: Board) -> None:
    checklist = await create_checklist(board)
    assert (await complete(board.api, checklist)).status == 200
    deleted = await board.api.mutate("checklists.delete", {"id": checklist["id"]})
    assert deleted.status == 200, deleted.body
    assert deleted.data == {"success": True, "id": checklist["id"]}
    assert (await board.api.query("checklists.list", {"boardId": board.id})).data == []
    history = await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"]})
    assert history.status == 404
    assert (await board.api.mutate("checklists.delete", {"id": checklist["id"]})).status == 404


async def test_completions_go_with_their_template(board: Board, pool: Any) -> None:
    checklist = await create_checklist(board)
    assert (await complete(board.api, checklist)).status == 200
    assert await pool.fetchval("SELECT count(*) FROM checklist_completions WHERE checklist_id = $1",
                               checklist["id"]) == 1
    await board.api.mutate("checklists.delete", {"id": checklist["id"]})
    assert await pool.fetchval("SELECT count(*) FROM checklist_completions WHERE checklist_id = $1",
                               checklist["id"]) == 0


async def test_every_change_is_in_the_activity_trail(board: Board) -> None:
    checklist = await create_checklist(board)
    await board.api.mutate("checklists.update", {"id": checklist["id"], "name": "Renamed", "deadlineHour": 8})
    await complete(board.api, checklist)
    await board.api.mutate("checklists.delete", {"id": checklist["id"]})
    trail = await board.api.query("activity.listByEntity", {"entityType": "checklist", "entityId": checklist["id"]})
    assert trail.status == 200, trail.body
    entries = trail.data["entries"]
    assert [e["action"] for e in entries] == ["checklist.deleted", "checklist.completed", "checklist.updated",
                                              "checklist.created"]
    assert all(e["actor"]["id"] == board.org.owner_id for e in entries)
    assert entries[2]["metadata"]["changes"] == {"name": {"old": "Press 4 start-up", "new": "Renamed"},
                                                 "deadlineHour": {"old": 17, "new": 8}}
    assert entries[0]["metadata"]["completionsDeleted"] == 1
    assert entries[1]["metadata"]["date"] == "2026-11-18"


async def test_templates_are_managed_by_members_and_up(board: Board) -> None:
    checklist = await create_checklist(board)
    _, member = await board.org.add_user("member")
    _, guest = await board.org.add_user("guest")
    assert (await create_checklist(board, member, name="By a member"))["createdBy"] != board.org.owner_id
    for reply in (await guest.mutate("checklists.create", {"boardId": board.id, "name": "x", "frequency": "daily",
                                                          "items": ITEMS}),
                  await guest.mutate("checklists.update", {"id": checklist["id"], "name": "x"}),
                  await guest.mutate("checklists.delete", {"id": checklist["id"]})):
        assert reply.status == 403, reply.body


async def test_another_organizations_checklists_and_boards_are_404(board: Board) -> None:
    checklist = await create_checklist(board)
    other = await make_org(board.org.anonymous.client)
    other_board = await make_board(other)
    stranger = other.owner
    for name, body in [("checklists.list", {"boardId": board.id}),
                       ("checklists.getToday", {"boardId": board.id}),
                       ("checklists.getMissed", {"boardId": board.id}),
                       ("checklists.getCompletionHistory", {"checklistId": checklist["id"]}),
                       ("checklists.getCompletionRate", {"checklistId": checklist["id"], "startDate": "2026-11-01",
                                                         "endDate": "2026-11-30"})]:
        reply = await stranger.query(name, body)
        assert (reply.status, reply.error["data"]["code"]) == (404, "NOT_FOUND"), name
    for name, body in [("checklists.create", {"boardId": board.id, "name": "x", "frequency": "daily",
                                              "items": ITEMS}),
                       ("checklists.update", {"id": checklist["id"], "name": "Taken over"}),
                       ("checklists.delete", {"id": checklist["id"]}),
                       ("checklists.complete", {"checklistId": checklist["id"],
                                                "responses": [{"itemId": checklist["items"][0]["id"],
                                                               "checked": True}]})]:
        reply = await stranger.mutate(name, body)
        assert (reply.status, reply.error["data"]["code"]) == (404, "NOT_FOUND"), name
    # Its own board does not reveal the other organization's checklists either.
    assert (await stranger.query("checklists.list", {"boardId": other_board.id})).data == []
    assert (await board.api.query("checklists.list", {"boardId": board.id})).data[0]["name"] == "Press 4 start-up"


async def test_a_board_deleted_by_another_node_is_not_found(board: Board, pool: Any) -> None:
    """This node still remembers for a few seconds that the caller may see the board when another node deletes
    it: creating a checklist there is 404, not a server error."""
    assert (await board.api.query("checklists.list", {"boardId": board.id})).status == 200
    await pool.execute("DELETE FROM boards WHERE id = $1", board.id)
    reply = await board.api.mutate("checklists.create", {"boardId": board.id, "name": "Late", "frequency": "daily",
                                                         "items": ITEMS})
    assert (reply.status, reply.error["data"]["code"]) == (404, "NOT_FOUND"), reply.body
