"""REST `/api/v1/actions`: the collection and item paths, their envelopes and status codes, cursor paging in
`meta`, and 422 naming the field."""

from __future__ import annotations

from tests.harness import make_org
from tests.integration.actions.conftest import DUE, action_input, board_events
from tests.integration.boards.conftest import Board, make_board


async def test_create_read_update_delete_over_rest(board: Board) -> None:
    created = await board.api.rest("POST", "/api/v1/actions", action_input(board, category="cost"))
    assert created.status == 201, created.body
    action = created.data
    assert action["id"].startswith("act_") and action["status"] == "open"
    assert action["assignee"] == {"id": board.org.owner_id, "name": "Olga Owner"}
    assert (action["dueDate"], action["priority"], action["category"]) == (DUE, "high", "cost")
    assert action["createdAt"].endswith("Z")

    fetched = await board.api.rest("GET", f"/api/v1/actions/{action['id']}")
    assert fetched.status == 200 and fetched.data == action | {"escalations": []}
    patched = await board.api.rest("PATCH", f"/api/v1/actions/{action['id']}", {"status": "completed"})
    assert patched.status == 200 and patched.data["status"] == "completed" and patched.data["completedAt"]
    deleted = await board.api.rest("DELETE", f"/api/v1/actions/{action['id']}")
    assert deleted.status == 200 and deleted.data == {"success": True, "id": action["id"]}
    gone = await board.api.rest("GET", f"/api/v1/actions/{action['id']}")
    assert gone.status == 404 and gone.error["code"] == "NOT_FOUND"
    assert [e["event"] for e in await board_events(board)] == [
        "action.created", "action.updated", "action.completed", "action.deleted"]


async def test_the_list_pages_with_rest_meta(board: Board) -> None:
    ids = []
    for n in range(3):
        reply = await board.api.rest("POST", "/api/v1/actions", action_input(board, title=f"Action {n}"))
        ids.append(reply.data["id"])
    first = await board.api.rest("GET", "/api/v1/actions", params={"boardId": board.id, "limit": "2"})
    assert first.status == 200, first.body
    assert len(first.data) == 2 and first.body["meta"]["has_more"] is True and first.body["meta"]["limit"] == 2
    rest = await board.api.rest("GET", "/api/v1/actions", params={"boardId": board.id, "limit": "2",
                                                                  "cursor": first.body["meta"]["cursor"]})
    assert rest.body["meta"] == {"cursor": None, "has_more": False, "limit": 2}
    assert sorted(a["id"] for a in first.data + rest.data) == sorted(ids)
    filtered = await board.api.rest("GET", "/api/v1/actions", params={"boardId": board.id, "priority": "low"})
    assert filtered.status == 200 and filtered.data == []
    too_many = await board.api.rest("GET", "/api/v1/actions", params={"boardId": board.id, "limit": "201"})
    assert too_many.status == 400 and too_many.error["code"] == "BAD_REQUEST"
    most = await board.api.rest("GET", "/api/v1/actions", params={"boardId": board.id, "limit": "200"})
    assert most.status == 200 and len(most.data) == 3 and most.body["meta"]["limit"] == 200


async def test_invalid_input_is_422_naming_the_field(board: Board) -> None:
    for field, value in (("title", ""), ("priority", "urgent"), ("dueDate", "2030-13-01"),
                         ("assigneeId", "usr_nobody"), ("category", "morale")):
        reply = await board.api.rest("POST", "/api/v1/actions", action_input(board, **{field: value}))
        assert reply.status == 422, (field, reply.body)
        assert reply.error["code"] == "VALIDATION_ERROR" and reply.error["details"][0]["field"] == field
    created = await board.api.rest("POST", "/api/v1/actions", action_input(board))
    bad_status = await board.api.rest("PATCH", f"/api/v1/actions/{created.data['id']}", {"status": "done"})
    assert bad_status.status == 422 and bad_status.error["details"][0]["field"] == "status"
    no_board = await board.api.rest("GET", "/api/v1/actions")
    assert no_board.status == 422 and no_board.error["details"][0]["field"] == "boardId"


async def test_another_organization_gets_404(board: Board) -> None:
    created = await board.api.rest("POST", "/api/v1/actions", action_input(board))
    other = await make_board(await make_org(board.org.owner.client))
    assert (await other.api.rest("GET", f"/api/v1/actions/{created.data['id']}")).status == 404
    assert (await other.api.rest("PATCH", f"/api/v1/actions/{created.data['id']}", {"title": "x"})).status == 404
    assert (await other.api.rest("DELETE", f"/api/v1/actions/{created.data['id']}")).status == 404
    assert (await other.api.rest("GET", "/api/v1/actions", params={"boardId": board.id})).status == 404
