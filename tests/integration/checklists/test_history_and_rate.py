"""Completion history (offset pages, date filters, limits) and completion rates (expected completions per
frequency over an inclusive date range, capped at 100 %), on data made day by day with the driven clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from actors.runtime.clock import ManualClock
from tests.harness import login
from tests.integration.boards.conftest import Board
from tests.integration.checklists.conftest import complete, create_checklist, move_to


async def complete_on_days(board: Board, clock: ManualClock, checklist: dict[str, Any], days: list[int],
                           month: int = 11) -> None:
    """Complete the checklist at 10:00 UTC on each day of 2026 given (in order)."""
    for day in days:
        move_to(clock, datetime(2026, month, day, 10, 0, tzinfo=UTC))
        reply = await complete(board.api, checklist)
        assert reply.status == 200, reply.body


async def history(board: Board, checklist: dict[str, Any], **params: Any) -> Any:
    return await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"], **params})


async def rate(board: Board, checklist: dict[str, Any], start: str, end: str) -> dict[str, Any]:
    reply = await board.api.query("checklists.getCompletionRate", {"checklistId": checklist["id"],
                                                                   "startDate": start, "endDate": end})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_history_pages_by_offset_newest_first(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board)
    await complete_on_days(board, clock, checklist, [18, 19, 20, 21, 22])
    first = await history(board, checklist, limit=2)
    assert first.status == 200, first.body
    assert ([c["date"] for c in first.data["items"]], first.data["total"], first.data["hasMore"]) == (
        ["2026-11-22", "2026-11-21"], 5, True)
    second = await history(board, checklist, limit=2, offset=2)
    assert ([c["date"] for c in second.data["items"]], second.data["hasMore"]) == (["2026-11-20", "2026-11-19"], True)
    last = await history(board, checklist, limit=2, offset=4)
    assert ([c["date"] for c in last.data["items"]], last.data["total"], last.data["hasMore"]) == (
        ["2026-11-18"], 5, False)
    beyond = await history(board, checklist, offset=10)
    assert (beyond.data["items"], beyond.data["total"], beyond.data["hasMore"]) == ([], 5, False)
    everything = await history(board, checklist)
    assert len(everything.data["items"]) == 5 and everything.data["hasMore"] is False
    assert all(c["completedById"] == board.org.owner_id for c in everything.data["items"])


async def test_history_filters_by_date_both_ends_inclusive(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board)
    await complete_on_days(board, clock, checklist, [18, 19, 20, 21, 22])
    between = await history(board, checklist, startDate="2026-11-19", endDate="2026-11-21")
    assert [c["date"] for c in between.data["items"]] == ["2026-11-21", "2026-11-20", "2026-11-19"]
    assert between.data["total"] == 3
    since = await history(board, checklist, startDate="2026-11-21")
    assert [c["date"] for c in since.data["items"]] == ["2026-11-22", "2026-11-21"]
    until = await history(board, checklist, endDate="2026-11-18", limit=1)
    assert ([c["date"] for c in until.data["items"]], until.data["total"], until.data["hasMore"]) == (
        ["2026-11-18"], 1, False)


@pytest.mark.parametrize(("params", "field"), [
    ({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"offset": -1}, "offset"),
    ({"startDate": "18/11/2026"}, "startDate"), ({"endDate": "2026-13-01"}, "endDate"),
    ({"startDate": "2026-11-20", "endDate": "2026-11-19"}, "endDate")])
async def test_history_bad_input_is_400_naming_the_field(board: Board, params: dict[str, Any], field: str) -> None:
    checklist = await create_checklist(board)
    reply = await history(board, checklist, **params)
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"][0]["field"] == field
    assert (await history(board, checklist, limit=200)).status == 200


async def test_daily_rate_counts_the_inclusive_days(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board)
    await complete_on_days(board, clock, checklist, [18, 19, 21])
    week = await rate(board, checklist, "2026-11-16", "2026-11-22")
    assert week == {"checklistId": checklist["id"], "checklistName": "Press 4 start-up", "frequency": "daily",
                    "startDate": "2026-11-16", "endDate": "2026-11-22", "expected": 7, "completed": 3,
                    "rate": 42.9}
    assert (await rate(board, checklist, "2026-11-18", "2026-11-19"))["rate"] == 100.0
    one_day = await rate(board, checklist, "2026-11-20", "2026-11-20")
    assert (one_day["expected"], one_day["completed"], one_day["rate"]) == (1, 0, 0.0)


async def test_expected_completions_per_frequency(board: Board) -> None:
    ten_days = ("2026-11-01", "2026-11-10")
    expected = {}
    for frequency in ("daily", "shift", "weekly", "monthly"):
        checklist = await create_checklist(board, name=frequency, frequency=frequency)
        expected[frequency] = (await rate(board, checklist, *ten_days))["expected"]
        assert (await rate(board, checklist, "2026-11-01", "2026-12-31"))["expected"] == {
            "daily": 61, "shift": 122, "weekly": 9, "monthly": 3}[frequency]
    assert expected == {"daily": 10, "shift": 20, "weekly": 2, "monthly": 1}


async def test_weekly_rate(board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board, frequency="weekly")
    await complete_on_days(board, clock, checklist, [18, 25])  # weeks of Mondays 16 and 23 November
    november = await rate(board, checklist, "2026-11-01", "2026-11-30")
    assert (november["expected"], november["completed"], november["rate"]) == (5, 2, 40.0)


async def test_the_rate_is_capped_at_100(board: Board, clock: ManualClock) -> None:
    """Thirty days from 31 January to 1 March expect one monthly completion but hold two periods' starts."""
    move_to(clock, datetime(2027, 2, 3, 10, 0, tzinfo=UTC))
    # Months on, the owner's 30-day session has ended (the node's caches run on its clock): sign in again.
    board.org.owner = await login(board.org.anonymous, board.org.owner_email)
    checklist = await create_checklist(board, frequency="monthly")
    assert (await complete(board.api, checklist)).data["date"] == "2027-02-01"
    move_to(clock, datetime(2027, 3, 1, 0, 0, tzinfo=UTC) + timedelta(hours=7))
    assert (await complete(board.api, checklist)).data["date"] == "2027-03-01"
    capped = await rate(board, checklist, "2027-01-31", "2027-03-01")
    assert (capped["expected"], capped["completed"], capped["rate"]) == (1, 2, 100.0)


@pytest.mark.parametrize(("params", "field"), [
    ({"startDate": "2026-11-01"}, "endDate"), ({"endDate": "2026-11-01"}, "startDate"),
    ({"startDate": "2026-11-02", "endDate": "2026-11-01"}, "endDate"),
    ({"startDate": "yesterday", "endDate": "2026-11-01"}, "startDate")])
async def test_rate_bad_input_is_400_naming_the_field(board: Board, params: dict[str, Any], field: str) -> None:
    checklist = await create_checklist(board)
    reply = await board.api.query("checklists.getCompletionRate", {"checklistId": checklist["id"], **params})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"][0]["field"] == field
    missing = await board.api.query("checklists.getCompletionRate", {"checklistId": "cl_missing",
                                                                     "startDate": "2026-11-01",
                                                                     "endDate": "2026-11-02"})
    assert missing.status == 404


@pytest.mark.parametrize("frequency", ["weekly", "monthly"])
async def test_a_completion_counts_on_the_day_it_was_made(board: Board, clock: ManualClock, frequency: str) -> None:
    """Completed on Thursday 19 November: the period started on the 16th (week) or the 1st (month), but a
    range of the 19th shows it done, and the history of that day lists it."""
    checklist = await create_checklist(board, frequency=frequency)
    await complete_on_days(board, clock, checklist, [19])
    today = await rate(board, checklist, "2026-11-19", "2026-11-19")
    assert (today["expected"], today["completed"], today["rate"]) == (1, 1, 100.0)
    listed = await history(board, checklist, startDate="2026-11-19", endDate="2026-11-19")
    assert [c["completedAt"] for c in listed.data["items"]] == ["2026-11-19T10:00:00.000Z"]
    assert listed.data["items"][0]["date"] == {"weekly": "2026-11-16", "monthly": "2026-11-01"}[frequency]
    period_start_only = await rate(board, checklist, "2026-11-01", "2026-11-01")
    assert period_start_only["completed"] == 0
    assert (await rate(board, checklist, "2026-11-20", "2026-11-30"))["completed"] == 0
