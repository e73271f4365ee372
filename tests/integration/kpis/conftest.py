"""KPI fixtures: the board fixture of the board tests, the live tests' screens, a KPI-definition helper, and
reading what the event log holds on a stream."""

from __future__ import annotations

from typing import Any

from storage import events as event_log
from tests.harness import Api, Org
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)
from tests.integration.live.conftest import screens  # noqa: F401  (fixture re-exported for the live test)
from web.keys import NODE

# Higher is better: green from 90 up, amber from 80 to 90, red up to 80 (bounds shared with the better band).
BANDS_UP = {"green": {"min": 90}, "amber": {"min": 80, "max": 90}, "red": {"max": 80}}
# Lower is better: green up to 2, amber from 2 to 5, red from 5 up.
BANDS_DOWN = {"green": {"max": 2}, "amber": {"min": 2, "max": 5}, "red": {"min": 5}}


def kpi_input(board_id: str, name: str = "On-time delivery", **fields: Any) -> dict[str, Any]:
    """A valid kpis.define input; `fields` replace its parts."""
    return {"boardId": board_id, "name": name, "category": "delivery", "direction": "higher_is_better",
            "frequency": "daily", "unit": "%", "thresholds": BANDS_UP, **fields}


async def define(on: Board, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("kpis.define", kpi_input(on.id, **fields))
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def set_value(api: Api, kpi_id: str, value: float, **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("kpis.setValue", {"kpiId": kpi_id, "value": value, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def events_on(org: Org, stream: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, payload) of every event of the stream, oldest first."""
    pool = org.owner.client.app[NODE].pool
    return [(event.name, event.payload) for event in await event_log.read(pool, org.id, stream, 0, 10_000)]


def pool_of(org: Org) -> Any:
    return org.owner.client.app[NODE].pool
