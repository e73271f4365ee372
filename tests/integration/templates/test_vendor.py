"""The vendor templates (DESIGN "Templates"): listed read-only with their counts, and every one applies cleanly —
its groups, columns, KPIs (with targets) and automations are made as the template says; the SQCDP board's rule
fires on the new board and the kaizen pipeline's payback formula reads the new board's columns."""

from __future__ import annotations

import pytest

from actors.templates.vendor import TEMPLATES, VendorTemplate
from tests.harness import Org
from tests.integration.automations.conftest import runs
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
    portable = [r.name for r in structure.automations if r.trigger.type != "kpi.threshold_breach"]
    assert [a["name"] for a in board["automations"]] == portable
    assert [s["part"] for s in board["skipped"]] == ["automations"] * (len(structure.automations) - len(portable))


@pytest.mark.workers("automations")
async def test_on_an_sqcdp_board_an_escalated_problem_becomes_critical(org: Org) -> None:
    project = await make_project(org)
    made = await apply(org.owner, "tpl_vendor_sqcdp", project, "Line 7 tier 1")
    assert [(s["name"], s["reason"].split(":")[0]) for s in made["skipped"]] == [
        ("A red KPI opens a countermeasure", "the kpi.threshold_breach trigger is not a rule trigger")]
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


async def test_the_kaizen_payback_formula_reads_the_new_boards_columns(org: Org) -> None:
    project = await make_project(org)
    made = await apply(org.owner, "tpl_vendor_kaizen", project, "Kaizen line 3")
    columns = {c["name"]: c["id"] for c in made["columns"]}
    item = await org.owner.mutate("items.create", {
        "boardId": made["id"], "groupId": made["groups"][0]["id"], "name": "Quick-change clamps",
        "values": {columns["Implementation cost"]: 6000, columns["Annual saving"]: 24000}})
    assert item.status == 200, item.body
    assert item.data["values"][columns["Payback (months)"]] == 3
