"""The `kpi.threshold_breach` trigger and the `create_action` action: what automations.create and update take
and refuse, and runs — once per breach (not again for a second red value while the red alert is open, again
after the KPI was green), the amber threshold, the `kpiId` filter — each opening a corrective action on the
board, linked to the KPI, and recorded in the rule's run history."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

import pytest

from tests.integration.automations.conftest import create, engine_idle, history_now, rule, runs
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import define, set_value
from web.keys import NODE


def opens_action(title: str = "Countermeasure: {kpi.name} at {kpi.value}", **config: Any) -> dict[str, Any]:
    return {"type": "create_action", "config": {"title": title, **config}}


def on_breach(**config: Any) -> dict[str, Any]:
    return {"type": "kpi.threshold_breach", "config": config}


async def actions_of(board: Board) -> list[dict[str, Any]]:
    reply = await board.api.query("actions.list", {"boardId": board.id, "limit": 100})
    assert reply.status == 200, reply.body
    return list(reply.data["actions"])


def field_of(reply: Any) -> str:
    assert reply.status == 400, reply.body
    return str(reply.error["data"]["details"][0]["field"])


async def test_create_takes_the_kpi_trigger_and_the_create_action_action(board: Board) -> None:
    kpi = await define(board)
    made = await create(board, name="Red opens an action", trigger=on_breach(kpiId=kpi["id"], threshold="amber"),
                        actions=[opens_action(priority="critical", dueInDays=3),
                                 {"type": "send_notification", "config": {"userIds": [board.org.owner_id],
                                                                          "message": "{kpi.name} is amber"}}])
    assert made["trigger"] == {"type": "kpi.threshold_breach", "config": {"kpiId": kpi["id"], "threshold": "amber"}}
    assert [a["type"] for a in made["actions"]] == ["create_action", "send_notification"]
    plain = await create(board, name="Any red KPI", trigger=on_breach(), actions=[opens_action()])
    assert plain["trigger"] == {"type": "kpi.threshold_breach", "config": {}}


async def test_create_refuses_a_kpi_rule_that_cannot_run_naming_the_field(board: Board) -> None:
    api = board.api
    other = await make_board(board.org)
    elsewhere = await define(other)

    async def refused(**fields: Any) -> str:
        return field_of(await api.mutate("automations.create", rule(board.id, **fields)))

    assert await refused(trigger=on_breach(threshold="green"), actions=[opens_action()]) == "trigger.config.threshold"
    assert await refused(trigger=on_breach(kpiId=elsewhere["id"]), actions=[opens_action()]) == "trigger.config.kpiId"
    assert await refused(trigger=on_breach(kpiId="kpi_missing"), actions=[opens_action()]) == "trigger.config.kpiId"
    assert await refused(trigger=on_breach(kpiId=7), actions=[opens_action()]) == "trigger.config.kpiId"
    for item_action in ({"type": "set_value", "config": {"columnId": board.column("status")["id"], "value": "Done"}},
                        {"type": "archive_item", "config": {}}, {"type": "move_item", "config": {"groupId": "g"}}):
        assert await refused(trigger=on_breach(), actions=[opens_action(), item_action]) == "actions.1.type"
    assert await refused(trigger=on_breach(), actions=[opens_action()], conditions=[
        {"columnId": board.column("status")["id"], "operator": "is_empty"}]) == "conditions"
    assert await refused(trigger=on_breach(), actions=[{"type": "create_action", "config": {}}]) == \
        "actions.0.config.title"
    assert await refused(trigger=on_breach(), actions=[opens_action("   ")]) == "actions.0.config.title"
    assert await refused(trigger=on_breach(), actions=[opens_action(priority="urgent")]) == \
        "actions.0.config.priority"
    for days in (-1, 366, "7", True):
        assert await refused(trigger=on_breach(), actions=[opens_action(dueInDays=days)]) == \
            "actions.0.config.dueInDays"
    assert await refused(trigger=on_breach(), actions=[opens_action(assigneeId=12)]) == "actions.0.config.assigneeId"
    assert (await api.query("automations.list", {"boardId": board.id})).data["automations"] == []


async def test_update_refuses_item_actions_with_the_kpi_trigger_either_way(board: Board) -> None:
    item_rule = await create(board, name="Archive new items")  # item.created -> archive_item
    to_kpi = await board.api.mutate("automations.update", {"id": item_rule["id"], "trigger": on_breach()})
    assert field_of(to_kpi) == "actions.0.type"
    kpi_rule = await create(board, name="Red opens an action", trigger=on_breach(), actions=[opens_action()])
    to_item_action = await board.api.mutate("automations.update", {
        "id": kpi_rule["id"], "actions": [opens_action(), {"type": "archive_item", "config": {}}]})
    assert field_of(to_item_action) == "actions.1.type"
    other = await define(await make_board(board.org))
    foreign = await board.api.mutate("automations.update", {"id": kpi_rule["id"],
                                                            "trigger": on_breach(kpiId=other["id"])})
    assert field_of(foreign) == "trigger.config.kpiId"
    both = await board.api.mutate("automations.update", {"id": item_rule["id"], "trigger": on_breach(),
                                                         "actions": [opens_action()]})
    assert both.status == 200 and both.data["trigger"]["type"] == "kpi.threshold_breach", both.body


async def test_run_now_refuses_a_kpi_rule_instead_of_opening_an_action_per_item(board: Board) -> None:
    await board.add_item("Pump")
    kpi_rule = await create(board, name="Red opens an action", trigger=on_breach(), actions=[opens_action()])
    reply = await board.api.mutate("automations.runNow", {"ruleId": kpi_rule["id"]})
    assert field_of(reply) == "ruleId"
    assert await history_now(board) == [] and await actions_of(board) == []


@pytest.mark.workers("automations")
async def test_a_red_value_opens_one_action_per_breach(board: Board) -> None:
    responsible_id, _ = await board.org.add_user("member", name="Rita Responsible")
    kpi = await define(board, responsibleUserId=responsible_id)
    automation = await create(board, name="Red opens a countermeasure", trigger=on_breach(),
                              actions=[opens_action()])
    today = board.api.client.server.app[NODE].clock.now().astimezone(UTC).date()

    await set_value(board.api, kpi["id"], 72.5)
    [run] = await runs(board, 1)
    assert (run["status"], run["triggerType"], run["automationRuleId"], run["itemId"]) == (
        "success", "kpi.threshold_breach", automation["id"], None)
    assert run["actionResults"] == [{"type": "create_action", "success": True}]
    [action] = await actions_of(board)
    assert {k: action[k] for k in ("title", "status", "priority", "assigneeId", "dueDate", "sourceType", "sourceId",
                                   "category", "createdById")} == {
        "title": "Countermeasure: On-time delivery at 72.5", "status": "open", "priority": "high",
        "assigneeId": responsible_id, "dueDate": (today + timedelta(days=7)).isoformat(), "sourceType": "kpi_breach",
        "sourceId": kpi["id"], "category": "delivery", "createdById": board.org.owner_id}
    assert "72.5 % was recorded for On-time delivery, in its red threshold" in action["description"]

    await set_value(board.api, kpi["id"], 70)  # still red: the open red alert is the same breach
    await engine_idle(board)
    assert len(await history_now(board)) == 1 and len(await actions_of(board)) == 1

    await set_value(board.api, kpi["id"], 95)  # green resolves the alert: the next red is a new breach
    await set_value(board.api, kpi["id"], 60)
    await runs(board, 2)
    await engine_idle(board)
    assert [r["status"] for r in await history_now(board)] == ["success", "success"]
    assert [a["title"] for a in await actions_of(board)] == ["Countermeasure: On-time delivery at 60",
                                                             "Countermeasure: On-time delivery at 72.5"]
    log = await board.api.query("automations.log", {"automationId": automation["id"]})
    assert [e["triggeredBy"]["type"] for e in log.data["executions"]] == ["kpi.threshold_breach"] * 2


@pytest.mark.workers("automations")
async def test_an_amber_rule_fires_on_amber_only(board: Board) -> None:
    kpi = await define(board)  # no responsible user: the action goes to the rule's creator
    await create(board, name="Amber warns", trigger=on_breach(threshold="amber"),
                 actions=[opens_action("Look at {kpi.name}", priority="medium", dueInDays=2)])

    await set_value(board.api, kpi["id"], 60)  # red first: not this rule's colour
    await engine_idle(board)
    assert await history_now(board) == [] and await actions_of(board) == []

    await set_value(board.api, kpi["id"], 95)
    await set_value(board.api, kpi["id"], 85)
    [run] = await runs(board, 1)
    assert run["status"] == "success"
    [action] = await actions_of(board)
    assert (action["title"], action["priority"], action["assigneeId"]) == ("Look at On-time delivery", "medium",
                                                                           board.org.owner_id)


@pytest.mark.workers("automations")
async def test_a_rule_for_one_kpi_ignores_the_others(board: Board) -> None:
    watched = await define(board, name="Scrap rate", category="quality")
    other = await define(board, name="Attendance", category="people")
    assignee_id, _ = await board.org.add_user("member")
    await create(board, name="Scrap goes red", trigger=on_breach(kpiId=watched["id"]),
                 actions=[opens_action("Scrap: {kpi.value}", assigneeId=assignee_id)])

    await set_value(board.api, other["id"], 50)
    await engine_idle(board)
    assert await history_now(board) == [] and await actions_of(board) == []

    await set_value(board.api, watched["id"], 50)
    [run] = await runs(board, 1)
    assert run["status"] == "success"
    [action] = await actions_of(board)
    assert (action["title"], action["sourceId"], action["category"], action["assigneeId"]) == (
        "Scrap: 50", watched["id"], "quality", assignee_id)
