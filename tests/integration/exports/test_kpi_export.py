"""export.exportKpiData: the values of a board's KPIs recorded on the UTC days from startDate to
endDate (both included), under KPI Name, Category, Unit, Date, Value, Source, Comment; needs the `kpis`
plan feature."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.exports.conftest import AWKWARD, export, parse

HEADER = ["KPI Name", "Category", "Unit", "Date", "Value", "Source", "Comment"]
DAY = 24 * 3600


async def define(board: Board, name: str, category: str = "quality", unit: str | None = "%") -> str:
    reply = await board.api.mutate("kpis.define", {"boardId": board.id, "name": name, "category": category,
                                                   "direction": "higher_is_better", "frequency": "daily",
                                                   "unit": unit})
    assert reply.status == 200, reply.body
    return str(reply.data["id"])


async def set_value(api: Api, kpi_id: str, value: float, comment: str | None = None) -> None:
    reply = await api.mutate("kpis.setValue", {"kpiId": kpi_id, "value": value, "comment": comment})
    assert reply.status == 200, reply.body


def to_midnight(clock: ManualClock) -> datetime:
    """Move the clock to the next midnight UTC plus one second; answers that moment."""
    now = clock.now()
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1, seconds=1)
    clock.advance((midnight - now).total_seconds())
    return midnight


async def kpi_export(api: Api, board: Board, start: datetime, end: datetime) -> list[list[str]]:
    return parse(await export(api, "exportKpiData", {"boardId": board.id, "startDate": start.date().isoformat(),
                                                     "endDate": end.date().isoformat()}))


async def test_values_in_the_date_range_round_trip(clocked_client: TestClient, clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    api = board.api
    yield_kpi = await define(board, AWKWARD[0], "quality", "%")
    lost_time = await define(board, 'Lost-time "LTI", count', "safety", None)
    other_board = await make_board(board.org)
    elsewhere = await define(other_board, "Elsewhere")

    day1 = to_midnight(clock)
    await set_value(api, yield_kpi, 97.5, AWKWARD[1])
    await set_value(api, elsewhere, 1)
    clock.advance(DAY - 2)  # 23:59:59 of day 1
    late = clock.now()
    await set_value(api, lost_time, 0, AWKWARD[2])
    clock.advance(2)  # 00:00:01 of day 2
    day2 = clock.now()
    key = await api.mutate("apiKeys.create", {"name": "logger", "scopes": ["write:kpis", "read:kpis"]})
    assert key.status == 200, key.body
    await set_value(api.with_bearer(key.data["key"]), yield_kpi, 98)
    clock.advance(DAY)
    day3 = clock.now()
    await set_value(api, lost_time, 1, "Cut finger\nfirst aid")

    everything = await kpi_export(api, board, day1, day3)
    assert everything[0] == HEADER
    expected: list[list[Any]] = [
        [AWKWARD[0], "quality", "%", iso(day1), "97.5", "manual", AWKWARD[1]],
        ['Lost-time "LTI", count', "safety", "", iso(late), "0", "manual", AWKWARD[2]],
        [AWKWARD[0], "quality", "%", iso(day2), "98", "api", ""],
        ['Lost-time "LTI", count', "safety", "", iso(day3), "1", "manual", "Cut finger\nfirst aid"],
    ]
    assert everything[1:] == expected

    assert (await kpi_export(api, board, day1, day1))[1:] == expected[:2]
    assert (await kpi_export(api, board, day2, day2))[1:] == expected[2:3]
    assert (await kpi_export(api, board, day2, day3))[1:] == expected[2:]
    before = day1 - timedelta(days=5)
    assert await kpi_export(api, board, before, before + timedelta(days=1)) == [HEADER]


async def test_the_widest_date_range_is_served(board: Board) -> None:
    """From the first to the last day a date can name: every value, and no server error at either end."""
    kpi_id = await define(board, "Scrap")
    await set_value(board.api, kpi_id, 4.5)
    window = {"boardId": board.id, "startDate": "0001-01-01", "endDate": "9999-12-31"}
    everything = parse(await export(board.api, "exportKpiData", window))
    assert [(row[0], row[4]) for row in everything[1:]] == [("Scrap", "4.5")]
    last_day = parse(await export(board.api, "exportKpiData", window | {"startDate": "9999-12-31"}))
    assert last_day == [HEADER]


async def test_bad_dates_are_refused_naming_the_field(board: Board) -> None:
    api = board.api
    for fields, field in [({"startDate": "2026-02-30"}, "startDate"), ({"endDate": "21/11/2026"}, "endDate"),
                          ({"startDate": "2026-11-22", "endDate": "2026-11-21"}, "endDate")]:
        reply = await api.query("export.exportKpiData", {"boardId": board.id, "startDate": "2026-11-01",
                                                         "endDate": "2026-11-30", **fields})
        assert reply.status == 400, reply.body
        assert reply.error["data"]["details"][0]["field"] == field
    missing = await api.query("export.exportKpiData", {"boardId": board.id, "startDate": "2026-11-01"})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "endDate"


async def test_needs_the_kpis_feature_and_the_callers_organization(client: TestClient, board: Board) -> None:
    window = {"startDate": "2026-01-01", "endDate": "2026-12-31"}
    free = await make_board(await make_org(client, plan="free"))
    refused = await free.api.query("export.exportKpiData", {"boardId": free.id, **window})
    assert refused.status == 403
    stranger = (await make_board(await make_org(client))).api
    assert (await stranger.query("export.exportKpiData", {"boardId": board.id, **window})).status == 404


async def test_an_api_key_needs_read_kpis_or_read_items(board: Board) -> None:
    window = {"boardId": board.id, "startDate": "2026-01-01", "endDate": "2026-12-31"}
    actions_only = await board.api.mutate("apiKeys.create", {"name": "actions", "scopes": ["read:actions"]})
    assert (await board.api.with_bearer(actions_only.data["key"]).query("export.exportKpiData", window)).status == 403
    for scope in ("read:kpis", "read:items"):
        key = await board.api.mutate("apiKeys.create", {"name": scope, "scopes": [scope]})
        served = await board.api.with_bearer(key.data["key"]).query("export.exportKpiData", window)
        assert served.status == 200 and parse(served.data) == [HEADER], scope
