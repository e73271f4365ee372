"""actions.list: a board's actions newest first, each filter, cursor paging without repeats or gaps, the limit
range and malformed cursors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.integration.actions.conftest import create, field_of, update
from tests.integration.boards.conftest import Board, make_board


async def listed(on: Board, **filters: Any) -> list[dict[str, Any]]:
    reply = await on.api.query("actions.list", {"boardId": on.id, **filters})
    assert reply.status == 200, reply.body
    assert reply.data["nextCursor"] is None
    return list(reply.data["actions"])


async def test_each_filter_narrows_the_list(board: Board) -> None:
    worker_id, _ = await board.org.add_user("member")
    past = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
    guard = await create(board, title="Guard", category="safety", priority="critical")
    scrap = await create(board, title="Scrap", category="quality", assigneeId=worker_id, dueDate=past)
    late = await create(board, title="Late truck", category="delivery", priority="low", sourceType="kpi_breach")
    await update(board, late["id"], status="in_progress")
    other = await make_board(board.org)
    await create(other, title="Elsewhere")

    everything = await listed(board)
    assert [a["title"] for a in everything] == ["Late truck", "Scrap", "Guard"]
    assert [a["title"] for a in await listed(board, status="in_progress")] == ["Late truck"]
    assert [a["title"] for a in await listed(board, priority="critical")] == ["Guard"]
    assert [a["title"] for a in await listed(board, assigneeId=worker_id)] == ["Scrap"]
    assert [a["title"] for a in await listed(board, category="quality")] == ["Scrap"]
    assert await listed(board, category="people") == []
    assert await listed(board, status="open", priority="low") == []

    by_id = {a["id"]: a for a in everything}
    assert by_id[scrap["id"]]["isOverdue"] is True and by_id[guard["id"]]["isOverdue"] is False
    assert by_id[late["id"]]["sourceType"] == "kpi_breach" and by_id[guard["id"]]["sourceType"] == "manual"
    assert all(a["isEscalated"] is False and a["escalationLevel"] == 0 for a in everything)


async def test_cursor_paging_visits_every_action_once_newest_first(board: Board) -> None:
    made = [await create(board, title=f"Action {n}") for n in range(7)]
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        reply = await board.api.query("actions.list", {"boardId": board.id, "limit": 3,
                                                       **({"cursor": cursor} if cursor else {})})
        assert reply.status == 200, reply.body
        assert len(reply.data["actions"]) <= 3
        seen += reply.data["actions"]
        cursor = reply.data["nextCursor"]
        if cursor is None:
            break
    assert sorted(a["id"] for a in seen) == sorted(a["id"] for a in made)
    keys = [(a["createdAt"], a["id"]) for a in seen]
    assert keys == sorted(keys, reverse=True)
    assert len(await listed(board)) == 7


async def test_limit_and_cursor_are_checked(board: Board) -> None:
    await create(board)
    # A page holds 1 to 200.
    in_org = {"organizationId": board.org.id}
    for name, where in (("actions.list", {"boardId": board.id}), ("actions.getOverdue", in_org),
                        ("actions.getEscalated", in_org)):
        for bad in ({"limit": 0}, {"limit": 201}, {"cursor": "not a cursor"}):
            reply = await board.api.query(name, {**where, **bad})
            assert reply.status == 400 and reply.error["data"]["code"] == "BAD_REQUEST", (name, bad)
            assert field_of(reply) == next(iter(bad)), (name, bad)
        full = await board.api.query(name, {**where, "limit": 200})
        assert full.status == 200 and full.data["nextCursor"] is None, (name, full.body)
    assert len((await board.api.query("actions.list", {"boardId": board.id, "limit": 200})).data["actions"]) == 1
    missing = await board.api.query("actions.list", {})
    assert missing.status == 400 and field_of(missing) == "boardId"
    unknown = await board.api.query("actions.list", {"boardId": "brd_nope"})
    assert unknown.status == 404
