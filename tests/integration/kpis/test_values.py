"""KPI values: setValue with its server-computed status, getValue, getHistory's window and limit,
who recorded a value and from where (`source`), batches across KPIs with an entry that fails, targets with
milestones, and the export helper's rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from actors.runtime.clock import ManualClock
from storage import kpis as kpi_repo
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.credentials.helpers import create_key, create_token
from tests.integration.kpis.conftest import BANDS_DOWN, define, events_on, pool_of, set_value


async def test_set_value_records_who_when_and_the_status(board: Board) -> None:
    kpi = await define(board)
    value = await set_value(board.api, kpi["id"], 92.25, comment="night shift")
    assert value["id"].startswith("kpv_") and value["kpiId"] == kpi["id"]
    assert (value["value"], value["status"], value["comment"]) == (92.25, "green", "night shift")
    assert value["recordedBy"] == board.org.owner_id and value["source"] == "manual"
    assert value["alert"] is None

    latest = await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})
    assert latest.status == 200 and latest.data == {k: v for k, v in value.items() if k != "alert"}
    events = await events_on(board.org, f"kpi:{kpi['id']}")
    assert events[-1][0] == "kpi.value_entered"
    assert events[-1][1]["data"]["value"] == latest.data
    assert events[-1][1]["data"]["kpi"] == {"id": kpi["id"], "boardId": board.id, "name": "On-time delivery",
                                            "category": "delivery", "unit": "%"}
    assert [n for n, _ in await events_on(board.org, f"board:{board.id}")][-1] == "kpi.value_entered"


async def test_get_value_before_any_value_is_null(board: Board) -> None:
    kpi = await define(board)
    reply = await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})
    assert reply.status == 200 and reply.data is None


async def test_a_kpi_without_thresholds_records_unrated_values(board: Board) -> None:
    kpi = await define(board, thresholds=None, responsibleUserId=board.org.owner_id)
    value = await set_value(board.api, kpi["id"], -3)
    assert value["status"] is None and value["alert"] is None
    alerts = await board.api.query("kpis.getAlerts", {"boardId": board.id})
    assert alerts.data["alerts"] == []


async def test_values_entered_with_a_key_or_token_are_from_the_api(board: Board) -> None:
    kpi = await define(board)
    key, _ = await create_key(board.api, scopes=["write:kpis"])
    by_key = await set_value(board.api.with_bearer(key), kpi["id"], 91)
    assert by_key["source"] == "api" and by_key["recordedBy"] == board.org.owner_id
    token = await create_token(board.api, scopes=["write"])
    by_token = await set_value(board.api.with_bearer(token["token"]), kpi["id"], 92)
    assert by_token["source"] == "api"
    assert (await set_value(board.api, kpi["id"], 93))["source"] == "manual"


async def test_a_read_key_reads_but_does_not_record(board: Board) -> None:
    kpi = await define(board)
    reader, _ = await create_key(board.api, scopes=["read:kpis"])
    as_reader = board.api.with_bearer(reader)
    assert (await as_reader.query("kpis.getValue", {"kpiId": kpi["id"]})).status == 200
    assert (await as_reader.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 1})).status == 403


async def test_a_measurement_key_records_values_but_does_not_change_the_kpi(board: Board) -> None:
    """`write:kpis` records measurements; changing a KPI is `write:items` ("create and modify ... KPIs")."""
    kpi = await define(board)
    alert = (await set_value(board.api, kpi["id"], 50))["alert"]
    recorder, _ = await create_key(board.api, scopes=["write:kpis"])
    logger = board.api.with_bearer(recorder)
    assert (await logger.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 40})).status == 200
    batch = await logger.mutate("kpis.batchSetValues", {"entries": [{"kpiId": kpi["id"], "value": 45}]})
    assert batch.status == 200 and batch.data["recorded"] == 1
    changes = (("kpis.define", {"boardId": board.id, "name": "Scrap", "category": "quality",
                                "direction": "lower_is_better", "frequency": "daily"}),
               ("kpis.update", {"id": kpi["id"], "name": "Renamed"}),
               ("kpis.setTarget", {"kpiId": kpi["id"], "value": 95, "deadline": "2027-01-31"}),
               ("kpis.acknowledgeAlert", {"alertId": alert["id"]}),
               ("kpis.resolveAlert", {"alertId": alert["id"]}),
               ("kpis.delete", {"id": kpi["id"]}))
    for name, payload in changes:
        reply = await logger.mutate(name, payload)
        assert reply.status == 403 and reply.error["data"]["code"] == "FORBIDDEN", name
    assert (await board.api.query("kpis.get", {"id": kpi["id"]})).data["version"] == 1

    editor, _ = await create_key(board.api, scopes=["write:items"])
    for name, payload in changes:
        reply = await board.api.with_bearer(editor).mutate(name, payload)
        assert reply.status == 200, (name, reply.body)


async def test_bad_values_are_refused_naming_the_field(board: Board) -> None:
    kpi = await define(board)
    for payload, field in (({"kpiId": kpi["id"]}, "value"), ({"kpiId": kpi["id"], "value": "90"}, "value"),
                           ({"kpiId": kpi["id"], "value": True}, "value"),
                           ({"kpiId": kpi["id"], "value": 2e15}, "value"),
                           ({"kpiId": kpi["id"], "value": 1, "comment": "x" * 2001}, "comment"),
                           ({"value": 1}, "kpiId")):
        reply = await board.api.mutate("kpis.setValue", payload)
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, payload
    assert (await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})).data is None


async def test_history_window_and_limit(clocked_client: Any, clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org)
    kpi = await define(board)
    start = clock.now()
    recorded = []
    for day in range(5):
        recorded.append(await set_value(org.owner, kpi["id"], 90 + day))
        clock.advance(24 * 3600)

    history = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"]})
    assert history.status == 200, history.body
    assert history.data["kpiId"] == kpi["id"]
    assert [v["value"] for v in history.data["history"]] == [94, 93, 92, 91, 90]  # newest first

    window = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], "from": recorded[1]["recordedAt"],
                                                       "to": recorded[3]["recordedAt"]})
    assert [v["value"] for v in window.data["history"]] == [93, 92, 91]  # both ends included
    second_day = (start + timedelta(days=1)).date().isoformat()
    by_date = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], "from": second_day, "to": second_day})
    assert [v["value"] for v in by_date.data["history"]] == [91]  # a date is the whole UTC day
    limited = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], "limit": 2})
    assert [v["value"] for v in limited.data["history"]] == [94, 93]

    for payload, field in (({"limit": 1001}, "limit"), ({"limit": 0}, "limit"), ({"from": "yesterday"}, "from"),
                           ({"to": "2026-13-01"}, "to"),
                           ({"from": recorded[3]["recordedAt"], "to": recorded[1]["recordedAt"]}, "from")):
        reply = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], **payload})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, payload
    assert (await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], "limit": 1000})).status == 200


async def test_history_bounds_end_where_they_say(clocked_client: Any, clock: ManualClock) -> None:
    """`to` includes its day or its millisecond and nothing after; any date or timestamp answers 200 or 400."""
    org = await make_org(clocked_client)
    board = await make_board(org)
    kpi = await define(board)
    first_day = clock.now().date()
    midnight = datetime.combine(first_day + timedelta(days=1), time.min, tzinfo=UTC)
    clock.advance((midnight - clock.now()).total_seconds() - 1)
    await set_value(org.owner, kpi["id"], 91)  # 23:59:59 of the first day
    clock.advance(1)
    at_midnight = await set_value(org.owner, kpi["id"], 92)  # 00:00:00.000 of the next day
    clock.advance(0.001)
    await set_value(org.owner, kpi["id"], 93)  # one millisecond later

    async def values(**window: str) -> list[float]:
        reply = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], **window})
        assert reply.status == 200, (window, reply.body)
        return [v["value"] for v in reply.data["history"]]

    day = first_day.isoformat()
    assert await values(**{"from": day, "to": day}) == [91]
    assert await values(to=at_midnight["recordedAt"]) == [92, 91]
    basic = first_day.strftime("%Y%m%d")  # ISO 8601 basic format: still a whole day
    assert await values(**{"from": basic, "to": basic}) == [91]
    assert await values(**{"from": "0001-01-01", "to": "9999-12-31"}) == [93, 92, 91]
    assert await values(to="9999-12-31T23:59:59.999Z") == [93, 92, 91]
    for payload, field in (({"from": "0001-01-01T00:00:00+05:00"}, "from"),
                           ({"to": "9999-12-31T23:00:00-05:00"}, "to")):
        reply = await org.owner.query("kpis.getHistory", {"kpiId": kpi["id"], **payload})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, payload


async def test_history_defaults_to_the_latest_hundred(board: Board) -> None:
    kpi = await define(board)
    for chunk in range(2):
        entries = [{"kpiId": kpi["id"], "value": chunk * 60 + n} for n in range(60)]
        assert (await board.api.mutate("kpis.batchSetValues", {"entries": entries})).status == 200
    history = (await board.api.query("kpis.getHistory", {"kpiId": kpi["id"]})).data["history"]
    assert len(history) == 100 and history[0]["value"] == 119 and history[-1]["value"] == 20
    assert (await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})).data["value"] == 119


async def test_batch_spans_kpis_and_answers_each_entry(board: Board) -> None:
    delivery = await define(board)
    injuries = await define(board, name="Injuries", category="safety", direction="lower_is_better",
                            thresholds=BANDS_DOWN)
    other_board = await make_board(board.org)
    scrap = await define(other_board, name="Scrap", category="quality")
    entries = [{"kpiId": delivery["id"], "value": 95}, {"kpiId": injuries["id"], "value": 0, "comment": "none"},
               {"kpiId": "kpi_doesnotexist0000000", "value": 1}, {"kpiId": delivery["id"], "value": 85},
               {"kpiId": scrap["id"], "value": 99}]
    reply = await board.api.mutate("kpis.batchSetValues", {"entries": entries})
    assert reply.status == 200, reply.body
    assert (reply.data["recorded"], reply.data["failed"]) == (4, 1)
    results = reply.data["results"]
    assert [r["index"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["recorded"] for r in results] == [True, True, False, True, True]
    assert results[2]["kpiId"] == "kpi_doesnotexist0000000" and results[2]["value"] is None
    assert results[2]["error"]["code"] == "NOT_FOUND"
    assert [(r["value"]["value"], r["value"]["status"]) for r in results if r["recorded"]] == [
        (95, "green"), (0, "green"), (85, "amber"), (99, "green")]
    assert results[1]["value"]["comment"] == "none" and results[0]["error"] is None

    history = (await board.api.query("kpis.getHistory", {"kpiId": delivery["id"]})).data["history"]
    assert [v["value"] for v in history] == [85, 95]  # one KPI's entries recorded in order
    assert (await board.api.query("kpis.getValue", {"kpiId": scrap["id"]})).data["value"] == 99


async def test_a_malformed_batch_records_nothing(board: Board) -> None:
    kpi = await define(board)
    for entries, field, says in (
            ([{"kpiId": kpi["id"], "value": 1}, {"kpiId": kpi["id"]}], "entries.1", "`value`"),
            ([{"kpiId": kpi["id"], "value": 1}, {"kpiId": kpi["id"], "value": "x"}], "entries.1.value", "float"),
            ([], "entries", "length"), ([{"kpiId": kpi["id"], "value": 1}] * 101, "entries", "length")):
        reply = await board.api.mutate("kpis.batchSetValues", {"entries": entries})
        assert reply.status == 400, reply.body
        [detail] = reply.error["data"]["details"]
        assert detail["field"] == field and says in detail["message"], detail
    assert (await board.api.query("kpis.getValue", {"kpiId": kpi["id"]})).data is None


async def test_targets_with_milestones(board: Board) -> None:
    kpi = await define(board)
    empty = await board.api.query("kpis.getTargets", {"kpiId": kpi["id"]})
    assert empty.status == 200 and empty.data == {"kpiId": kpi["id"], "target": None, "targets": []}
    first = await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 92, "deadline": "2027-03-31"})
    assert first.status == 200, first.body
    assert (first.data["kpiId"], first.data["value"], first.data["deadline"], first.data["milestones"]) == (
        kpi["id"], 92, "2027-03-31", [])
    second = await board.api.mutate("kpis.setTarget", {
        "kpiId": kpi["id"], "value": 97, "deadline": "2027-12-31",
        "milestones": [{"value": 95, "deadline": "2027-09-30"}, {"value": 93, "deadline": "2027-06-30"}]})
    assert second.status == 200, second.body
    assert second.data["milestones"] == [{"value": 93, "deadline": "2027-06-30"},
                                         {"value": 95, "deadline": "2027-09-30"}]  # in deadline order
    targets = (await board.api.query("kpis.getTargets", {"kpiId": kpi["id"]})).data
    assert targets["target"]["value"] == 97 and [t["value"] for t in targets["targets"]] == [97, 92]
    assert targets["target"]["setBy"] == board.org.owner_id
    got = (await board.api.query("kpis.get", {"id": kpi["id"]})).data
    assert got["target"] == targets["target"]
    updated = [payload for name, payload in await events_on(board.org, f"kpi:{kpi['id']}") if name == "kpi.updated"]
    assert updated[-1]["data"]["changes"]["target"]["old"]["value"] == 92
    assert updated[-1]["data"]["changes"]["target"]["new"]["value"] == 97

    for payload, field in (({"deadline": "2027-13-01"}, "deadline"), ({"deadline": None}, "deadline"),
                           ({"value": "high"}, "value"),
                           ({"milestones": [{"value": 1, "deadline": "2028-01-01"}]}, "milestones.0.deadline"),
                           ({"milestones": [{"value": 1}]}, "milestones.0")):
        reply = await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 90, "deadline": "2027-12-31",
                                                          **payload})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, payload
    assert len((await board.api.query("kpis.getTargets", {"kpiId": kpi["id"]})).data["targets"]) == 2


async def test_every_value_is_on_the_activity_trail(board: Board) -> None:
    kpi = await define(board)
    await set_value(board.api, kpi["id"], 91)
    await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 95, "deadline": "2027-01-31"})
    trail = await board.org.owner.rest("GET", "/api/v1/audit/entity", params={"entityType": "kpi",
                                                                              "entityId": kpi["id"]})
    assert [entry["action"] for entry in trail.data] == ["kpi.target_set", "kpi.value_entered", "kpi.created"]
    assert trail.data[1]["metadata"]["value"] == 91 and trail.data[1]["metadata"]["status"] == "green"


async def test_values_for_export(clocked_client: Any, clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org)
    kpi = await define(board, name="OTD")
    key, _ = await create_key(org.owner, scopes=["write:kpis"])
    first_day = clock.now().date()
    await set_value(org.owner, kpi["id"], 91, comment="day one")
    clock.advance(24 * 3600)
    await set_value(org.owner.with_bearer(key), kpi["id"], 92)
    clock.advance(24 * 3600)
    await set_value(org.owner, kpi["id"], 93)
    other = await make_board(org)
    await set_value(org.owner, (await define(other))["id"], 50)

    pool = pool_of(org)
    rows = await kpi_repo.values_for_export(pool, org.id, board.id, first_day, first_day + timedelta(days=1))
    assert [(r["name"], r["category"], r["unit"], r["value"], r["source"], r["comment"]) for r in rows] == [
        ("OTD", "delivery", "%", 91, "manual", "day one"), ("OTD", "delivery", "%", 92, "api", None)]
    assert rows[0]["recorded_at"].date() == first_day
    assert await kpi_repo.values_for_export(pool, org.id, board.id, date(2000, 1, 1), date(2000, 1, 2)) == []
    outsider = await make_org(clocked_client)
    assert await kpi_repo.values_for_export(pool, outsider.id, board.id, first_day, first_day + timedelta(3)) == []
