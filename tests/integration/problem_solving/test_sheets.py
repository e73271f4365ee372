"""Problem-solving sheets: create, read, update and delete; every operation in the activity
trail; writes for members and up; another organization's board or sheet is 404."""

from __future__ import annotations

import asyncpg
from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.problem_solving.conftest import FIVE_WHYS, create_sheet, trail


async def test_create_starts_a_draft_by_the_caller(board: Board) -> None:
    sheet = await create_sheet(board, "five_whys", data=FIVE_WHYS)
    assert sheet["id"].startswith("ps_")
    assert sheet["status"] == "draft" and sheet["type"] == "five_whys" and sheet["title"] == "Line 3 stoppage"
    assert sheet["boardId"] == board.id and sheet["actionId"] is None
    assert sheet["createdById"] == board.org.owner_id
    assert sheet["reviewedById"] is None and sheet["reviewedAt"] is None
    assert sheet["data"] == FIVE_WHYS
    assert sheet["createdAt"] == sheet["updatedAt"] and sheet["createdAt"].endswith("Z")

    fetched = await board.api.query("problemSolving.getById", {"id": sheet["id"]})
    assert fetched.status == 200 and fetched.data == sheet


async def test_data_left_out_is_the_empty_shape_of_the_type(board: Board) -> None:
    five_whys = await create_sheet(board, "five_whys")
    assert five_whys["data"] == {"whys": [], "problem": None, "rootCause": None}
    ishikawa = await create_sheet(board, "ishikawa")
    assert ishikawa["data"] == {"problem": None, "effect": None, "rootCause": None, "categories": {
        "man": [], "machine": [], "method": [], "material": [], "measurement": [], "environment": []}}
    five_w_two_h = await create_sheet(board, "wwwhwwh")
    assert five_w_two_h["data"] == {key: None for key in ("what", "why", "where", "when", "who", "how", "howMuch")}


async def test_update_changes_the_title_and_replaces_the_whole_data(board: Board) -> None:
    sheet = await create_sheet(board, "five_whys", data=FIVE_WHYS)
    renamed = await board.api.mutate("problemSolving.update", {"id": sheet["id"], "title": "Line 3 trip"})
    assert renamed.status == 200, renamed.body
    assert renamed.data["title"] == "Line 3 trip" and renamed.data["data"] == FIVE_WHYS

    replaced = await board.api.mutate("problemSolving.update", {"id": sheet["id"], "data": {
        "whys": [{"question": "Why?"}]}})
    assert replaced.status == 200, replaced.body
    # The old problem and root cause are gone: data is replaced, not merged.
    assert replaced.data["data"] == {"whys": [{"question": "Why?", "answer": None}], "problem": None,
                                     "rootCause": None}
    assert replaced.data["title"] == "Line 3 trip"
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data == replaced.data

    nothing = await board.api.mutate("problemSolving.update", {"id": sheet["id"]})
    assert nothing.status == 400


async def test_delete_is_permanent(board: Board) -> None:
    sheet = await create_sheet(board)
    deleted = await board.api.mutate("problemSolving.delete", {"id": sheet["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": sheet["id"]}
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).status == 404
    assert (await board.api.mutate("problemSolving.delete", {"id": sheet["id"]})).status == 404
    assert (await board.api.mutate("problemSolving.submit", {"id": sheet["id"]})).status == 404


async def test_every_operation_is_written_to_the_activity_trail(board: Board) -> None:
    api = board.api
    sheet = await create_sheet(board)
    sheet_id = sheet["id"]
    assert (await api.query("problemSolving.getById", {"id": sheet_id})).status == 200
    assert (await api.mutate("problemSolving.update", {"id": sheet_id, "title": "Renamed"})).status == 200
    assert (await api.mutate("problemSolving.updateStatus", {"id": sheet_id, "status": "in_progress"})).status == 200
    assert (await api.mutate("problemSolving.submit", {"id": sheet_id})).status == 200
    assert (await api.mutate("problemSolving.review", {"id": sheet_id, "comment": "Good"})).status == 200
    assert (await api.query("problemSolving.list", {"boardId": board.id})).status == 200
    assert (await api.mutate("problemSolving.delete", {"id": sheet_id})).status == 200
    assert await trail(api, "problem_sheet", sheet_id) == [
        "problem_sheet.created", "problem_sheet.viewed", "problem_sheet.updated", "problem_sheet.status_changed",
        "problem_sheet.submitted", "problem_sheet.reviewed", "problem_sheet.deleted"]
    assert "problem_sheet.listed" in await trail(api, "board", board.id)

    entries = (await api.query("activity.listByEntity", {"entityType": "problem_sheet", "entityId": sheet_id}))
    reviewed = next(e for e in entries.data["entries"] if e["action"] == "problem_sheet.reviewed")
    assert reviewed["actor"]["id"] == board.org.owner_id
    assert reviewed["metadata"]["comment"] == "Good" and reviewed["metadata"]["boardId"] == board.id


async def test_guests_read_but_only_members_write(board: Board) -> None:
    sheet = await create_sheet(board)
    guest_id, guest = await board.org.add_user("guest")
    member_id, member = await board.org.add_user("member")
    # The board lives in an open workspace: members see it; a guest sees only workspaces it belongs to.
    workspace_id = (await board.api.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    added = await board.api.mutate("workspaces.members.add", {"workspaceId": workspace_id, "userId": guest_id})
    assert added.status == 200, added.body

    read = await guest.query("problemSolving.getById", {"id": sheet["id"]})
    assert read.status == 200, read.body
    refused = await guest.mutate("problemSolving.create", {"boardId": board.id, "title": "Mine", "type": "ishikawa"})
    assert refused.status == 403
    assert (await guest.mutate("problemSolving.submit", {"id": sheet["id"]})).status == 403

    written = await create_sheet(board, "wwwhwwh", api=member)
    assert written["createdById"] == member_id


async def test_another_organizations_board_and_sheet_are_not_found(client: TestClient, board: Board) -> None:
    sheet = await create_sheet(board)
    other = await make_board(await make_org(client))
    stranger = other.api
    assert (await stranger.query("problemSolving.getById", {"id": sheet["id"]})).status == 404
    assert (await stranger.mutate("problemSolving.update", {"id": sheet["id"], "title": "Mine"})).status == 404
    assert (await stranger.mutate("problemSolving.delete", {"id": sheet["id"]})).status == 404
    assert (await stranger.mutate("problemSolving.submit", {"id": sheet["id"]})).status == 404
    assert (await stranger.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": "draft"})).status == 404
    assert (await stranger.query("problemSolving.list", {"boardId": board.id})).status == 404
    created = await stranger.mutate("problemSolving.create", {"boardId": board.id, "title": "x", "type": "ishikawa"})
    assert created.status == 404
    # Nothing changed on the owner's side.
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data == sheet


async def test_a_board_deleted_by_another_node_is_not_found(board: Board, pool: asyncpg.Pool) -> None:
    """This node still remembers for a few seconds that the caller may see the board (actors/kernel/access.py)
    when another node deletes it: creating a sheet there is 404, not a server error."""
    assert (await board.api.query("problemSolving.list", {"boardId": board.id})).status == 200
    await pool.execute("DELETE FROM boards WHERE id = $1", board.id)
    reply = await board.api.mutate("problemSolving.create", {"boardId": board.id, "title": "Late", "type": "ishikawa"})
    assert reply.status == 404, reply.body
    assert reply.error["data"]["code"] == "NOT_FOUND"
