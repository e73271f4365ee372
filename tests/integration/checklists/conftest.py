"""Checklist fixtures: a board on a server whose clock the test drives, starting on a Wednesday at 10:00 UTC
(inside the day shift, mid-week, mid-month), and helpers to create and complete checklists and to move the
clock to a given moment."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from actors.runtime.clock import ManualClock
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board

START = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def board(clocked_client: Any) -> Board:
    return await make_board(await make_org(clocked_client))


def move_to(clock: ManualClock, moment: datetime) -> None:
    """Move the clock forward to `moment`."""
    seconds = (moment - clock.now()).total_seconds()
    assert seconds >= 0, "the clock only moves forward"
    clock.advance(seconds)


ITEMS = [{"text": "Guards in place"}, {"text": "Oil level checked"}, {"text": "Area swept", "required": False}]


async def create_checklist(board: Board, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    """A checklist on `board` with three items (the last optional); `fields` replace parts of the input."""
    reply = await (api or board.api).mutate("checklists.create", {
        "boardId": board.id, "name": "Press 4 start-up", "frequency": "daily", "items": ITEMS, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


def all_checked(checklist: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"itemId": item["id"], "checked": True} for item in checklist["items"]]


async def complete(api: Api, checklist: dict[str, Any], responses: list[dict[str, Any]] | None = None) -> Any:
    """checklists.complete with every item checked unless `responses` are given; the reply."""
    return await api.mutate("checklists.complete", {"checklistId": checklist["id"],
                                                    "responses": responses or all_checked(checklist)})
