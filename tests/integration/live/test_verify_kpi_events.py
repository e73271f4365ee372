"""Zulip's verify_action for a KPI screen: for each kind of change a screen subscribed to `kpi:<id>` is sent
(`kpi.value_entered`, `kpi.target_breached`, `kpi.alert_updated`, `kpi.updated` for the definition and the
target), a copy of the KPI read before the change, with the received events folded into it, equals a fresh
read after it. A KPI screen that applies what it is sent therefore never needs to reload."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import define
from tests.integration.live.conftest import Screen, received_for

State = dict[str, Any]


async def read(board: Board, kpi_id: str) -> State:
    """What a KPI screen shows: the KPI (definition, latest value, target, version) and its alerts."""
    got = await board.api.query("kpis.get", {"id": kpi_id})
    assert got.status == 200, got.body
    alerts = await board.api.query("kpis.getAlerts", {"boardId": board.id, "kpiId": kpi_id, "limit": 100})
    assert alerts.status == 200, alerts.body
    kpi = {name: value for name, value in got.data.items() if name != "responsibleUser"}
    return {"kpi": kpi, "alerts": {alert["id"]: alert for alert in alerts.data["alerts"]}}


def fold(state: State, name: str, payload: dict[str, Any]) -> None:
    """Apply one received KPI event to the screen's copy, checking each change starts from what it holds."""
    data = payload["data"]
    kpi, alerts = state["kpi"], state["alerts"]
    assert data["kpi"]["id"] == kpi["id"], data
    if name == "kpi.value_entered":
        value = data["value"]
        assert value["kpiId"] == kpi["id"]
        kpi["latestValue"] = {"value": value["value"], "status": value["status"], "recordedAt": value["recordedAt"]}
    elif name == "kpi.target_breached":
        assert data["alert"]["id"] not in alerts, data
        alerts[data["alert"]["id"]] = data["alert"]
    elif name == "kpi.alert_updated":
        alert = data["alert"]
        assert alerts[alert["id"]]["status"] != alert["status"], data
        alerts[alert["id"]] = alert
    elif name == "kpi.updated":
        for field, change in data["changes"].items():
            assert kpi[field] == change["old"], (field, change, kpi[field])
        kpi.clear()
        kpi.update(data["kpi"])
        for shown in alerts.values():  # an alert shows its KPI's name
            shown["kpiName"] = kpi["name"]
    else:
        raise AssertionError(f"a KPI screen cannot fold {name}")


async def verify(board: Board, screen: Screen, state: State, kpi_id: str, change: Callable[[], Awaitable[Any]],
                 expected: list[str]) -> State:
    """Apply `change`, fold what the screen receives into `state`, compare with a fresh read."""
    received = await received_for(screen, board, f"kpi:{kpi_id}", change)
    assert [name for name, _ in received] == expected, received
    for name, payload in received:
        fold(state, name, payload)
    assert state == await read(board, kpi_id), expected
    return state


async def test_every_kpi_event_folds_into_a_fresh_read(org: Org, screens: Any) -> None:
    board = await make_board(org)
    kpi = await define(board, responsibleUserId=board.org.owner_id)
    screen = screens()
    await screen.connect(board.api)
    ack = await screen.call("subscribe", {"room": f"kpi:{kpi['id']}"})
    assert ack["ok"] is True, ack
    state = copy.deepcopy(await read(board, kpi["id"]))
    api = board.api
    alert: dict[str, str] = {}

    async def ok(procedure: str, data: dict[str, Any]) -> dict[str, Any]:
        reply = await api.mutate(procedure, data)
        assert reply.status == 200, (procedure, reply.body)
        return dict(reply.data)

    async def breach() -> None:
        alert["id"] = (await ok("kpis.setValue", {"kpiId": kpi["id"], "value": 70}))["alert"]["id"]

    steps: list[tuple[Callable[[], Awaitable[Any]], list[str]]] = [
        (lambda: ok("kpis.setValue", {"kpiId": kpi["id"], "value": 95}), ["kpi.value_entered"]),
        (breach, ["kpi.value_entered", "kpi.target_breached"]),
        (lambda: ok("kpis.acknowledgeAlert", {"alertId": alert["id"]}), ["kpi.alert_updated"]),
        (lambda: ok("kpis.setValue", {"kpiId": kpi["id"], "value": 85}), ["kpi.value_entered"]),  # amber < red
        (lambda: ok("kpis.setValue", {"kpiId": kpi["id"], "value": 99}),
         ["kpi.value_entered", "kpi.alert_updated"]),  # back to green: the open alert resolves itself
        (lambda: ok("kpis.setValue", {"kpiId": kpi["id"], "value": 82}),
         ["kpi.value_entered", "kpi.target_breached"]),
        (lambda: ok("kpis.resolveAlert", {"alertId": next(iter(state["alerts"].keys() - {alert["id"]}))}),
         ["kpi.alert_updated"]),
        (lambda: ok("kpis.batchSetValues", {"entries": [{"kpiId": kpi["id"], "value": 60},
                                                       {"kpiId": kpi["id"], "value": 97}]}),
         ["kpi.value_entered", "kpi.target_breached", "kpi.value_entered", "kpi.alert_updated"]),
        (lambda: ok("kpis.update", {"id": kpi["id"], "name": "On-time delivery (site)", "unit": "pct"}),
         ["kpi.updated"]),
        (lambda: ok("kpis.setTarget", {"kpiId": kpi["id"], "value": 98, "deadline": "2031-12-31",
                                       "milestones": [{"value": 95, "deadline": "2031-06-30"}]}),
         ["kpi.updated"]),
        (lambda: ok("kpis.update", {"id": kpi["id"], "thresholds": {"green": {"min": 50}, "red": {"max": 50}}}),
         ["kpi.updated"]),
    ]
    for change, expected in steps:
        state = await verify(board, screen, state, kpi["id"], change, expected)
