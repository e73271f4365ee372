"""problemSolving.list (the offset paging style): a board's sheets newest first, filtered by
action, type and status, paged by limit (1-200, default 50) and offset (default 0) with `total` and
`hasMore`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.boards.conftest import Board, make_board
from tests.integration.problem_solving.conftest import create_action, create_sheet


async def listed(board: Board, **filters: Any) -> dict[str, Any]:
    reply = await board.api.query("problemSolving.list", {"boardId": board.id, **filters})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_pages_newest_first_with_totals(board: Board) -> None:
    ids = [(await create_sheet(board, title=f"Sheet {n}"))["id"] for n in range(7)]
    newest_first = list(reversed(ids))

    everything = await listed(board)
    assert [s["id"] for s in everything["items"]] == newest_first
    assert everything["total"] == 7 and everything["hasMore"] is False

    seen = []
    for offset in (0, 3, 6):
        page = await listed(board, limit=3, offset=offset)
        assert page["total"] == 7
        assert page["hasMore"] is (offset + 3 < 7)
        seen += [s["id"] for s in page["items"]]
    assert seen == newest_first

    beyond = await listed(board, limit=3, offset=10)
    assert beyond == {"items": [], "total": 7, "hasMore": False}


async def test_the_default_page_is_fifty(board: Board) -> None:
    for n in range(51):
        await create_sheet(board, title=f"Sheet {n}")
    page = await listed(board)
    assert len(page["items"]) == 50 and page["total"] == 51 and page["hasMore"] is True
    last = await listed(board, offset=50)
    assert len(last["items"]) == 1 and last["hasMore"] is False


async def test_filters_by_type_status_and_action(board: Board) -> None:
    five_whys = await create_sheet(board, "five_whys")
    ishikawa = await create_sheet(board, "ishikawa")
    done = await create_sheet(board, "wwwhwwh")
    assert (await board.api.mutate("problemSolving.submit", {"id": done["id"]})).status == 200
    action = await create_action(board)
    linked = await board.api.mutate("problemSolving.linkToRootCause", {"sheetId": ishikawa["id"],
                                                                       "actionId": action["id"]})
    assert linked.status == 200, linked.body

    by_type = await listed(board, type="five_whys")
    assert [s["id"] for s in by_type["items"]] == [five_whys["id"]] and by_type["total"] == 1
    by_status = await listed(board, status="completed")
    assert [s["id"] for s in by_status["items"]] == [done["id"]] and by_status["total"] == 1
    by_action = await listed(board, actionId=action["id"])
    assert [s["id"] for s in by_action["items"]] == [ishikawa["id"]]
    both = await listed(board, type="ishikawa", status="draft", actionId=action["id"])
    assert both["total"] == 1
    none = await listed(board, type="ishikawa", status="completed")
    assert none == {"items": [], "total": 0, "hasMore": False}


async def test_only_the_boards_sheets_are_listed(board: Board) -> None:
    other = await make_board(board.org)
    await create_sheet(other)
    mine = await create_sheet(board)
    page = await listed(board)
    assert [s["id"] for s in page["items"]] == [mine["id"]] and page["total"] == 1


@pytest.mark.parametrize(("paging", "field"), [({"limit": 0}, "limit"), ({"limit": 201}, "limit"),
                                               ({"limit": "ten"}, "limit"), ({"offset": -1}, "offset"),
                                               ({"offset": 1.5}, "offset")])
async def test_paging_out_of_range_is_bad_request(board: Board, paging: dict[str, Any], field: str) -> None:
    reply = await board.api.query("problemSolving.list", {"boardId": board.id, **paging})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"][0]["field"] == field


async def test_bad_filters_are_refused_naming_the_field(board: Board) -> None:
    reply = await board.api.query("problemSolving.list", {"boardId": board.id, "status": "done"})
    assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == "status"
    missing = await board.api.query("problemSolving.list", {})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "boardId"
