"""The status rule (docs/decisions.md, "KPI status"): closed bands, the better colour on a shared bound, gaps
and values beyond every band judged by direction, missing bands, overlaps, no thresholds. First the pure rule
at every boundary in both directions, then the same boundaries through kpis.batchSetValues."""

from __future__ import annotations

from typing import Any

import pytest

from actors.kpi.status import status_of
from tests.integration.boards.conftest import Board
from tests.integration.kpis.conftest import BANDS_DOWN, BANDS_UP, define

UP, DOWN = "higher_is_better", "lower_is_better"
EPS = 0.001

# (thresholds, direction, value, status)
CASES: list[tuple[dict[str, Any] | None, str, float, str | None]] = [
    # Three bands sharing their bounds, higher is better: green >= 90, amber 80-90, red <= 80.
    (BANDS_UP, UP, 1e6, "green"), (BANDS_UP, UP, 90, "green"), (BANDS_UP, UP, 90 - EPS, "amber"),
    (BANDS_UP, UP, 80 + EPS, "amber"), (BANDS_UP, UP, 80, "amber"), (BANDS_UP, UP, 80 - EPS, "red"),
    (BANDS_UP, UP, -1e6, "red"),
    # Lower is better: green <= 2, amber 2-5, red >= 5.
    (BANDS_DOWN, DOWN, -1e6, "green"), (BANDS_DOWN, DOWN, 2, "green"), (BANDS_DOWN, DOWN, 2 + EPS, "amber"),
    (BANDS_DOWN, DOWN, 5 - EPS, "amber"), (BANDS_DOWN, DOWN, 5, "amber"), (BANDS_DOWN, DOWN, 5 + EPS, "red"),
    (BANDS_DOWN, DOWN, 1e6, "red"),
]
GAPS_UP = {"green": {"min": 95}, "amber": {"min": 80, "max": 90}, "red": {"max": 70}}
GAPS_DOWN = {"green": {"max": 1}, "amber": {"min": 3, "max": 5}, "red": {"min": 8}}
CASES += [
    # Gaps take the worse of the two bands around them; beyond all bands: green on the better side, red on the
    # worse side.
    (GAPS_UP, UP, 100, "green"), (GAPS_UP, UP, 95, "green"), (GAPS_UP, UP, 95 - EPS, "amber"),
    (GAPS_UP, UP, 92, "amber"), (GAPS_UP, UP, 90, "amber"), (GAPS_UP, UP, 80, "amber"),
    (GAPS_UP, UP, 80 - EPS, "red"), (GAPS_UP, UP, 75, "red"), (GAPS_UP, UP, 70, "red"), (GAPS_UP, UP, 0, "red"),
    (GAPS_DOWN, DOWN, -5, "green"), (GAPS_DOWN, DOWN, 1, "green"), (GAPS_DOWN, DOWN, 1 + EPS, "amber"),
    (GAPS_DOWN, DOWN, 2, "amber"), (GAPS_DOWN, DOWN, 3, "amber"), (GAPS_DOWN, DOWN, 5, "amber"),
    (GAPS_DOWN, DOWN, 5 + EPS, "red"), (GAPS_DOWN, DOWN, 6, "red"), (GAPS_DOWN, DOWN, 8, "red"),
    (GAPS_DOWN, DOWN, 50, "red"),
    # Missing bands: only green.
    ({"green": {"min": 90}}, UP, 90, "green"), ({"green": {"min": 90}}, UP, 90 - EPS, "red"),
    ({"green": {"max": 2}}, DOWN, 2, "green"), ({"green": {"max": 2}}, DOWN, 2 + EPS, "red"),
    ({"green": {"min": 90, "max": 100}}, UP, 101, "green"), ({"green": {"min": 1, "max": 2}}, DOWN, 0, "green"),
    # Only red: out of it on the better side is green.
    ({"red": {"max": 80}}, UP, 80, "red"), ({"red": {"max": 80}}, UP, 80 + EPS, "green"),
    ({"red": {"min": 5}}, DOWN, 5, "red"), ({"red": {"min": 5}}, DOWN, 5 - EPS, "green"),
    # Only amber: better side green, worse side red.
    ({"amber": {"min": 80, "max": 90}}, UP, 85, "amber"), ({"amber": {"min": 80, "max": 90}}, UP, 90 + EPS, "green"),
    ({"amber": {"min": 80, "max": 90}}, UP, 80 - EPS, "red"),
    ({"amber": {"min": 80, "max": 90}}, DOWN, 90 + EPS, "red"),
    ({"amber": {"min": 80, "max": 90}}, DOWN, 80 - EPS, "green"),
    # Green and red with a gap and no amber: the gap is red.
    ({"green": {"min": 90}, "red": {"max": 70}}, UP, 80, "red"),
    ({"green": {"max": 1}, "red": {"min": 5}}, DOWN, 3, "red"),
    # Overlapping bands: the better colour wins.
    ({"green": {"min": 50}, "red": {"max": 100}}, UP, 75, "green"),
    ({"green": {"min": 50}, "red": {"max": 100}}, UP, 49, "red"),
    ({"green": {"max": 100}, "red": {"min": 50}}, DOWN, 75, "green"),
    # Bands that contradict the direction are still taken as given; the gap between them is the worse one.
    ({"green": {"max": 10}, "red": {"min": 20}}, UP, 5, "green"),
    ({"green": {"max": 10}, "red": {"min": 20}}, UP, 15, "red"),
    ({"green": {"max": 10}, "red": {"min": 20}}, UP, 25, "red"),
    # A band with no bounds holds every value; no band at all rates nothing.
    ({"amber": {}}, UP, -1e6, "amber"), ({"amber": {}}, DOWN, 1e6, "amber"),
    ({"green": {}, "red": {"max": 0}}, UP, -1, "green"),
    (None, UP, 5, None), ({}, DOWN, 5, None), ({"green": None}, UP, 5, None),
]


@pytest.mark.parametrize(("thresholds", "direction", "value", "expected"), CASES)
def test_status_rule(thresholds: dict[str, Any] | None, direction: str, value: float, expected: str | None) -> None:
    assert status_of(value, thresholds, direction) == expected


@pytest.mark.parametrize(("bands", "direction"), [(BANDS_UP, UP), (BANDS_DOWN, DOWN), (GAPS_UP, UP),
                                                  (GAPS_DOWN, DOWN)])
async def test_the_server_computes_the_status_at_every_boundary(board: Board, bands: dict[str, Any],
                                                                direction: str) -> None:
    cases = [(value, expected) for thresholds, d, value, expected in CASES if thresholds is bands and d == direction]
    kpi = await define(board, direction=direction, thresholds=bands)
    reply = await board.api.mutate("kpis.batchSetValues", {"entries": [{"kpiId": kpi["id"], "value": value}
                                                                       for value, _ in cases]})
    assert reply.status == 200, reply.body
    assert [(r["value"]["value"], r["value"]["status"]) for r in reply.data["results"]] == cases
    history = (await board.api.query("kpis.getHistory", {"kpiId": kpi["id"]})).data["history"]
    assert [(v["value"], v["status"]) for v in reversed(history)] == cases


async def test_a_value_keeps_the_status_it_was_recorded_with(board: Board) -> None:
    kpi = await define(board)
    await board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 85})
    changed = await board.api.mutate("kpis.update", {"id": kpi["id"], "thresholds": {"green": {"min": 80}}})
    assert changed.data["latestValue"]["status"] == "amber"
    again = await board.api.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 85})
    assert again.data["status"] == "green"
