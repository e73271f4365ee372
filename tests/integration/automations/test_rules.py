"""Automation rules: create, list, update, toggle, delete; definitions checked against
the spec's trigger and action lists; the plan's feature gate and per-board limit."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from tests.harness import Org, make_org
from tests.integration.automations.conftest import rule
from tests.integration.boards.conftest import Board, make_board


async def test_create_list_update_toggle_delete(board: Board) -> None:
    api = board.api
    status = board.column("status")
    created = await api.mutate("automations.create", rule(
        board.id, "Close done items",
        trigger={"type": "value.changed", "config": {"columnId": status["id"], "toValue": "Done"}},
        conditions=[{"columnId": status["id"], "operator": "is", "value": "Done"}],
        actions=[{"type": "move_item", "config": {"groupId": board.group_id}}]))
    assert created.status == 200, created.body
    rule_view = created.data
    assert rule_view["id"].startswith("aut_")
    assert rule_view["enabled"] is True and rule_view["executionCount"] == 0 and rule_view["lastExecutedAt"] is None
    assert rule_view["trigger"] == {"type": "value.changed", "config": {"columnId": status["id"], "toValue": "Done"}}
    assert rule_view["conditions"] == [{"columnId": status["id"], "operator": "is", "value": "Done"}]
    assert rule_view["createdBy"] == board.org.owner_id

    listed = await api.query("automations.list", {"boardId": board.id})
    assert listed.status == 200 and [a["id"] for a in listed.data["automations"]] == [rule_view["id"]]

    renamed = await api.mutate("automations.update", {"id": rule_view["id"], "name": "Archive done items",
                                                      "actions": [{"type": "archive_item"}]})
    assert renamed.status == 200, renamed.body
    assert renamed.data["name"] == "Archive done items"
    assert renamed.data["actions"] == [{"type": "archive_item", "config": {}}]
    assert renamed.data["trigger"] == rule_view["trigger"]

    off = await api.mutate("automations.toggle", {"id": rule_view["id"], "enabled": False})
    assert off.status == 200 and off.data["enabled"] is False
    listed = await api.query("automations.list", {"boardId": board.id})
    assert listed.data["automations"][0]["enabled"] is False

    deleted = await api.mutate("automations.delete", {"id": rule_view["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": rule_view["id"]}
    assert (await api.query("automations.list", {"boardId": board.id})).data["automations"] == []
    again = await api.mutate("automations.toggle", {"id": rule_view["id"], "enabled": True})
    assert again.status == 404


async def test_every_trigger_and_action_type_is_accepted(board: Board) -> None:
    column = board.column("status")["id"]
    triggers = [("item.created", {}), ("item.moved", {"toGroupId": board.group_id}),
                ("value.changed", {"columnId": column}), ("date.arrived", {"columnId": column, "offsetDays": 1}),
                ("form.submitted", {"formId": "frm_1"}), ("subitems.completed", {}),
                ("recurring", {"cron": "0 8 * * 1"}), ("webhook.received", {})]
    actions = [
        {"type": "set_value", "config": {"columnId": column, "value": "Done"}},
        {"type": "assign_person", "config": {"columnId": column, "userIds": [board.org.owner_id]}},
        {"type": "move_item", "config": {"groupId": board.group_id}},
        {"type": "create_item", "config": {"boardId": board.id, "groupId": board.group_id, "name": "Follow up"}},
        {"type": "archive_item", "config": {}},
        {"type": "send_notification", "config": {"userIds": [board.org.owner_id], "message": "{item.name} moved"}},
        {"type": "send_email", "config": {"to": "a@b.test", "subject": "Hi", "body": "{item.url}"}},
        {"type": "call_webhook", "config": {"url": "https://example.test/hook", "method": "POST"}},
        {"type": "create_subitem", "config": {"name": "Check"}}]
    for kind, config in triggers:
        definition = rule(board.id, kind, trigger={"type": kind, "config": config}, actions=actions)
        reply = await board.api.mutate("automations.create", definition)
        assert reply.status == 200, (kind, reply.body)


async def test_unknown_types_and_missing_config_are_refused_naming_the_field(board: Board) -> None:
    api = board.api
    bad_trigger = await api.mutate("automations.create", rule(board.id, trigger={"type": "item.exploded"}))
    assert bad_trigger.status == 400 and bad_trigger.error["data"]["details"][0]["field"] == "trigger.type"
    bad_action = await api.mutate("automations.create", rule(board.id, actions=[
        {"type": "archive_item"}, {"type": "launch_rocket", "config": {}}]))
    assert bad_action.status == 400 and bad_action.error["data"]["details"][0]["field"] == "actions.1.type"
    bad_operator = await api.mutate("automations.create", rule(board.id, conditions=[
        {"columnId": "col_x", "operator": "roughly", "value": 1}]))
    assert bad_operator.status == 400 and bad_operator.error["data"]["details"][0]["field"] == "conditions.0.operator"
    no_column = await api.mutate("automations.create", rule(board.id, trigger={"type": "value.changed"}))
    assert no_column.status == 400 and no_column.error["data"]["details"][0]["field"] == "trigger.config.columnId"
    no_message = await api.mutate("automations.create", rule(board.id, actions=[
        {"type": "send_notification", "config": {"userIds": ["usr_1"]}}]))
    assert no_message.status == 400 and no_message.error["data"]["details"][0]["field"] == "actions.0.config.message"
    no_actions = await api.mutate("automations.create", rule(board.id, actions=[]))
    assert no_actions.status == 400 and no_actions.error["data"]["details"][0]["field"] == "actions"
    assert (await api.query("automations.list", {"boardId": board.id})).data["automations"] == []


async def test_rules_on_an_unseen_board_or_rule_are_not_found(board: Board, client: TestClient) -> None:
    other = await make_org(client)
    assert (await other.owner.mutate("automations.create", rule(board.id))).status == 404
    created = await board.api.mutate("automations.create", rule(board.id))
    assert (await other.owner.mutate("automations.delete", {"id": created.data["id"]})).status == 404
    assert (await other.owner.query("automations.list", {"boardId": board.id})).status == 404


async def test_guests_may_read_but_not_change_rules(board: Board) -> None:
    _, guest = await board.org.add_user("guest")
    assert (await guest.mutate("automations.create", rule(board.id))).status == 403


async def test_free_plan_has_no_automations_and_starter_stops_at_five(client: TestClient) -> None:
    free = await make_org(client, plan="free")
    free_board = await make_board(free)
    refused = await free.owner.mutate("automations.create", rule(free_board.id))
    assert refused.status == 403
    assert (await free.owner.query("automations.list", {"boardId": free_board.id})).status == 403

    starter: Org = await make_org(client, plan="starter")
    starter_board = await make_board(starter)
    for n in range(5):
        made = await starter.owner.mutate("automations.create", rule(starter_board.id, f"Rule {n}"))
        assert made.status == 200, made.body
    sixth = await starter.owner.mutate("automations.create", rule(starter_board.id, "Rule 6"))
    assert sixth.status == 403
    listed = await starter.owner.query("automations.list", {"boardId": starter_board.id})
    assert len(listed.data["automations"]) == 5
    second_board = await make_board(starter)
    assert (await starter.owner.mutate("automations.create", rule(second_board.id))).status == 200


async def test_history_checks_its_limit_and_cursor(board: Board) -> None:
    empty = await board.api.query("automations.getExecutionHistory", {"boardId": board.id})
    assert empty.status == 200 and empty.data["items"] == [] and empty.data.get("nextCursor") is None
    for limit in (0, 101):
        bad = await board.api.query("automations.getExecutionHistory", {"boardId": board.id, "limit": limit})
        assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "limit"
    bad_cursor = await board.api.query("automations.getExecutionHistory", {"boardId": board.id, "cursor": "soon"})
    assert bad_cursor.status == 400 and bad_cursor.error["data"]["details"][0]["field"] == "cursor"
    bad_status = await board.api.query("automations.getExecutionHistory", {"boardId": board.id, "status": "meh"})
    assert bad_status.status == 400 and bad_status.error["data"]["details"][0]["field"] == "status"
    assert (await board.api.query("automations.getExecutionById", {"id": "exe_missing"})).status == 404
