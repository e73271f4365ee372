"""The KPI actor: concurrent values are committed in turns (group commit) and none is lost; its memory equals
what a fresh activation loads from PostgreSQL; a KPI whose board was deleted is gone."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from actors.kpi.actor import KpiActor
from actors.kpi.state import AlertRow, KpiRow, TargetRow, ValueRow
from protocol.ids import Prefix, new_id
from storage import kpis as repo
from storage.turn_statement import TurnStatement
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


async def test_changes_of_a_kpi_find_its_board_without_a_query_and_refuse_once_the_board_is_gone(
        board: Board) -> None:
    node = board.api.client.app[NODE]
    kpi = await define(board)
    assert node.board_locations[kpi["id"]] == board.id, "a KPI's changes find its board on the node"
    recorded = await board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 1})
    assert recorded.status == 200, recorded.body

    stream = f"kpi:{kpi['id']}"
    logged = await pool_of(board.org).fetchval("SELECT count(*) FROM events WHERE stream = $1", stream)

    deleted = await board.api.mutate("boards.delete", {"id": board.id})
    assert deleted.status == 200, deleted.body
    for procedure, data in (("kpis.setValue", {"kpiId": kpi["id"], "value": 2}),
                            ("kpis.setTarget", {"kpiId": kpi["id"], "value": 1, "deadline": "2030-01-01"}),
                            ("kpis.update", {"id": kpi["id"], "name": "Renamed"}),
                            ("kpis.delete", {"id": kpi["id"]})):
        refused = await board.api.mutate(procedure, data)
        assert refused.status == 404, (procedure, refused.status, refused.body)
    assert await pool_of(board.org).fetchval("SELECT count(*) FROM events WHERE stream = $1", stream) == logged


async def test_one_statement_writes_a_kpi_with_its_first_values_alert_target_and_activity(board: Board) -> None:
    """A turn that defines a KPI and records on it writes all in one statement: the values' and alert's
    foreign keys are checked once the KPI row is in."""
    org_id, now = board.org.id, datetime.now(UTC)
    kpi = KpiRow(id=new_id(Prefix.KPI), organization_id=org_id, board_id=board.id, name="Scrap", category="quality",
                 unit="%", direction="lower_is_better", frequency="daily", thresholds=None,
                 responsible_user_id=None, version=1, created_by=board.org.owner_id, created_at=now, updated_at=now)
    values = [ValueRow(id=new_id(Prefix.KPI_VALUE), kpi_id=kpi.id, value=float(n), status="red", recorded_at=now,
                       recorded_by=None, source="api", comment=None) for n in (3, 1, 2)]
    alert = AlertRow(id=new_id(Prefix.KPI_ALERT), kpi_id=kpi.id, board_id=board.id, value_id=values[0].id, value=3.0,
                     threshold="red", status="active", triggered_at=now)
    target = TargetRow(id=new_id(Prefix.KPI_TARGET), kpi_id=kpi.id, value=1.0, deadline=now.date(), milestones=[],
                       set_by=None, set_at=now)
    entry = {"id": new_id(Prefix.ACTIVITY), "entity_type": "kpi", "entity_id": kpi.id, "action": "kpi.created",
             "metadata": {"name": "Scrap"}, "actor_id": None}
    statement = TurnStatement()
    repo.add_turn(statement, org_id, kpis=[kpi], values=values, alerts=[alert], targets=[target], activity=[entry])
    await statement.execute(pool_of(board.org))

    pool = pool_of(board.org)
    latest = await repo.latest_value(pool, org_id, kpi.id)
    assert latest is not None and latest["id"] == values[-1].id, "values keep the order given"
    assert [row["id"] for row in await repo.open_alerts(pool, org_id, kpi.id)] == [alert.id]
    current = await repo.current_target(pool, org_id, kpi.id)
    assert current is not None and current["id"] == target.id
    assert await pool.fetchval("SELECT thresholds IS NULL FROM kpis WHERE id = $1", kpi.id)
    assert await pool.fetchval("SELECT action FROM activity WHERE id = $1", entry["id"]) == "kpi.created"


async def test_an_update_that_changes_nothing_is_refused_once_the_board_is_gone(board: Board) -> None:
    """An update naming the KPI's own values writes no row, so no foreign key refuses it: its board is read from
    the database, not from the node's cache, and the deleted KPI is not answered from the actor's memory."""
    kpi = await define(board)
    unchanged = await board.api.mutate("kpis.update", {"id": kpi["id"], "name": kpi["name"]})
    assert unchanged.status == 200, unchanged.body

    deleted = await board.api.mutate("boards.delete", {"id": board.id})
    assert deleted.status == 200, deleted.body
    for data in ({"id": kpi["id"], "name": kpi["name"]}, {"id": kpi["id"]}):
        refused = await board.api.mutate("kpis.update", data)
        assert refused.status == 404, (data, refused.body)
