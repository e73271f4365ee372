"""A board saved as a template and applied again: the new board has the same groups, columns (with
their settings, a formula re-pointed at the new columns), KPIs (thresholds and target) and automations (re-pointed
at the new board's groups and columns, and firing there); no items, values or comments are copied; overrides
replace parts of the structure; the template counts its uses."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from tests.harness import Org
from tests.integration.automations.conftest import runs
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import BANDS_DOWN, BANDS_UP, events_on
from tests.integration.templates.conftest import apply, save
from web.keys import NODE

STATUS = {"labels": [{"name": "Open", "color": "#E2445C"}, {"name": "Done", "color": "#00C875", "isDone": True}]}


async def source_board(org: Org) -> tuple[Board, dict[str, str]]:
    """A board with two groups, a status and two number columns, a formula over them, a KPI with a target, a
    rule that moves done items to Closed, and an item with a comment."""
    board = await make_board(org, groups=[{"name": "Open", "color": "#E2445C"}, {"name": "Closed",
                                                                                 "color": "#00C875"}],
                             columns=[{"name": "Status", "type": "status", "config": STATUS},
                                      {"name": "Cost", "type": "number", "config": {"decimals": 0}},
                                      {"name": "Saving", "type": "number"}])
    ids = {"open": board.view["groups"][0]["id"], "closed": board.view["groups"][1]["id"],
           "status": board.view["columns"][0]["id"], "cost": board.view["columns"][1]["id"],
           "saving": board.view["columns"][2]["id"]}
    formula = await org.owner.mutate("columns.create", {
        "boardId": board.id, "name": "Payback", "type": "formula",
        "config": {"expression": f"{{{ids['cost']}}} / {{{ids['saving']}}}", "decimals": 1}, "width": 220})
    assert formula.status == 200, formula.body
    kpi = await org.owner.mutate("kpis.define", {
        "boardId": board.id, "name": "On-time delivery", "category": "delivery", "direction": "higher_is_better",
        "frequency": "daily", "unit": "%", "thresholds": BANDS_UP})
    assert kpi.status == 200, kpi.body
    today = org.owner.client.app[NODE].clock.now().date()
    target = await org.owner.mutate("kpis.setTarget", {"kpiId": kpi.data["id"], "value": 97,
                                                       "deadline": (today + timedelta(days=30)).isoformat()})
    assert target.status == 200, target.body
    rule = await org.owner.mutate("automations.create", {
        "boardId": board.id, "name": "Close done items",
        "trigger": {"type": "value.changed", "config": {"columnId": ids["status"], "toValue": "Done"}},
        "conditions": [{"columnId": ids["status"], "operator": "is", "value": "Done"}],
        "actions": [{"type": "move_item", "config": {"groupId": ids["closed"]}}]})
    assert rule.status == 200, rule.body
    item = await board.add_item("Leaking valve", values={ids["cost"]: 400, ids["saving"]: 100})
    comment = await org.owner.mutate("comments.create", {"itemId": item["id"], "body": "Seen on the night shift"})
    assert comment.status == 200, comment.body
    await board.refresh()
    return board, ids


def shape_of(view: dict[str, Any]) -> dict[str, Any]:
    return {"groups": [(g["name"], g["color"]) for g in view["groups"]],
            "columns": [(c["name"], c["type"], c["width"], c["required"]) for c in view["columns"]]}


@pytest.mark.workers("automations")
async def test_a_board_saved_and_applied_again_has_its_structure_kpis_and_working_automations(org: Org) -> None:
    board, ids = await source_board(org)
    template = await save(org.owner, board.id, description="Our line board")
    assert template["id"].startswith("tpl_") and template["sourceBoardId"] == board.id
    assert (template["groups"], template["columns"], template["kpis"], template["automations"]) == (2, 4, 1, 1)
    assert (template["usageCount"], template["createdBy"], template["isVendor"]) == (0, org.owner_id, False)
    structure = template["structure"]
    assert [k["name"] for k in structure["kpis"]] == ["On-time delivery"]
    assert structure["kpis"][0]["target"] == {"value": 97, "days": 30}
    assert "items" not in structure and "Leaking valve" not in str(template)

    new = await apply(org.owner, template["id"], board.project_id, overrides={"defaultView": "table"})
    assert new["id"] != board.id and new["name"] == "Line 4 board" and new["templateId"] == template["id"]
    assert new["defaultView"] == "table" and new["skipped"] == []
    assert shape_of(new) == shape_of(board.view)
    status, cost, saving, payback = new["columns"]
    assert status["config"]["labels"] == board.view["columns"][0]["config"]["labels"]
    assert payback["config"]["expression"] == f"{{{cost['id']}}} / {{{saving['id']}}}"
    items = await org.owner.query("items.list", {"boardId": new["id"]})
    assert items.status == 200 and items.data["items"] == [], items.body

    kpis = await org.owner.query("kpis.list", {"boardId": new["id"]})
    [kpi] = kpis.data["kpis"]
    assert (kpi["name"], kpi["category"], kpi["direction"], kpi["unit"]) == ("On-time delivery", "delivery",
                                                                             "higher_is_better", "%")
    assert kpi["thresholds"]["green"] == {"min": 90, "max": None} and kpi["latestValue"] is None
    today = org.owner.client.app[NODE].clock.now().date()
    assert kpi["target"]["value"] == 97 and kpi["target"]["deadline"] == (today + timedelta(days=30)).isoformat()

    [rule] = (await org.owner.query("automations.list", {"boardId": new["id"]})).data["automations"]
    closed = new["groups"][1]["id"]
    assert rule["trigger"] == {"type": "value.changed", "config": {"columnId": status["id"], "toValue": "Done"}}
    assert rule["conditions"] == [{"columnId": status["id"], "operator": "is", "value": "Done"}]
    assert rule["actions"] == [{"type": "move_item", "config": {"groupId": closed}}]

    on_new = Board(org, new["id"], board.project_id, new)
    item = await on_new.add_item("Worn belt", values={cost["id"]: 300, saving["id"]: 100})
    assert item["values"][payback["id"]] == 3
    done = await org.owner.mutate("items.setValue", {"itemId": item["id"], "columnId": status["id"],
                                                     "value": "Done"})
    assert done.status == 200, done.body
    [run] = await runs(on_new, 1)
    assert run["status"] == "success", run
    moved = await org.owner.query("items.get", {"id": item["id"]})
    assert moved.data["groupId"] == closed

    [listed] = (await org.owner.query("templates.listTenant")).data["templates"]
    assert listed["id"] == template["id"] and listed["usageCount"] == 1 and "structure" not in listed


async def test_overrides_replace_parts_of_the_structure(org: Org) -> None:
    board, _ = await source_board(org)
    template = await save(org.owner, board.id)
    scrap = {"name": "Scrap rate", "category": "quality", "direction": "lower_is_better", "unit": "%",
             "thresholds": BANDS_DOWN, "target": {"value": 1.5, "days": 60}}
    new = await apply(org.owner, template["id"], board.project_id,
                      overrides={"kpis": [scrap], "automations": []})
    assert shape_of(new) == shape_of(board.view)
    assert [k["name"] for k in new["kpis"]] == ["Scrap rate"] and new["automations"] == []
    [kpi] = (await org.owner.query("kpis.list", {"boardId": new["id"]})).data["kpis"]
    assert kpi["thresholds"]["red"] == {"min": 5, "max": None} and kpi["target"]["value"] == 1.5
    assert (await org.owner.query("automations.list", {"boardId": new["id"]})).data["automations"] == []


async def test_overridden_groups_that_drop_a_group_a_rule_moves_to_are_refused_before_anything_is_made(
        org: Org) -> None:
    board, ids = await source_board(org)
    template = await save(org.owner, board.id)
    reply = await org.owner.mutate("templates.apply", {
        "templateId": template["id"], "projectId": board.project_id, "boardName": "Broken",
        "overrides": {"groups": [{"key": ids["open"], "name": "Open"}]}})
    assert reply.status == 400, reply.body
    assert [d["field"] for d in reply.error["data"]["details"]] == [
        "overrides.automations.0.actions.0.config.groupId"]
    boards = await org.owner.query("boards.list", {"projectId": board.project_id})
    assert [b["name"] for b in boards.data["boards"]] == [board.view["name"]]


async def test_overridden_columns_that_drop_a_column_a_formula_reads_are_refused(org: Org) -> None:
    board, ids = await source_board(org)
    template = await save(org.owner, board.id)
    columns = template["structure"]["columns"]
    kept = [column for column in columns if column["key"] != ids["saving"]]
    reply = await org.owner.mutate("templates.apply", {
        "templateId": template["id"], "projectId": board.project_id, "boardName": "Broken",
        "overrides": {"columns": kept, "automations": []}})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"] == [{"field": "overrides.columns.2.config.expression",
                                               "message": f"names no column {ids['saving']} of the structure"}]
    boards = await org.owner.query("boards.list", {"projectId": board.project_id})
    assert [b["name"] for b in boards.data["boards"]] == [board.view["name"]]


async def test_without_kpis_and_automations_the_template_holds_groups_and_columns(org: Org) -> None:
    board, _ = await source_board(org)
    template = await save(org.owner, board.id, includeKpis=False, includeAutomations=False)
    assert (template["kpis"], template["automations"]) == (0, 0)
    assert template["structure"]["kpis"] == [] and template["structure"]["automations"] == []


async def test_boards_create_with_a_template_id_builds_the_board_from_it(org: Org) -> None:
    board, _ = await source_board(org)
    template = await save(org.owner, board.id)
    reply = await org.owner.mutate("boards.create", {"projectId": board.project_id, "name": "From template",
                                                     "templateId": template["id"]})
    assert reply.status == 200, reply.body
    assert reply.data["name"] == "From template" and shape_of(reply.data) == shape_of(board.view)
    assert [k["name"] for k in reply.data["kpis"]] == ["On-time delivery"]
    assert len(reply.data["automations"]) == 1
    listed = (await org.owner.query("templates.getById", {"id": template["id"]})).data
    assert listed["usageCount"] == 1
    # Made through the procedures: the new board's stream has its events, as live screens and webhooks see them.
    on_stream = [name for name, _ in await events_on(org, f"board:{reply.data['id']}")]
    assert on_stream == ["board.created", "board.updated", "kpi.created", "kpi.updated"]
    trail = await org.owner.query("activity.listByEntity", {"entityType": "template", "entityId": template["id"]})
    assert trail.status == 200, trail.body
    assert [entry["action"] for entry in trail.data["entries"]] == ["template.applied", "template.created"]


async def test_boards_create_with_an_unknown_template_id_is_404_naming_it(board: Board) -> None:
    reply = await board.api.mutate("boards.create", {"projectId": board.project_id, "name": "X",
                                                     "templateId": "tpl_nothing"})
    assert reply.status == 404, reply.body
    assert reply.error["data"]["details"] == [{"field": "templateId", "message": "no such template"}]


async def test_a_rule_that_calls_a_webhook_is_left_out_with_its_credentials(board: Board) -> None:
    """A template is read by every member of the organization; a call_webhook's URL and headers are the source
    board's integration, often with its credentials."""
    for name, action in (("Tell the MES", {"type": "call_webhook", "config": {
            "url": "https://hooks.example.test/services/T1/B2/s3cr3t", "method": "POST",
            "headers": {"Authorization": "Bearer mes-token"}}}),
            ("Tell the owner", {"type": "send_notification", "config": {"userIds": [board.org.owner_id],
                                                                       "message": "New: {item.name}"}})):
        rule = await board.api.mutate("automations.create", {
            "boardId": board.id, "name": name, "trigger": {"type": "item.created", "config": {}}, "actions": [action]})
        assert rule.status == 200, rule.body
    template = await save(board.api, board.id)
    assert [rule["name"] for rule in template["structure"]["automations"]] == ["Tell the owner"]
    assert "s3cr3t" not in json.dumps(template) and "mes-token" not in json.dumps(template)


async def test_a_rule_that_makes_items_on_its_own_board_makes_them_on_the_new_board(board: Board) -> None:
    closed = await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Follow-ups"})
    assert closed.status == 200, closed.body
    rule = await board.api.mutate("automations.create", {
        "boardId": board.id, "name": "Follow up new items",
        "trigger": {"type": "item.created", "config": {"groupId": board.group_id}},
        "actions": [{"type": "create_item", "config": {"boardId": board.id, "groupId": closed.data["id"],
                                                       "name": "Follow-up: {item.name}"}}]})
    assert rule.status == 200, rule.body
    template = await save(board.api, board.id)
    assert template["structure"]["automations"][0]["actions"][0]["config"]["boardId"] == "board"
    new = await apply(board.api, template["id"], board.project_id)
    [made] = (await board.api.query("automations.list", {"boardId": new["id"]})).data["automations"]
    assert made["trigger"]["config"] == {"groupId": new["groups"][0]["id"]}
    assert made["actions"][0]["config"] == {"boardId": new["id"], "groupId": new["groups"][1]["id"],
                                            "name": "Follow-up: {item.name}"}


@pytest.mark.workers("automations")
async def test_a_rule_that_makes_items_with_values_sets_them_in_the_new_boards_columns(board: Board) -> None:
    follow_ups = await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Follow-ups"})
    assert follow_ups.status == 200, follow_ups.body
    status = board.column("status")
    rule = await board.api.mutate("automations.create", {
        "boardId": board.id, "name": "Follow up new items",
        "trigger": {"type": "item.created", "config": {"groupId": board.group_id}},
        "actions": [{"type": "create_item", "config": {
            "boardId": board.id, "groupId": follow_ups.data["id"], "name": "Follow-up: {item.name}",
            "values": {status["id"]: status["config"]["labels"][0]["name"]}}}]})
    assert rule.status == 200, rule.body
    template = await save(board.api, board.id)
    new = await apply(board.api, template["id"], board.project_id)
    on_new = Board(board.org, new["id"], board.project_id, new)
    new_status = on_new.column("status")["id"]
    [made] = (await board.api.query("automations.list", {"boardId": new["id"]})).data["automations"]
    assert made["actions"][0]["config"]["values"] == {new_status: status["config"]["labels"][0]["name"]}

    await on_new.add_item("Leaking valve")
    [run] = await runs(on_new, 1)
    assert run["status"] == "success", run
    items = (await board.api.query("items.list", {"boardId": new["id"]})).data["items"]
    [follow_up] = [item for item in items if item["name"] == "Follow-up: Leaking valve"]
    assert follow_up["values"][new_status]["label"] == status["config"]["labels"][0]["name"]


async def test_overrides_whose_keys_read_like_values_keep_the_rules_values(org: Org) -> None:
    board = await make_board(org)
    labels = [{"name": "Open", "color": "#E2445C"}, {"name": "Done", "color": "#00C875", "isDone": True}]
    new = await apply(org.owner, "tpl_vendor_gemba_walk", board.project_id, overrides={
        "groups": [{"key": "Open", "name": "Open"}, {"key": "Done", "name": "Done"}],
        "columns": [{"key": "status", "name": "Status", "type": "status", "config": {"labels": labels}}],
        "kpis": [],
        "automations": [{"name": "Done", "trigger": {"type": "value.changed",
                                                     "config": {"columnId": "status", "toValue": "Done"}},
                         "conditions": [{"columnId": "status", "operator": "is_not", "value": "Open"}],
                         "actions": [{"type": "move_item", "config": {"groupId": "Done"}}]}]})
    [rule] = (await org.owner.query("automations.list", {"boardId": new["id"]})).data["automations"]
    status, done = new["columns"][0]["id"], new["groups"][1]["id"]
    assert rule["name"] == "Done"
    assert rule["trigger"]["config"] == {"columnId": status, "toValue": "Done"}
    assert rule["conditions"] == [{"columnId": status, "operator": "is_not", "value": "Open"}]
    assert rule["actions"] == [{"type": "move_item", "config": {"groupId": done}}]


async def test_a_created_items_values_naming_no_column_of_the_structure_are_refused(org: Org) -> None:
    board = await make_board(org)
    reply = await org.owner.mutate("templates.apply", {
        "templateId": "tpl_vendor_gemba_walk", "projectId": board.project_id, "boardName": "Walks",
        "overrides": {"automations": [{"name": "Follow up", "trigger": {"type": "item.created"}, "actions": [
            {"type": "create_item", "config": {"boardId": "board", "groupId": "grp_follow_up", "name": "Follow-up",
                                               "values": {"col_status": "Open", "col_gone": "x"}}}]}]}})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"] == [{"field": "overrides.automations.0.actions.0.config.values.col_gone",
                                               "message": "names no column of the structure"}]
    boards = await org.owner.query("boards.list", {"projectId": board.project_id})
    assert [b["name"] for b in boards.data["boards"]] == [board.view["name"]]


async def test_a_board_whose_rule_names_a_deleted_column_is_refused_before_a_template_is_saved(org: Org) -> None:
    board, ids = await source_board(org)
    gone = await org.owner.mutate("columns.delete", {"id": ids["status"]})
    assert gone.status == 200, gone.body
    reply = await org.owner.mutate("templates.create", {"sourceBoardId": board.id, "name": "Stale"})
    assert reply.status == 400, reply.body
    assert [d["field"] for d in reply.error["data"]["details"]] == [
        "sourceBoardId.automations.0.trigger.config.columnId", "sourceBoardId.automations.0.conditions.0.columnId"]
    assert (await org.owner.query("templates.listTenant")).data["templates"] == []
    # Without its rules the board saves, and the template applies.
    template = await save(org.owner, board.id, includeAutomations=False)
    new = await apply(org.owner, template["id"], board.project_id)
    assert [c["name"] for c in new["columns"]] == ["Cost", "Saving", "Payback"]


async def test_a_lookup_whose_aggregate_reads_like_a_column_key_keeps_it(org: Org) -> None:
    board = await make_board(org)
    new = await apply(org.owner, "tpl_vendor_gemba_walk", board.project_id, overrides={
        "columns": [{"key": "deps", "name": "Depends on", "type": "dependency"},
                    {"key": "sum", "name": "Hours", "type": "number"},
                    {"key": "total", "name": "Hours before", "type": "lookup",
                     "config": {"dependencyColumnId": "deps", "targetColumnId": "sum", "aggregate": "sum"}}],
        "automations": []})
    deps, hours, total = new["columns"]
    assert total["config"] == {"dependencyColumnId": deps["id"], "targetColumnId": hours["id"], "aggregate": "sum"}


async def test_a_lookup_following_a_column_that_is_no_dependency_is_refused_before_anything_is_made(
        org: Org) -> None:
    board = await make_board(org)
    reply = await org.owner.mutate("templates.apply", {
        "templateId": "tpl_vendor_gemba_walk", "projectId": board.project_id, "boardName": "Walks", "overrides": {
            "columns": [{"key": "hours", "name": "Hours", "type": "number"},
                        {"key": "total", "name": "Hours before", "type": "lookup",
                         "config": {"dependencyColumnId": "hours", "targetColumnId": "hours"}}],
            "automations": []}})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"] == [{"field": "overrides.columns.1.config.dependencyColumnId",
                                               "message": "names no dependency column of the structure"}]
    boards = await org.owner.query("boards.list", {"projectId": board.project_id})
    assert [b["name"] for b in boards.data["boards"]] == [board.view["name"]]


async def test_boards_create_with_a_template_names_its_own_columns_field_for_bad_settings(board: Board) -> None:
    reply = await board.api.mutate("boards.create", {
        "projectId": board.project_id, "name": "Rated", "templateId": "tpl_vendor_gemba_walk",
        "columns": [{"name": "Rating", "type": "rating", "config": {"max": 99}}]})
    assert reply.status == 400, reply.body
    assert [d["field"] for d in reply.error["data"]["details"]] == ["columns.0.config.max"]


async def kpi_rule_board(org: Org) -> tuple[Board, list[str], str]:
    """A board with two KPIs and a rule that opens an action when the second one goes red."""
    board = await make_board(org)
    kpis = []
    for name in ("On-time delivery", "Attendance"):
        kpi = await org.owner.mutate("kpis.define", {
            "boardId": board.id, "name": name, "category": "delivery", "direction": "higher_is_better",
            "frequency": "daily", "unit": "%", "thresholds": BANDS_UP})
        assert kpi.status == 200, kpi.body
        kpis.append(kpi.data["id"])
    rule = await org.owner.mutate("automations.create", {
        "boardId": board.id, "name": "Attendance red opens an action",
        "trigger": {"type": "kpi.threshold_breach", "config": {"kpiId": kpis[1], "threshold": "red"}},
        "actions": [{"type": "create_action", "config": {"title": "{kpi.name} at {kpi.value}", "dueInDays": 2}}]})
    assert rule.status == 200, rule.body
    return board, kpis, rule.data["id"]


@pytest.mark.workers("automations")
async def test_a_kpi_rule_saved_and_applied_again_opens_actions_for_the_new_boards_kpi(org: Org) -> None:
    board, _, _ = await kpi_rule_board(org)
    template = await save(org.owner, board.id)
    [saved] = template["structure"]["automations"]
    assert saved["trigger"] == {"type": "kpi.threshold_breach", "config": {"kpiId": "kpi:1", "threshold": "red"}}

    new = await apply(org.owner, template["id"], board.project_id)
    assert new["skipped"] == [] and [a["name"] for a in new["automations"]] == ["Attendance red opens an action"]
    delivery, attendance = (k["id"] for k in new["kpis"])
    [rule] = (await org.owner.query("automations.list", {"boardId": new["id"]})).data["automations"]
    assert rule["trigger"]["config"] == {"kpiId": attendance, "threshold": "red"}

    on_new = Board(org, new["id"], board.project_id, new)
    for kpi_id in (delivery, attendance):
        value = await org.owner.mutate("kpis.setValue", {"kpiId": kpi_id, "value": 70})
        assert value.status == 200 and value.data["status"] == "red", value.body
    [run] = await runs(on_new, 1)
    assert run["status"] == "success", run
    [action] = (await org.owner.query("actions.list", {"boardId": new["id"]})).data["actions"]
    assert (action["title"], action["sourceId"], action["boardId"]) == ("Attendance at 70", attendance, new["id"])
    assert (await org.owner.query("actions.list", {"boardId": board.id})).data["actions"] == []


async def test_a_kpi_rule_naming_no_kpi_of_the_structure_is_refused_and_one_without_its_kpi_left_out(
        org: Org) -> None:
    board, _, _ = await kpi_rule_board(org)
    without_kpis = await save(org.owner, board.id, includeKpis=False)
    assert without_kpis["structure"]["automations"] == [] and without_kpis["automations"] == 0
    template = await save(org.owner, board.id)
    reply = await org.owner.mutate("templates.apply", {
        "templateId": template["id"], "projectId": board.project_id, "boardName": "No attendance",
        "overrides": {"kpis": template["structure"]["kpis"][:1]}})
    assert reply.status == 400, reply.body
    assert [d["field"] for d in reply.error["data"]["details"]] == ["overrides.automations.0.trigger.config.kpiId"]
    item_action = await org.owner.mutate("templates.apply", {
        "templateId": template["id"], "projectId": board.project_id, "boardName": "Odd",
        "overrides": {"automations": [{"name": "Odd", "trigger": {"type": "kpi.threshold_breach"},
                                       "actions": [{"type": "archive_item"}]}]}})
    assert item_action.status == 400, item_action.body
    assert [d["field"] for d in item_action.error["data"]["details"]] == ["overrides.automations.0.actions.0.type"]
