"""actions.create, getById, update and delete: the shapes, the status moves and their effects, the events,
the assignment notifications, the activity trail, validation naming the field, and who may do what."""

from __future__ import annotations

import pytest

from tests.harness import make_org
from tests.integration.actions.conftest import (
    DUE,
    action_input,
    board_events,
    create,
    field_of,
    get,
    notifications,
    trail,
    update,
)
from tests.integration.boards.conftest import Board, make_board


async def test_create_opens_an_action_notifies_the_assignee_and_emits_action_created(board: Board) -> None:
    fixer_id, fixer = await board.org.add_user("member", name="Fred Fixer")
    action = await create(board, assigneeId=fixer_id, description="Guard *loose*", category="safety",
                          sourceType="gemba", sourceId="walk_1")
    assert action["id"].startswith("act_")
    assert action["status"] == "open" and action["title"] == "Fix the guard on press 4"
    assert action["priority"] == "high" and action["dueDate"] == DUE
    assert action["assignee"] == {"id": fixer_id, "name": "Fred Fixer"} and action["assigneeId"] == fixer_id
    assert (action["boardId"], action["category"], action["sourceType"], action["sourceId"]) == (
        board.id, "safety", "gemba", "walk_1")
    assert action["description"] == "Guard *loose*"
    assert action["escalationLevel"] == 0 and action["isEscalated"] is False and action["isOverdue"] is False
    assert action["rootCauseId"] is None and action["completedAt"] is None and action["version"] == 1
    assert action["createdAt"].endswith("Z") and action["createdById"] == board.org.owner_id

    assert await get(board, action["id"]) == action | {"escalations": []}
    [event] = await board_events(board)
    assert event["event"] == "action.created" and event["data"]["action"] == action
    assert event["data"]["actor"]["id"] == board.org.owner_id
    [note] = await notifications(fixer, "action_assigned")
    assert (note["entityType"], note["entityId"], note["body"]) == ("action", action["id"], action["title"])
    assert await trail(board, action["id"]) == ["action.created"]


async def test_assigning_oneself_notifies_nobody_and_source_type_defaults_to_manual(board: Board) -> None:
    action = await create(board)
    assert action["sourceType"] == "manual" and action["category"] is None and action["description"] is None
    assert await notifications(board.api, "action_assigned") == []


@pytest.mark.parametrize(("field", "value"), [
    ("title", ""), ("title", "x" * 501), ("title", "   "), ("priority", "urgent"), ("dueDate", "30/06/2030"),
    ("dueDate", "2030-02-30"), ("assigneeId", "usr_nobody"), ("category", "morale"), ("sourceType", "email"),
])
async def test_bad_input_is_400_naming_the_field(board: Board, field: str, value: str) -> None:
    reply = await board.api.mutate("actions.create", action_input(board, **{field: value}))
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST" and field_of(reply) == field


async def test_missing_required_fields_are_named(board: Board) -> None:
    reply = await board.api.mutate("actions.create", {"boardId": board.id, "title": "No owner"})
    assert reply.status == 400
    assert {d["field"] for d in reply.error["data"]["details"]} == {"priority", "assigneeId", "dueDate"}
    assert (await board.api.mutate("actions.create", action_input(board, title="x" * 500))).status == 200


async def test_an_assignee_from_another_organization_is_refused(board: Board) -> None:
    other = await make_org(board.org.owner.client)
    reply = await board.api.mutate("actions.create", action_input(board, assigneeId=other.owner_id))
    assert reply.status == 400 and field_of(reply) == "assigneeId"


async def test_update_changes_fields_and_emits_action_updated_with_the_changes(board: Board) -> None:
    action = await create(board)
    updated = await update(board, action["id"], title="Replace the guard", priority="critical",
                           dueDate="2030-07-15", description="New part ordered")
    assert (updated["title"], updated["priority"], updated["dueDate"], updated["description"]) == (
        "Replace the guard", "critical", "2030-07-15", "New part ordered")
    assert updated["version"] == 2 and updated["status"] == "open"
    cleared = await update(board, action["id"], description=None)
    assert cleared["description"] is None and cleared["title"] == "Replace the guard"

    events = await board_events(board)
    assert [e["event"] for e in events] == ["action.created", "action.updated", "action.updated"]
    assert events[1]["data"]["changes"] == {
        "title": {"old": "Fix the guard on press 4", "new": "Replace the guard"},
        "priority": {"old": "high", "new": "critical"}, "dueDate": {"old": DUE, "new": "2030-07-15"},
        "description": {"old": None, "new": "New part ordered"}}
    assert events[2]["data"]["action"] == cleared
    assert await trail(board, action["id"]) == ["action.created", "action.updated", "action.updated"]


async def test_status_moves_complete_and_reopen_an_action(board: Board) -> None:
    action = await create(board)
    started = await update(board, action["id"], status="in_progress")
    assert started["status"] == "in_progress" and started["completedAt"] is None
    done = await update(board, action["id"], status="completed")
    assert done["status"] == "completed" and done["completedAt"] is not None
    reopened = await update(board, action["id"], status="open")
    assert reopened["completedAt"] is None
    closed = await update(board, action["id"], status="closed")
    assert closed["status"] == "closed" and closed["completedAt"] is None
    verified = await update(board, action["id"], status="verified")
    assert verified["status"] == "verified" and verified["verifiedAt"] is not None
    assert verified["completedAt"] is not None and verified["verifiedById"] == board.org.owner_id

    names = [e["event"] for e in await board_events(board)]
    assert names == ["action.created", "action.updated", "action.updated", "action.completed", "action.updated",
                     "action.updated", "action.updated"]
    completed = [e for e in await board_events(board) if e["event"] == "action.completed"]
    assert completed[0]["data"]["action"]["status"] == "completed"
    assert (await trail(board, action["id"]))[1:] == ["action.status_changed"] * 5


async def test_reassigning_notifies_the_new_assignee_only(board: Board) -> None:
    first_id, first = await board.org.add_user("member")
    second_id, second = await board.org.add_user("member", name="Sam Second")
    action = await create(board, assigneeId=first_id)
    moved = await update(board, action["id"], assigneeId=second_id)
    assert moved["assignee"] == {"id": second_id, "name": "Sam Second"}
    assert len(await notifications(first, "action_assigned")) == 1
    [note] = await notifications(second, "action_assigned")
    assert note["entityId"] == action["id"]
    [changed] = [e for e in await board_events(board) if e["event"] == "action.updated"]
    assert changed["data"]["changes"] == {"assigneeId": {"old": first_id, "new": second_id}}

    bad = await board.api.mutate("actions.update", {"id": action["id"], "assigneeId": "usr_gone"})
    assert bad.status == 400 and field_of(bad) == "assigneeId"


async def test_a_stale_expected_version_is_a_conflict(board: Board) -> None:
    action = await create(board)
    await update(board, action["id"], title="Second", expectedVersion=1)
    stale = await board.api.mutate("actions.update", {"id": action["id"], "title": "Third", "expectedVersion": 1})
    assert stale.status == 409 and stale.error["data"]["currentVersion"] == 2
    assert (await get(board, action["id"]))["title"] == "Second"


async def test_update_refuses_bad_values_and_an_empty_change(board: Board) -> None:
    action = await create(board)
    for field, value in (("status", "done"), ("priority", "urgent"), ("dueDate", "tomorrow"), ("title", "")):
        reply = await board.api.mutate("actions.update", {"id": action["id"], field: value})
        assert reply.status == 400 and field_of(reply) == field, (field, reply.body)
    for field in ("title", "status", "priority", "assigneeId", "dueDate"):  # only `description` can be cleared
        reply = await board.api.mutate("actions.update", {"id": action["id"], "title": "Renamed", field: None})
        assert reply.status == 400 and field_of(reply) == field, (field, reply.body)
    empty = await board.api.mutate("actions.update", {"id": action["id"]})
    assert empty.status == 400
    same = await update(board, action["id"], title=action["title"])
    assert same["version"] == 1 and len(await board_events(board)) == 1


async def test_delete_removes_the_action(board: Board) -> None:
    action = await create(board)
    deleted = await board.api.mutate("actions.delete", {"id": action["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": action["id"]}
    assert (await board.api.query("actions.getById", {"id": action["id"]})).status == 404
    assert (await board.api.mutate("actions.delete", {"id": action["id"]})).status == 404
    assert [e["event"] for e in await board_events(board)] == ["action.created", "action.deleted"]
    assert await trail(board, action["id"]) == ["action.created", "action.deleted"]


async def test_another_organization_sees_nothing(board: Board) -> None:
    action = await create(board)
    other = await make_board(await make_org(board.org.owner.client))
    for reply in (await other.api.query("actions.getById", {"id": action["id"]}),
                  await other.api.mutate("actions.update", {"id": action["id"], "title": "Mine"}),
                  await other.api.mutate("actions.delete", {"id": action["id"]}),
                  await other.api.query("actions.list", {"boardId": board.id}),
                  await other.api.query("actions.getStats", {"boardId": board.id}),
                  await other.api.mutate("actions.create", action_input(board, assigneeId=other.org.owner_id))):
        assert reply.status == 404, reply.body
    assert (await get(board, action["id"]))["title"] == action["title"]


async def test_guests_are_refused_writes_and_members_need_the_board(board: Board) -> None:
    action = await create(board)
    _, guest = await board.org.add_user("guest")
    target = board.org.owner_id
    for name, data in (("actions.create", action_input(board)), ("actions.update", {"id": action["id"], "title": "x"}),
                       ("actions.delete", {"id": action["id"]}),
                       ("actions.escalate", {"id": action["id"], "reason": "r", "escalateToUserId": target}),
                       ("actions.deescalate", {"id": action["id"], "reason": "r"}),
                       ("actions.verify", {"id": action["id"], "verified": True})):
        reply = await guest.mutate(name, data)
        assert reply.status == 403 and reply.error["data"]["code"] == "FORBIDDEN", name

    closed = await board.api.mutate("workspaces.create", {"name": "Closed", "visibility": "closed"})
    project = await board.api.mutate("projects.create", {"workspaceId": closed.data["id"], "name": "Secret"})
    hidden = await board.api.mutate("boards.create", {"projectId": project.data["id"], "name": "Hidden"})
    secret = await board.api.mutate("actions.create", action_input(board, boardId=hidden.data["id"]))
    _, member = await board.org.add_user("member")
    assert (await member.mutate("actions.create", action_input(board, boardId=hidden.data["id"]))).status == 404
    assert (await member.query("actions.getById", {"id": secret.data["id"]})).status == 404
    assert (await member.query("actions.getById", {"id": action["id"]})).status == 200


async def test_api_keys_need_the_action_scopes(board: Board) -> None:
    async def key(*scopes: str) -> str:
        reply = await board.api.mutate("apiKeys.create", {"name": "line", "scopes": list(scopes)})
        assert reply.status == 200, reply.body
        return str(reply.data["key"])

    reader = board.api.with_bearer(await key("read:actions"))
    writer = board.api.with_bearer(await key("write:actions"))
    assert (await reader.query("actions.list", {"boardId": board.id})).status == 200
    assert (await reader.mutate("actions.create", action_input(board))).status == 403
    assert (await writer.mutate("actions.create", action_input(board))).status == 200
    assert (await writer.query("actions.list", {"boardId": board.id})).status == 200
    assert (await writer.mutate("actions.delete", {"id": "acn_missing"})).status == 404
    assert (await reader.mutate("actions.delete", {"id": "acn_missing"})).status == 403
    kpis_only = board.api.with_bearer(await key("read:kpis"))
    assert (await kpis_only.query("actions.list", {"boardId": board.id})).status == 403
