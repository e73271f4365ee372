"""The `templates.*` procedures around the round trip: reading one with its structure, renaming and
deleting by the creator or an admin only, vendor templates read-only, another organization's template a 404,
limits on the input, the plan's KPIs and automations left out and said so."""

from __future__ import annotations

from datetime import timedelta

from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board, make_project
from tests.integration.kpis.conftest import define
from tests.integration.templates.conftest import apply, save
from web.keys import NODE


async def test_get_by_id_returns_the_template_with_its_structure(board: Board) -> None:
    template = await save(board.api, board.id, description="Tier 1 layout", category="tier_meeting",
                          tags=["sqcdp"])
    reply = await board.api.query("templates.getById", {"id": template["id"]})
    assert reply.status == 200, reply.body
    got = reply.data
    assert {k: got[k] for k in ("name", "description", "category", "tags", "groups", "columns")} == {
        "name": "Line board", "description": "Tier 1 layout", "category": "tier_meeting", "tags": ["sqcdp"],
        "groups": 1, "columns": 2}
    assert [(g["name"], g["color"]) for g in got["structure"]["groups"]] == [
        (g["name"], g["color"]) for g in board.view["groups"]]
    assert [(c["name"], c["type"]) for c in got["structure"]["columns"]] == [("Status", "status"), ("Owner", "people")]
    assert got["preview"]["columns"] == [{"name": "Status", "type": "status"}, {"name": "Owner", "type": "people"}]


async def test_the_creator_renames_and_deletes_and_boards_built_from_it_stay(board: Board) -> None:
    template = await save(board.api, board.id)
    built = await apply(board.api, template["id"], board.project_id)
    renamed = await board.api.mutate("templates.update", {"id": template["id"], "name": "Daily board",
                                                          "description": "For every line"})
    assert renamed.status == 200, renamed.body
    assert (renamed.data["name"], renamed.data["description"], renamed.data["usageCount"]) == (
        "Daily board", "For every line", 1)
    deleted = await board.api.mutate("templates.delete", {"id": template["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": template["id"]}, deleted.body
    gone = await board.api.query("templates.getById", {"id": template["id"]})
    assert gone.status == 404, gone.body
    assert (await board.api.query("templates.listTenant")).data["templates"] == []
    still = await board.api.query("boards.get", {"id": built["id"]})
    assert still.status == 200 and len(still.data["columns"]) == 2, still.body


async def test_another_member_may_not_change_a_template_but_an_admin_may(board: Board) -> None:
    template = await save(board.api, board.id)
    _, member = await board.org.add_user("member")
    _, admin = await board.org.add_user("admin")
    for name, input in (("templates.update", {"id": template["id"], "name": "Mine now"}),
                        ("templates.delete", {"id": template["id"]})):
        refused = await member.mutate(name, input)
        assert refused.status == 403, refused.body
    assert (await member.query("templates.getById", {"id": template["id"]})).data["name"] == "Line board"
    renamed = await admin.mutate("templates.update", {"id": template["id"], "name": "Admin's"})
    assert renamed.status == 200 and renamed.data["name"] == "Admin's", renamed.body
    deleted = await admin.mutate("templates.delete", {"id": template["id"]})
    assert deleted.status == 200, deleted.body


async def test_a_guest_may_not_read_or_use_templates(board: Board) -> None:
    template = await save(board.api, board.id)
    _, guest = await board.org.add_user("guest")
    for reply in (await guest.query("templates.listVendor"), await guest.query("templates.getById",
                                                                                  {"id": template["id"]}),
                  await guest.mutate("templates.apply", {"templateId": template["id"], "projectId": board.project_id,
                                                         "boardName": "Mine"})):
        assert reply.status == 403, reply.body


async def test_vendor_templates_cannot_be_changed_or_deleted(org: Org) -> None:
    for name, input in (("templates.update", {"id": "tpl_vendor_sqcdp", "name": "Ours"}),
                        ("templates.delete", {"id": "tpl_vendor_sqcdp"})):
        reply = await org.owner.mutate(name, input)
        assert reply.status == 403, reply.body
    assert (await org.owner.query("templates.getById", {"id": "tpl_vendor_sqcdp"})).data["name"] == (
        "SQCDP tier-1 board")


async def test_another_organizations_template_is_not_found(board: Board) -> None:
    template = await save(board.api, board.id)
    other = await make_org(board.api.client)
    project = await make_project(other)
    for reply in (await other.owner.query("templates.getById", {"id": template["id"]}),
                  await other.owner.mutate("templates.update", {"id": template["id"], "name": "Taken"}),
                  await other.owner.mutate("templates.delete", {"id": template["id"]}),
                  await other.owner.mutate("templates.apply", {"templateId": template["id"], "projectId": project,
                                                               "boardName": "Taken"})):
        assert reply.status == 404, reply.body
    assert (await other.owner.query("templates.listTenant")).data["templates"] == []
    source = await other.owner.mutate("templates.create", {"sourceBoardId": board.id, "name": "Theirs"})
    assert source.status == 404, source.body


async def test_bad_input_is_refused_naming_the_field(board: Board) -> None:
    for input, field in (({"sourceBoardId": board.id, "name": ""}, "name"),
                         ({"sourceBoardId": board.id, "name": "x" * 201}, "name"),
                         ({"sourceBoardId": board.id, "name": "Ok", "description": "x" * 2001}, "description")):
        reply = await board.api.mutate("templates.create", input)
        assert reply.status == 400, reply.body
        assert reply.error["data"]["details"][0]["field"] == field
    nothing = await board.api.mutate("templates.update", {"id": "tpl_x"})
    assert nothing.status == 400, nothing.body
    bad_rule = await board.api.mutate("templates.apply", {
        "templateId": "tpl_vendor_gemba_walk", "projectId": board.project_id, "boardName": "Walks",
        "overrides": {"automations": [{"name": "Odd", "trigger": {"type": "item.exploded"},
                                       "actions": [{"type": "archive_item"}]}]}})
    assert bad_rule.status == 400, bad_rule.body
    assert bad_rule.error["data"]["details"][0]["field"] == "overrides.automations.0.trigger.type"


async def test_on_the_free_plan_kpis_and_automations_are_left_out_and_said_so(org: Org) -> None:
    free = await make_org(org.owner.client, plan="free")
    project = await make_project(free)
    built = await apply(free.owner, "tpl_vendor_gemba_walk", project, "Gemba")
    assert len(built["groups"]) == 4 and built["kpis"] == [] and built["automations"] == []
    assert [(s["part"], s["name"], s["reason"]) for s in built["skipped"]] == [
        ("kpis", "Gemba walks done", "the organization's plan does not include kpis"),
        ("automations", "Done observations are closed", "the organization's plan does not include automations")]
    source = await make_board(free)
    template = await save(free.owner, source.id)
    assert template["kpis"] == 0


async def test_a_board_with_more_groups_than_a_template_holds_is_refused_naming_it(org: Org) -> None:
    board = await make_board(org, groups=[{"name": f"Cell {n}"} for n in range(50)])
    extra = await org.owner.mutate("boards.groups.create", {"boardId": board.id, "name": "Cell 50"})
    assert extra.status == 200, extra.body
    reply = await org.owner.mutate("templates.create", {"sourceBoardId": board.id, "name": "Too big"})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"] == [
        {"field": "sourceBoardId", "message": "the board has 51 groups; a template holds at most 50"}]
    assert (await org.owner.query("templates.listTenant")).data["templates"] == []


async def test_a_read_only_api_key_lists_templates_but_cannot_apply_them(org: Org) -> None:
    key = await org.owner.mutate("apiKeys.create", {"name": "Reader", "scopes": ["read:items"]})
    assert key.status == 200, key.body
    reader = org.owner.with_bearer(key.data["key"])
    assert (await reader.query("templates.listVendor")).status == 200
    project = await make_project(org)
    refused = await reader.mutate("templates.apply", {"templateId": "tpl_vendor_kaizen", "projectId": project,
                                                      "boardName": "Kaizen"})
    assert refused.status == 403, refused.body


async def test_a_kpi_target_years_away_is_saved_and_the_template_reads_back(board: Board) -> None:
    kpi = await define(board)
    today = board.api.client.app[NODE].clock.now().date()
    target = await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 0,
                                                       "deadline": (today + timedelta(days=20 * 365)).isoformat()})
    assert target.status == 200, target.body
    reply = await board.api.mutate("templates.create", {"sourceBoardId": board.id, "name": "Zero harm"})
    assert reply.status == 200, reply.body
    listed = await board.api.query("templates.listTenant")
    assert listed.status == 200, listed.body
    got = await board.api.query("templates.getById", {"id": reply.data["id"]})
    assert got.status == 200, got.body
    assert got.data["structure"]["kpis"][0]["target"] == {"value": 0, "days": 3660}  # ten years, the most it holds


async def test_a_reference_that_is_not_a_key_is_refused_naming_it(board: Board) -> None:
    overrides = {"automations": [{"name": "Odd", "trigger": {"type": "value.changed", "config": {"columnId": ["x"]}},
                                  "actions": [{"type": "move_item", "config": {"groupId": {"id": "grp_closed"}}}]}],
                 "columns": [{"key": "col_sum", "name": "Sum", "type": "lookup",
                              "config": {"targetColumnId": ["col_sum"]}}]}
    reply = await board.api.mutate("templates.apply", {"templateId": "tpl_vendor_gemba_walk",
                                                       "projectId": board.project_id, "boardName": "Walks",
                                                       "overrides": overrides})
    assert reply.status == 400, reply.body
    assert [d["field"] for d in reply.error["data"]["details"]] == [
        "overrides.columns.0.config.targetColumnId", "overrides.automations.0.trigger.config.columnId",
        "overrides.automations.0.actions.0.config.groupId"]


async def test_overridden_column_settings_are_checked_before_anything_is_made_naming_the_override(
        board: Board) -> None:
    for column, field in (
            ({"key": "col_r", "name": "Rating", "type": "rating", "config": {"max": 99}},
             "overrides.columns.1.config.max"),
            ({"key": "col_f", "name": "Doubled", "type": "formula", "config": {"expression": "{col_n} * * 2"}},
             "overrides.columns.1.config.expression")):
        reply = await board.api.mutate("templates.apply", {
            "templateId": "tpl_vendor_gemba_walk", "projectId": board.project_id, "boardName": "Walks",
            "overrides": {"columns": [{"key": "col_n", "name": "Count", "type": "number"}, column],
                          "automations": []}})
        assert reply.status == 400, reply.body
        assert [d["field"] for d in reply.error["data"]["details"]] == [field]
    boards = await board.api.query("boards.list", {"projectId": board.project_id})
    assert [b["name"] for b in boards.data["boards"]] == [board.view["name"]]
