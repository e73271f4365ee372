"""Audit checklists: create with server-made item ids and the default maxScore, read one,
list a board's; bad input is 400 naming the field; another organization's checklist is 404; creating needs
the member role."""

from __future__ import annotations

from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.audits.conftest import QUESTIONS, make_checklist
from tests.integration.boards.conftest import Board, make_board


async def test_create_get_and_list(board: Board) -> None:
    created = await make_checklist(board)
    assert created["id"].startswith("chk_")
    assert created["boardId"] == board.id and created["name"] == "Weekly 5S walk" and created["type"] == "5s"
    assert [(item["question"], item["category"], item["maxScore"]) for item in created["items"]] == [
        (q["question"], q["category"], q.get("maxScore", 5)) for q in QUESTIONS]
    ids = [item["id"] for item in created["items"]]
    assert len(set(ids)) == 4 and all(item_id.startswith("aqi_") for item_id in ids)
    assert created["maxScore"] == 25
    assert created["createdBy"] == board.org.owner_id

    got = await board.api.query("audits.getChecklist", {"id": created["id"]})
    assert got.status == 200 and got.data == created

    later = await make_checklist(board, items=[{"question": "Standards posted?", "category": "standardize"}],
                                 name="Daily")
    listed = await board.api.query("audits.listChecklists", {"boardId": board.id})
    assert listed.status == 200
    assert [c["id"] for c in listed.data] == [later["id"], created["id"]]
    assert listed.data[0]["items"][0]["maxScore"] == 5


async def test_every_mutation_is_on_the_activity_trail(board: Board) -> None:
    created = await make_checklist(board)
    trail = await board.api.query("activity.listByEntity", {"entityType": "audit_checklist",
                                                            "entityId": created["id"]})
    assert trail.status == 200
    [entry] = trail.data["entries"]
    assert entry["action"] == "audit_checklist.created" and entry["actor"]["id"] == board.org.owner_id
    assert entry["metadata"] == {"boardId": board.id, "name": "Weekly 5S walk", "items": 4}


async def test_bad_input_is_400_naming_the_field(board: Board) -> None:
    valid = {"boardId": board.id, "name": "Walk", "type": "5s", "items": QUESTIONS}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"items": []}, "items"),
        ({"items": [{"question": "Clean?", "category": "tidy"}]}, "items.0.category"),
        ({"items": [QUESTIONS[0], {"question": "Clean?", "category": "shine", "maxScore": 0}]}, "items.1.maxScore"),
        ({"items": [{"question": "Clean?", "category": "shine", "maxScore": 101}]}, "items.0.maxScore"),
        ({"items": [{"question": "", "category": "shine"}]}, "items.0.question"),
        ({"items": [{"question": "   ", "category": "shine"}]}, "items.0.question"),
        ({"items": [{"question": "x" * 490, "category": "shine"}]}, "items.0.question"),
        ({"name": ""}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "n" * 201}, "name"),
        ({"type": "t" * 51}, "type"),
        ({"type": None}, "type"),
    ]
    for change, field in cases:
        reply = await board.api.mutate("audits.createChecklist", {**valid, **change})
        assert reply.status == 400, (change, reply.body)
        assert reply.error["data"]["code"] == "BAD_REQUEST"
        assert reply.error["data"]["details"][0]["field"] == field, (change, reply.body)
    missing = await board.api.mutate("audits.createChecklist", {"boardId": board.id, "name": "Walk", "type": "5s"})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "items"
    listed = await board.api.query("audits.listChecklists", {"boardId": board.id})
    assert listed.data == []


async def test_another_organizations_checklist_and_board_are_not_found(client: TestClient, board: Board) -> None:
    created = await make_checklist(board)
    other = await make_org(client)
    assert (await other.owner.query("audits.getChecklist", {"id": created["id"]})).status == 404
    assert (await other.owner.query("audits.listChecklists", {"boardId": board.id})).status == 404
    refused = await other.owner.mutate("audits.createChecklist", {"boardId": board.id, "name": "Walk", "type": "5s",
                                                                  "items": QUESTIONS})
    assert refused.status == 404
    other_board = await make_board(other)
    assert (await other.owner.query("audits.listChecklists", {"boardId": other_board.id})).data == []


async def test_creating_needs_the_member_role(board: Board) -> None:
    _, guest = await board.org.add_user("guest")
    refused = await guest.mutate("audits.createChecklist", {"boardId": board.id, "name": "Walk", "type": "5s",
                                                            "items": QUESTIONS})
    assert refused.status == 403 and refused.error["data"]["code"] == "FORBIDDEN"
    member_id, member = await board.org.add_user("member")
    created = await make_checklist(board, api=member)
    assert created["createdBy"] == member_id
    assert (await member.query("audits.getChecklist", {"id": created["id"]})).status == 200


async def test_a_board_deleted_by_another_node_is_not_found(board: Board, pool: asyncpg.Pool) -> None:
    """This node still remembers for a few seconds that the caller may see the board when another node deletes
    it: creating a checklist or starting an audit there is 404, not a server error."""
    checklist = await make_checklist(board)
    await pool.execute("DELETE FROM boards WHERE id = $1", board.id)
    created = await board.api.mutate("audits.createChecklist", {"boardId": board.id, "name": "Late", "type": "5s",
                                                                "items": QUESTIONS})
    started = await board.api.mutate("audits.startAudit", {"boardId": board.id, "checklistId": checklist["id"]})
    assert [(r.status, r.error["data"]["code"]) for r in (created, started)] == [(404, "NOT_FOUND")] * 2
