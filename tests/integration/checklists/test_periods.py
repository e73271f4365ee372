"""Each frequency's periods on a driven clock (UTC): the day changes at 00:00, the shifts at 06:00 and 18:00
(the night shift belongs to the day it started), the week on Monday 00:00, the month on the 1st. A period
holds one completion, dated with the period's start date."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from actors.runtime.clock import ManualClock
from tests.integration.boards.conftest import Board
from tests.integration.checklists.conftest import complete, create_checklist, move_to


def at(day: int, hour: int, minute: int = 0, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


async def period_of_today(board: Board, checklist_id: str) -> tuple[str, str, bool]:
    """(periodStart, periodEnd, isCompleted) of the checklist in getToday."""
    today = await board.api.query("checklists.getToday", {"boardId": board.id})
    [entry] = [c for c in today.data if c["id"] == checklist_id]
    return entry["periodStart"], entry["periodEnd"], entry["isCompleted"]


# (frequency, moments in one period after the start at Wed 18 Nov 10:00, the next period's first moment,
#  the first period's date and bounds, the next period's date)
CASES = [
    ("daily", [at(18, 23, 59)], at(19, 0), "2026-11-18", ("2026-11-18T00:00:00.000Z", "2026-11-19T00:00:00.000Z"),
     "2026-11-19"),
    ("shift", [at(18, 17, 59)], at(18, 18), "2026-11-18", ("2026-11-18T06:00:00.000Z", "2026-11-18T18:00:00.000Z"),
     "2026-11-18"),
    ("weekly", [at(21, 12), at(22, 23, 59)], at(23, 0), "2026-11-16",
     ("2026-11-16T00:00:00.000Z", "2026-11-23T00:00:00.000Z"), "2026-11-23"),
    ("monthly", [at(28, 12), at(30, 23, 59)], at(1, 0, month=12), "2026-11-01",
     ("2026-11-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"), "2026-12-01"),
]


@pytest.mark.parametrize(("frequency", "same_period", "next_period", "date", "bounds", "next_date"), CASES,
                         ids=[case[0] for case in CASES])
async def test_a_period_holds_one_completion_until_it_ends(
        board: Board, clock: ManualClock, frequency: str, same_period: list[datetime], next_period: datetime,
        date: str, bounds: tuple[str, str], next_date: str) -> None:
    checklist = await create_checklist(board, frequency=frequency)
    assert await period_of_today(board, checklist["id"]) == (*bounds, False)
    first = await complete(board.api, checklist)
    assert first.status == 200, first.body
    assert (first.data["date"], first.data["periodStart"]) == (date, bounds[0])
    for moment in same_period:
        move_to(clock, moment)
        assert (await complete(board.api, checklist)).status == 409, moment
        assert (await period_of_today(board, checklist["id"]))[2] is True

    move_to(clock, next_period)
    assert (await period_of_today(board, checklist["id"]))[2] is False
    second = await complete(board.api, checklist)
    assert second.status == 200, second.body
    assert second.data["date"] == next_date


async def test_the_night_shift_runs_from_18_00_to_06_00_and_belongs_to_the_day_it_started(
        board: Board, clock: ManualClock) -> None:
    checklist = await create_checklist(board, frequency="shift")
    move_to(clock, at(18, 18))
    assert await period_of_today(board, checklist["id"]) == ("2026-11-18T18:00:00.000Z", "2026-11-19T06:00:00.000Z",
                                                             False)
    night = await complete(board.api, checklist)
    assert (night.data["date"], night.data["periodStart"]) == ("2026-11-18", "2026-11-18T18:00:00.000Z")

    move_to(clock, at(19, 2))  # after midnight: still the night shift of the 18th
    assert await period_of_today(board, checklist["id"]) == ("2026-11-18T18:00:00.000Z", "2026-11-19T06:00:00.000Z",
                                                             True)
    move_to(clock, at(19, 5, 59))
    assert (await complete(board.api, checklist)).status == 409

    move_to(clock, at(19, 6))  # the day shift of the 19th
    day = await complete(board.api, checklist)
    assert day.status == 200, day.body
    assert (day.data["date"], day.data["periodStart"]) == ("2026-11-19", "2026-11-19T06:00:00.000Z")

    history = await board.api.query("checklists.getCompletionHistory", {"checklistId": checklist["id"]})
    assert [c["periodStart"] for c in history.data["items"]] == ["2026-11-19T06:00:00.000Z",
                                                                 "2026-11-18T18:00:00.000Z"]
    rate = await board.api.query("checklists.getCompletionRate", {"checklistId": checklist["id"],
                                                                  "startDate": "2026-11-18", "endDate": "2026-11-19"})
    assert (rate.data["expected"], rate.data["completed"]) == (4, 2)


async def test_a_new_frequency_starts_new_periods(board: Board, clock: ManualClock) -> None:
    """A daily checklist done today and switched to weekly is not done for the week: the template changed."""
    checklist = await create_checklist(board)
    assert (await complete(board.api, checklist)).status == 200
    await board.api.mutate("checklists.update", {"id": checklist["id"], "frequency": "weekly"})
    assert (await period_of_today(board, checklist["id"]))[2] is False
    weekly = await complete(board.api, checklist)
    assert weekly.status == 200, weekly.body
    assert weekly.data["date"] == "2026-11-16"
    assert (await complete(board.api, checklist)).status == 409
