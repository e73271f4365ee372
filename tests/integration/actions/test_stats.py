"""actions.getStats on a clock the test drives: counts by status and priority (every key, zeros included),
overdue, escalated, and the mean days from creation to completion."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from actors.runtime.clock import ManualClock
from tests.harness import make_org
from tests.integration.actions.conftest import create, settled, update
from tests.integration.boards.conftest import Board, make_board

START = datetime(2031, 3, 10, 12, 0, tzinfo=UTC)


pytestmark = pytest.mark.workers("action-escalation")

@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def board(clocked_client: Any) -> Board:
    return await make_board(await make_org(clocked_client))


async def stats(on: Board) -> dict[str, Any]:
    reply = await on.api.query("actions.getStats", {"boardId": on.id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_stats_count_a_known_board(board: Board, clock: ManualClock) -> None:
    later = "2031-12-31"
    a = await create(board, title="A", priority="medium", dueDate=later)
    b = await create(board, title="B", priority="high", dueDate=later)
    c = await create(board, title="C", priority="critical", dueDate="2031-03-10")
    d = await create(board, title="D", priority="low", dueDate=later)
    e = await create(board, title="E", priority="high", dueDate=later)
    g = await create(board, title="G", priority="medium", dueDate=later)

    clock.advance(timedelta(days=1, hours=6).total_seconds())
    await update(board, g["id"], status="completed")  # 1.25 days
    clock.advance(timedelta(hours=18).total_seconds())
    await update(board, a["id"], status="completed")  # 2 days
    clock.advance(timedelta(days=1).total_seconds())
    await update(board, b["id"], status="completed")  # 3 days
    assert (await board.api.mutate("actions.verify", {"id": b["id"], "verified": True})).status == 200
    await update(board, d["id"], status="closed")  # closed without being completed: no closure time
    escalated = await board.api.mutate("actions.escalate", {"id": e["id"], "reason": "needs budget",
                                                            "escalateToUserId": board.org.owner_id})
    assert escalated.status == 200
    # C is overdue since the first day: the scheduler escalated it.
    assert (await settled(board, c["id"]))["escalationLevel"] >= 1

    assert await stats(board) == {
        "total": 6,
        "byStatus": {"open": 2, "in_progress": 0, "completed": 2, "verified": 1, "closed": 1},
        "byPriority": {"critical": 1, "high": 2, "medium": 2, "low": 1},
        "overdue": 1, "escalated": 2,
        "avgClosureTimeDays": 2.1,  # (1.25 + 2 + 3) / 3
    }


async def test_an_empty_board_has_zeros_and_no_closure_time(board: Board) -> None:
    assert await stats(board) == {
        "total": 0,
        "byStatus": {"open": 0, "in_progress": 0, "completed": 0, "verified": 0, "closed": 0},
        "byPriority": {"critical": 0, "high": 0, "medium": 0, "low": 0},
        "overdue": 0, "escalated": 0, "avgClosureTimeDays": None,
    }
    assert (await board.api.query("actions.getStats", {"boardId": "brd_missing"})).status == 404
