"""The sheet lifecycle: submit moves draft or in_progress to completed (anything else is 400),
review moves completed to reviewed recording who, when and the comment (anything else is 400), and
updateStatus sets any of the four states."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.problem_solving.conftest import create_sheet

STATUSES = ("draft", "in_progress", "completed", "reviewed")


async def sheet_in(board: Board, status: str) -> dict[str, Any]:
    sheet = await create_sheet(board)
    if status != "draft":
        moved = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": status})
        assert moved.status == 200, moved.body
        sheet = moved.data
    return sheet


async def status_of(board: Board, sheet_id: str) -> str:
    return str((await board.api.query("problemSolving.getById", {"id": sheet_id})).data["status"])


@pytest.mark.parametrize("start", ["draft", "in_progress"])
async def test_submit_completes_a_draft_or_in_progress_sheet(board: Board, start: str) -> None:
    sheet = await sheet_in(board, start)
    submitted = await board.api.mutate("problemSolving.submit", {"id": sheet["id"]})
    assert submitted.status == 200, submitted.body
    assert submitted.data["status"] == "completed"
    assert await status_of(board, sheet["id"]) == "completed"


@pytest.mark.parametrize("start", ["completed", "reviewed"])
async def test_submitting_a_completed_or_reviewed_sheet_is_refused(board: Board, start: str) -> None:
    sheet = await sheet_in(board, start)
    refused = await board.api.mutate("problemSolving.submit", {"id": sheet["id"]})
    assert refused.status == 400
    assert refused.error["data"]["code"] == "BAD_REQUEST"
    assert refused.error["data"]["currentStatus"] == start
    assert await status_of(board, sheet["id"]) == start


async def test_review_of_a_completed_sheet_records_reviewer_time_and_comment(clocked_client: TestClient,
                                                                             clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    reviewer_id, reviewer = await board.org.add_user("member")
    sheet = await create_sheet(board)
    assert (await board.api.mutate("problemSolving.submit", {"id": sheet["id"]})).status == 200
    clock.advance(3 * 3600)
    reviewed = await reviewer.mutate("problemSolving.review", {"id": sheet["id"], "comment": "Root cause is solid"})
    assert reviewed.status == 200, reviewed.body
    view = reviewed.data
    assert view["status"] == "reviewed"
    assert view["reviewedById"] == reviewer_id and view["createdById"] == board.org.owner_id
    assert view["reviewedAt"] == iso(clock.now()) and view["updatedAt"] == iso(clock.now())
    assert view["reviewComment"] == "Root cause is solid"
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data == view


async def test_review_without_a_comment(board: Board) -> None:
    sheet = await sheet_in(board, "completed")
    reviewed = await board.api.mutate("problemSolving.review", {"id": sheet["id"]})
    assert reviewed.status == 200, reviewed.body
    assert reviewed.data["status"] == "reviewed" and reviewed.data["reviewComment"] is None
    assert reviewed.data["reviewedById"] == board.org.owner_id


@pytest.mark.parametrize("start", ["draft", "in_progress", "reviewed"])
async def test_only_completed_sheets_may_be_reviewed(board: Board, start: str) -> None:
    sheet = await sheet_in(board, start)
    refused = await board.api.mutate("problemSolving.review", {"id": sheet["id"], "comment": "Too early"})
    assert refused.status == 400
    assert refused.error["data"]["currentStatus"] == start
    after = (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data
    assert after["status"] == start and after["reviewComment"] is None


@pytest.mark.parametrize("start", STATUSES)
@pytest.mark.parametrize("target", STATUSES)
async def test_update_status_sets_any_status_from_any_status(board: Board, start: str, target: str) -> None:
    sheet = await sheet_in(board, start)
    moved = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": target})
    assert moved.status == 200, moved.body
    assert moved.data["status"] == target
    assert await status_of(board, sheet["id"]) == target


async def test_the_review_fields_describe_the_current_review(board: Board) -> None:
    sheet = await sheet_in(board, "completed")
    reviewed = (await board.api.mutate("problemSolving.review", {"id": sheet["id"], "comment": "Fine"})).data
    again = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": "reviewed"})
    assert again.data["reviewedAt"] == reviewed["reviewedAt"] and again.data["reviewComment"] == "Fine"

    reopened = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": "in_progress"})
    assert reopened.status == 200
    assert reopened.data["reviewedById"] is None and reopened.data["reviewedAt"] is None
    assert reopened.data["reviewComment"] is None

    marked = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": "reviewed"})
    assert marked.data["reviewedById"] == board.org.owner_id and marked.data["reviewedAt"] is not None


async def test_an_unknown_status_is_refused_naming_the_field(board: Board) -> None:
    sheet = await create_sheet(board)
    refused = await board.api.mutate("problemSolving.updateStatus", {"id": sheet["id"], "status": "archived"})
    assert refused.status == 400
    assert refused.error["data"]["details"][0]["field"] == "status"
