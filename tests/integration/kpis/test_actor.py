"""The KPI actor: concurrent values are committed in turns (group commit) and none is lost; its memory equals
what a fresh activation loads from PostgreSQL; a KPI whose board was deleted is gone."""

from __future__ import annotations

import asyncio

from actors.kpi.actor import KpiActor
from tests.integration.boards.conftest import Board
from tests.integration.kpis.conftest import define, pool_of
from web.keys import NODE


async def test_concurrent_values_all_commit_and_memory_equals_the_database(board: Board) -> None:
    org = board.org
    kpi = await define(board, responsibleUserId=org.owner_id)
    replies = await asyncio.gather(*(board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 60 + n})
                                     for n in range(40)))
    assert all(reply.status == 200 for reply in replies), [r.body for r in replies if r.status != 200]
    pool = pool_of(org)
    assert await pool.fetchval("SELECT count(*) FROM kpi_values WHERE kpi_id = $1", kpi["id"]) == 40
    # Every value from 60 to 99 once: red ones raised one red alert, the first amber after it none.
    statuses = sorted((r.data["value"], r.data["status"]) for r in replies)
    assert statuses[0] == (60, "red") and statuses[-1] == (99, "green")

    node = board.api.client.app[NODE]
    assert node.actors is not None
    activation = node.actors.activation(KpiActor, kpi["id"])
    assert activation is not None
    async with pool.acquire() as conn:
        fresh = await KpiActor(kpi["id"], org.id, node.clock).load(conn)
    assert fresh == activation.state
    latest = await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})
    assert fresh.latest is not None and latest.data["id"] == fresh.latest.id

    await node.actors.evict(KpiActor, kpi["id"])
    again = await board.api.query("kpis.get", {"id": kpi["id"]})
    assert again.status == 200 and again.data["latestValue"]["value"] == latest.data["value"]


async def test_a_kpi_of_a_deleted_board_is_gone(board: Board) -> None:
    kpi = await define(board)
    deleted = await board.api.mutate("boards.delete", {"id": board.id})
    assert deleted.status == 200, deleted.body
    assert (await board.api.query("kpis.get", {"id": kpi["id"]})).status == 404
    assert (await board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 1})).status == 404
    assert await pool_of(board.org).fetchval("SELECT count(*) FROM kpis WHERE id = $1", kpi["id"]) == 0
