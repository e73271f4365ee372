"""Score history: completed sessions only, newest first, with the percentage of the maximum
(one decimal) and per category of the checklist the total, count and average (two decimals); filtered by
checklist; limit 1-100, default 20."""

from __future__ import annotations

from typing import Any

from tests.integration.audits.conftest import completed_audit, make_checklist, start
from tests.integration.boards.conftest import Board


async def test_percentages_and_category_scores(board: Board) -> None:
    # sort (max 5), set_in_order (max 5), shine (max 10), sort (max 5): 25 in all.
    walk = await make_checklist(board)
    older = await completed_audit(board, walk, [4, 3, 7, 5], date="2026-04-01")
    newer = await completed_audit(board, walk, [2, 5, 10, 1], date="2026-04-08")
    await start(board, walk, date="2026-04-09")  # in progress: not history

    history = await board.api.query("audits.getScoreHistory", {"boardId": board.id})
    assert history.status == 200, history.body
    assert history.data == [
        {"id": newer["id"], "checklistId": walk["id"], "date": "2026-04-08", "totalScore": 18, "maxScore": 25,
         "percentage": 72.0,
         "categoryScores": {"sort": {"total": 3, "count": 2, "average": 1.5},
                            "set_in_order": {"total": 5, "count": 1, "average": 5.0},
                            "shine": {"total": 10, "count": 1, "average": 10.0}}},
        {"id": older["id"], "checklistId": walk["id"], "date": "2026-04-01", "totalScore": 19, "maxScore": 25,
         "percentage": 76.0,
         "categoryScores": {"sort": {"total": 9, "count": 2, "average": 4.5},
                            "set_in_order": {"total": 3, "count": 1, "average": 3.0},
                            "shine": {"total": 7, "count": 1, "average": 7.0}}},
    ]


async def test_rounding_of_percentages_and_averages(board: Board) -> None:
    items: list[dict[str, Any]] = [{"question": f"Standard {n} followed?", "category": "standardize"} for n in range(3)]
    items.append({"question": "Audits kept up?", "category": "sustain", "maxScore": 4})
    checklist = await make_checklist(board, items=items)  # maximum 19
    await completed_audit(board, checklist, [4, 4, 5, 3])  # 16 of 19 = 84.2105...%
    [entry] = (await board.api.query("audits.getScoreHistory", {"boardId": board.id})).data
    assert entry["percentage"] == 84.2
    assert entry["categoryScores"] == {"standardize": {"total": 13, "count": 3, "average": 4.33},
                                       "sustain": {"total": 3, "count": 1, "average": 3.0}}


async def test_filter_by_checklist_and_limit(board: Board) -> None:
    walk = await make_checklist(board)
    daily = await make_checklist(board, items=[{"question": "Aisles clear?", "category": "shine"}], name="Daily")
    walks = [await completed_audit(board, walk, [5, 5, 10, 5], date=f"2026-03-0{day}") for day in (1, 2, 3)]
    only_daily = await completed_audit(board, daily, [1], date="2026-03-04")

    of_walk = await board.api.query("audits.getScoreHistory", {"boardId": board.id, "checklistId": walk["id"]})
    assert [entry["id"] for entry in of_walk.data] == [s["id"] for s in reversed(walks)]
    assert all(entry["percentage"] == 100.0 for entry in of_walk.data)
    two = await board.api.query("audits.getScoreHistory", {"boardId": board.id, "limit": 2})
    assert [entry["id"] for entry in two.data] == [only_daily["id"], walks[2]["id"]]
    assert two.data[0]["percentage"] == 20.0
    assert two.data[0]["categoryScores"] == {"shine": {"total": 1, "count": 1, "average": 1.0}}

    for limit in (0, 101):
        reply = await board.api.query("audits.getScoreHistory", {"boardId": board.id, "limit": limit})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == "limit"
    hundred = await board.api.query("audits.getScoreHistory", {"boardId": board.id, "limit": 100})
    assert hundred.status == 200 and len(hundred.data) == 4
    missing = await board.api.query("audits.getScoreHistory", {})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "boardId"


async def test_twenty_entries_by_default(board: Board) -> None:
    checklist = await make_checklist(board, items=[{"question": "Aisles clear?", "category": "shine"}])
    for day in range(1, 22):
        await completed_audit(board, checklist, [day % 6], date=f"2026-01-{day:02d}")
    history = await board.api.query("audits.getScoreHistory", {"boardId": board.id})
    assert [entry["date"] for entry in history.data] == [f"2026-01-{day:02d}" for day in range(21, 1, -1)]
