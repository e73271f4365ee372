"""Running automations on board events: triggers, conditions, actions as the rule's
creator, execution records in both views, template variables and the cascade depth limit."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.automations.conftest import create, engine_idle, runs
from tests.integration.boards.conftest import Board
from web.keys import NODE

pytestmark = pytest.mark.workers("automations")


async def test_item_created_notifies_with_template_variables(board: Board) -> None:
    automation = await create(board, actions=[{"type": "send_notification", "config": {
        "userIds": [board.org.owner_id], "message": "{user.name} added {item.name} to {board.name}/{group.name}"}}])
    item = await board.add_item("Leaking valve")
    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["error"] is None
    assert run["automationRuleId"] == automation["id"] and run["itemId"] == item["id"]
    assert run["triggerType"] == "item.created" and run["actionResults"] == [
        {"type": "send_notification", "success": True}]
    assert run["conditionResults"] == [] and isinstance(run["duration"], int)
    notes = await board.api.query("notifications.list", {"limit": 5})
    [note] = notes.data["notifications"]
    group = board.view["groups"][0]["name"]
    assert note["body"] == f"Olga Owner added Leaking valve to Tier 1 board/{group}"
    assert note["title"] == automation["name"] and note["entityId"] == item["id"]

    by_id = await board.api.query("automations.getExecutionById", {"id": run["id"]})
    assert by_id.status == 200 and by_id.data == run
    log = await board.api.query("automations.log", {"automationId": automation["id"]})
    assert log.status == 200 and log.data["executions"] == [{
        "id": run["id"], "automationId": automation["id"], "status": "success",
        "triggeredBy": {"type": "item.created", "itemId": item["id"], "userId": board.org.owner_id},
        "actionsExecuted": 1, "duration": run["duration"], "executedAt": run["executedAt"]}]
    rules = await board.api.query("automations.list", {"boardId": board.id})
    assert rules.data["automations"][0]["executionCount"] == 1
    assert rules.data["automations"][0]["lastExecutedAt"] is not None


async def test_value_changed_with_conditions_runs_or_skips(board: Board) -> None:
    status = board.column("status")["id"]
    second_group = await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Closed"})
    closed = second_group.data["id"]
    await create(board, name="Close done items",
                 trigger={"type": "value.changed", "config": {"columnId": status, "toValue": "Done"}},
                 conditions=[{"columnId": status, "operator": "is", "value": "Done"}],
                 actions=[{"type": "move_item", "config": {"groupId": closed}},
                          {"type": "set_value", "config": {"columnId": "col_missing", "value": "x"}}])
    other = await create(board, name="Only urgent", trigger={"type": "value.changed", "config": {"columnId": status}},
                         conditions=[{"columnId": status, "operator": "is_empty"}],
                         actions=[{"type": "archive_item"}])
    item = await board.add_item()
    done = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": status, "value": "Done"})
    assert done.status == 200, done.body
    history = await runs(board, 2)
    by_status = {run["status"]: run for run in history}
    assert set(by_status) == {"partial_failure", "skipped"}
    assert by_status["partial_failure"]["actionResults"] == [{"type": "move_item", "success": True},
                                                             {"type": "set_value", "success": False,
                                                              "error": "column not found"}]
    assert "set_value" in by_status["partial_failure"]["error"]
    assert by_status["skipped"]["automationRuleId"] == other["id"]
    assert by_status["skipped"]["conditionResults"] == [
        {"field": status, "operator": "is_empty", "value": None, "passed": False}]
    moved = await board.api.query("items.get", {"id": item["id"]})
    assert moved.data["groupId"] == closed and moved.data["archivedAt"] is None
    skipped = await board.api.query("automations.getExecutionHistory", {"boardId": board.id, "status": "skipped"})
    assert [run["id"] for run in skipped.data["items"]] == [by_status["skipped"]["id"]]


async def test_an_action_config_value_of_the_wrong_type_fails_the_action_saying_why(board: Board) -> None:
    """A rule is saved with its config's keys checked, not their types. The run fails the action naming the field,
    as it does on whichever node owns the board (the suite passes every board message through its codec)."""
    await create(board, name="Numbered column", actions=[
        {"type": "set_value", "config": {"columnId": 12345, "value": "x"}},
        {"type": "move_item", "config": {"groupId": ["grp_1"]}}])
    await board.add_item()
    [run] = await runs(board, 1)
    assert run["status"] == "failure", run
    assert [result["type"] for result in run["actionResults"]] == ["set_value", "move_item"]
    assert [result["success"] for result in run["actionResults"]] == [False, False]
    assert "$.columnId" in run["actionResults"][0]["error"] and "$.groupId" in run["actionResults"][1]["error"]


async def test_a_cascade_stops_at_the_depth_limit(board: Board) -> None:
    column = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Note", "type": "text"})
    note = column.data["id"]
    await create(board, name="Echo", trigger={"type": "value.changed", "config": {"columnId": note}},
                 actions=[{"type": "set_value", "config": {"columnId": note, "value": "{value.new}+"}}])
    item = await board.add_item()
    await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": note, "value": "a"})
    history = await runs(board, 4)
    assert [run["status"] for run in history] == ["failure", "success", "success", "success"]
    assert history[0]["error"] == "cascade depth limit reached"
    value = await board.api.query("items.get", {"id": item["id"]})
    assert value.data["values"][note] == "a+++"


async def test_history_pages_by_timestamp(board: Board) -> None:
    await create(board)
    for n in range(3):
        await board.add_item(f"Item {n}")
    everything = await runs(board, 3)
    assert len(everything) == 3
    first = await board.api.query("automations.getExecutionHistory", {"boardId": board.id, "limit": 2})
    rest = await board.api.query("automations.getExecutionHistory",
                                 {"boardId": board.id, "limit": 2, "cursor": first.data["nextCursor"]})
    seen = [run["id"] for run in first.data["items"] + rest.data["items"]]
    assert sorted(seen) == sorted(run["id"] for run in everything) and len(seen) == 3
    assert rest.data.get("nextCursor") is None


async def test_a_rule_created_after_the_boards_rules_were_cached_runs_at_once(board: Board) -> None:
    await board.add_item("Before any rule")  # the engine looks the board's rules up (none) and caches that
    await engine_idle(board)  # the engine took that event off its queue
    await create(board, actions=[{"type": "send_notification", "config": {
        "userIds": [board.org.owner_id], "message": "{item.name}"}}])
    item = await board.add_item("After the rule")
    [run] = await runs(board, 1)
    assert run["itemId"] == item["id"] and run["status"] == "success"


async def test_send_notification_reaches_the_users_private_room(board: Board, screens: Any) -> None:
    """Spec issue 4: send_notification emits `notification.created` to the user's private Socket.IO room."""
    member_id, member = await board.org.add_user("member", name="Mia Member")
    screen = screens()
    await screen.connect(member)  # every socket is in its user's private room
    await create(board, name="Tell Mia", actions=[{"type": "send_notification", "config": {
        "userIds": [member_id], "message": "{item.name} needs you"}}])
    await board.add_item("Jammed feeder")

    [run] = await runs(board, 1)
    assert run["status"] == "success", run["error"]
    await screen.wait_for_seq(1)
    [(name, payload)] = screen.received
    assert name == "notification.created" and payload["seq"] == 1
    note = payload["data"]
    assert (note["type"], note["title"], note["body"]) == ("automation", "Tell Mia", "Jammed feeder needs you")
    assert payload["data"]["automation"]["depth"] == 1


async def test_rules_of_an_organization_whose_plan_lost_automations_do_not_act(board: Board) -> None:
    await create(board, actions=[{"type": "send_notification", "config": {
        "userIds": [board.org.owner_id], "message": "{item.name}"}}])
    pool = board.api.client.server.app[NODE].pool
    await pool.execute("UPDATE organizations SET plan = 'free' WHERE id = $1", board.org.id)  # a downgrade
    await board.add_item("After the downgrade")

    await engine_idle(board)
    history = await pool.fetch("SELECT status, error FROM automation_executions WHERE organization_id = $1",
                               board.org.id)
    assert [tuple(row) for row in history] == [("failure", "the free plan does not include automations")]
    notes = await board.api.query("notifications.list", {"limit": 5})
    assert notes.data["notifications"] == []
