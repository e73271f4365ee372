"""The items scopes of an API key cover KPIs and actions ("boards, items, KPIs, actions"); the KPI
and action scopes do not cover items."""

from __future__ import annotations

from tests.harness import Api
from tests.integration.boards.conftest import Board


async def key(board: Board, scopes: list[str]) -> Api:
    reply = await board.api.mutate("apiKeys.create", {"name": "screen", "scopes": scopes})
    assert reply.status == 200, reply.body
    return board.api.with_bearer(str(reply.data["key"]))


async def test_items_scopes_reach_kpis_and_actions(board: Board) -> None:
    kpi = await board.api.mutate("kpis.define", {"boardId": board.id, "name": "Scrap", "category": "quality",
                                                 "direction": "lower_is_better", "frequency": "daily"})
    assert kpi.status == 200, kpi.body
    reader = await key(board, ["read:items"])
    assert (await reader.query("kpis.list", {"boardId": board.id})).status == 200
    assert (await reader.query("actions.list", {"boardId": board.id})).status == 200
    assert (await reader.mutate("kpis.setValue", {"kpiId": kpi.data["id"], "value": 1})).status == 403

    writer = await key(board, ["write:items"])
    assert (await writer.mutate("kpis.setValue", {"kpiId": kpi.data["id"], "value": 1})).status == 200
    created = await writer.mutate("actions.create", {"boardId": board.id, "title": "Fix the guard",
                                                     "priority": "high", "assigneeId": board.org.owner_id,
                                                     "dueDate": "2026-12-01"})
    assert created.status == 200, created.body

    kpis_only = await key(board, ["write:kpis", "write:actions"])
    assert (await kpis_only.query("items.list", {"boardId": board.id})).status == 403
