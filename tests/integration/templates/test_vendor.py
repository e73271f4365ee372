"""The vendor templates: listed read-only with their counts, and every one applies cleanly —
its groups, columns, KPIs (with targets) and automations are made as the template says; the SQCDP board's rule
fires on the new board, a red value on one of its KPIs opens a corrective action there, and the kaizen pipeline's
payback formula reads the new board's columns."""

from __future__ import annotations

import pytest

from actors.templates.vendor import TEMPLATES, VendorTemplate
from tests.harness import Org
from tests.integration.automations.conftest import engine_idle, history_now, runs
from tests.integration.boards.conftest import Board, make_project
from tests.integration.templates.conftest import apply


async def test_the_vendor_list_holds_the_five_lean_boards(org: Org) -> None:
    reply = await org.owner.query("templates.listVendor")
    assert reply.status == 200, reply.body
    listed = reply.data["templates"]
    assert [t["id"] for t in listed] == ["tpl_vendor_sqcdp", "tpl_vendor_5s_audit", "tpl_vendor_8d",
                                         "tpl_vendor_gemba_walk", "tpl_vendor_kaizen"]
    sqcdp = listed[0]
    assert (sqcdp["groups"], sqcdp["kpis"], sqcdp["isVendor"]) == (5, 5, True) and "usageCount" not in sqcdp
    assert [g["name"][0] for g in sqcdp["preview"]["groups"]] == ["S", "Q", "C", "D", "P"]


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
async def test_every_vendor_template_applies_cleanly(org: Org, template: VendorTemplate) -> None:
    project = await make_project(org)
    structure = template.structure
    board = await apply(org.owner, template.id, project, template.name[:100])
    assert [(g["name"], g["color"]) for g in board["groups"]] == [(g.name, g.color) for g in structure.groups]
    assert [(c["name"], c["type"]) for c in board["columns"]] == [(c.name, c.type) for c in structure.columns]
    assert board["defaultView"] == structure.defaultView
    kpis = (await org.owner.query("kpis.list", {"boardId": board["id"], "limit": 100})).data["kpis"]
    assert sorted(k["name"] for k in kpis) == sorted(k.name for k in structure.kpis)
    assert all(k["target"] is not None and k["thresholds"]["red"] is not None for k in kpis)
    assert [a["name"] for a in board["automations"]] == [r.name for r in structure.automations]
    assert board["skipped"] == []


@pytest.mark.workers("automations")
async def test_on_an_sqcdp_board_an_escalated_problem_becomes_critical(org: Org) -> None:
    project = await make_project(org)
    made = await apply(org.owner, "tpl_vendor_sqcdp", project, "Line 7 tier 1")
    assert made["skipped"] == []
    board = Board(org, made["id"], project, made)
    quality = made["groups"][1]["id"]
    status, priority = board.column("status")["id"], board.column("priority")["id"]
    item = await org.owner.mutate("items.create", {"boardId": board.id, "groupId": quality,
                                                   "name": "Burrs on part 4711-B"})
    assert item.status == 200, item.body
    escalated = await org.owner.mutate("items.setValue", {"itemId": item.data["id"], "columnId": status,
                                                          "value": "Escalated"})
    assert escalated.status == 200, escalated.body
    [run] = await runs(board, 1)
    assert run["status"] == "success", run
    got = await org.owner.query("items.get", {"id": item.data["id"]})
    assert got.data["values"][priority]["label"] == "Critical"


@pytest.mark.workers("automations")
async def test_on_an_sqcdp_board_a_red_kpi_opens_a_countermeasure_once(org: Org) -> None:
    project = await make_project(org)
    made = await apply(org.owner, "tpl_vendor_sqcdp", project, "Line 7 tier 1")
    board = Board(org, made["id"], project, made)
    [rule] = [a for a in made["automations"] if a["trigger"] == "kpi.threshold_breach"]
    kpis = {k["name"]: k["id"] for k in made["kpis"]}
    owner_id, _ = await org.add_user("member", name="Quinn Quality")
    scrap = kpis["Scrap rate"]
    given = await org.owner.mutate("kpis.update", {"id": scrap, "responsibleUserId": owner_id})
    assert given.status == 200, given.body

    amber = await org.owner.mutate("kpis.setValue", {"kpiId": scrap, "value": 1.8})  # amber: not this rule's
    assert amber.status == 200 and amber.data["status"] == "amber", amber.body
    await engine_idle(board)
    assert await history_now(board) == []
    red = await org.owner.mutate("kpis.setValue", {"kpiId": scrap, "value": 2.6})
    assert red.status == 200 and red.data["status"] == "red", red.body
    [run] = await runs(board, 1)
    assert (run["automationRuleId"], run["triggerType"], run["status"]) == (rule["id"], "kpi.threshold_breach",
                                                                            "success"), run
    again = await org.owner.mutate("kpis.setValue", {"kpiId": scrap, "value": 3.1})  # still the same breach
    assert again.status == 200 and again.data["status"] == "red", again.body
    await engine_idle(board)
    assert len(await history_now(board)) == 1

    listed = await org.owner.query("actions.list", {"boardId": board.id})
    assert listed.status == 200, listed.body
    [action] = listed.data["actions"]
    assert {k: action[k] for k in ("title", "priority", "assigneeId", "category", "sourceType", "sourceId")} == {
        "title": "Countermeasure: Scrap rate is red (2.6)", "priority": "high", "assigneeId": owner_id,
        "category": "quality", "sourceType": "kpi_breach", "sourceId": scrap}


async def test_the_kaizen_payback_formula_reads_the_new_boards_columns(org: Org) -> None:
    project = await make_project(org)
    made = await apply(org.owner, "tpl_vendor_kaizen", project, "Kaizen line 3")
    columns = {c["name"]: c["id"] for c in made["columns"]}
    item = await org.owner.mutate("items.create", {
        "boardId": made["id"], "groupId": made["groups"][0]["id"], "name": "Quick-change clamps",
        "values": {columns["Implementation cost"]: 6000, columns["Annual saving"]: 24000}})
    assert item.status == 200, item.body
    assert item.data["values"][columns["Payback (months)"]] == 3
