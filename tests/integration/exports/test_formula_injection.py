"""CSV exports neutralise text a spreadsheet would run as a formula (OWASP "CSV Injection"): a text cell, or a
header, beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`; numbers stay numbers
(a number column's -5, a negative KPI value), and a text "-5" is text, so it is neutralised too."""

from __future__ import annotations

from tests.integration.boards.conftest import Board, make_project
from tests.integration.exports.conftest import export, parse

FORMULAS = ['=HYPERLINK("http://x","y")', "+1+2", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A2)", "\t=1", "\r=1"]


async def test_board_export_neutralises_formula_text_and_keeps_numbers(board: Board) -> None:
    org = board.org
    project_id = await make_project(org)
    reply = await org.owner.mutate("boards.create", {
        "projectId": project_id, "name": "Injection",
        "groups": [{"name": "=group()"}],
        "columns": [{"name": "Qty", "type": "number"}, {"name": "Notes", "type": "text"},
                    {"name": "=cmd()", "type": "text"}]})
    assert reply.status == 200, reply.body
    view = reply.data
    qty, notes, evil_column = (column["id"] for column in view["columns"])
    group_id = view["groups"][0]["id"]

    async def add(name: str, values: dict[str, object]) -> None:
        created = await org.owner.mutate("items.create", {"boardId": view["id"], "groupId": group_id,
                                                          "name": name, "values": values})
        assert created.status == 200, created.body

    for formula in FORMULAS:
        await add(formula, {notes: formula})
    await add("numbers", {qty: -5, notes: "-5", evil_column: "plain"})
    await add("Safe name", {qty: 2.5, notes: "a = b, not a formula"})

    rows = parse(await export(org.owner, "exportBoard", {"boardId": view["id"]}))
    assert rows[0] == ["Group", "Item Name", "Created At", "Qty", "Notes", "'=cmd()"]
    by_name = {row[1]: row for row in rows[1:]}
    assert set(by_name) == {"'" + formula for formula in FORMULAS} | {"numbers", "Safe name"}
    hyperlink = by_name["'=HYPERLINK(\"http://x\",\"y\")"]
    assert hyperlink[0] == "'=group()" and hyperlink[4] == "'=HYPERLINK(\"http://x\",\"y\")"
    for formula in FORMULAS:
        assert by_name["'" + formula][4] == "'" + formula
    numbers = by_name["numbers"]
    assert numbers[3] == "-5"      # a number column's value: a number, as is
    assert numbers[4] == "'-5"     # text that looks like a number: text, neutralised
    assert numbers[5] == "plain"
    assert by_name["Safe name"][3:5] == ["2.5", "a = b, not a formula"]


async def test_action_log_and_kpi_exports_neutralise_text_and_keep_negative_values(board: Board) -> None:
    api = board.api
    action = await api.mutate("actions.create", {"boardId": board.id, "title": "=1+1", "description": "@me",
                                                 "priority": "high", "assigneeId": board.org.owner_id,
                                                 "dueDate": "2030-01-31"})
    assert action.status == 200, action.body
    [row] = parse(await export(api, "exportActionLog", {"boardId": board.id}))[1:]
    assert row[:2] == ["'=1+1", "'@me"]

    kpi = await api.mutate("kpis.define", {"boardId": board.id, "name": "-Delta", "category": "quality",
                                           "direction": "higher_is_better", "frequency": "daily", "unit": "+%"})
    assert kpi.status == 200, kpi.body
    value = await api.mutate("kpis.setValue", {"kpiId": kpi.data["id"], "value": -5, "comment": "=WEBSERVICE()"})
    assert value.status == 200, value.body
    [kpi_row] = parse(await export(api, "exportKpiData", {"boardId": board.id, "startDate": "0001-01-01",
                                                          "endDate": "9999-12-31"}))[1:]
    assert kpi_row[0] == "'-Delta" and kpi_row[2] == "'+%"
    assert kpi_row[4] == "-5" and kpi_row[6] == "'=WEBSERVICE()"
