"""Exports: a board's items, its KPI values and its action log as CSV, a problem-solving sheet as
JSON, each one string. CSV follows RFC 4180 (Python's csv module: CRLF line ends, fields with a comma, quote
or line break quoted, quotes doubled), the spec's header row first. Everything is read from PostgreSQL,
scoped to the caller's organization and to boards the caller can see.

A text cell (header names included) that a spreadsheet would take for a formula — beginning with `=`, `+`,
`-`, `@`, a tab or a carriage return — gets a leading `'` (OWASP "CSV Injection"), so an item named
`=HYPERLINK(...)` is shown, not run. Numbers (a number column's value, a KPI value, a level) are written as
numbers, `-5` included; a text that merely looks like a number (`-5` typed in a text column) is text and is
neutralised like any other."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import Any

import msgspec
from immutables import Map

from actors.board.state import BoardState, ColumnRow, GroupRow, ItemRow
from actors.board.views import item_values
from actors.kernel.access import require_board_access
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.records import row_from_record
from actors.problem_solving.handlers import ENTITY as SHEET_ENTITY
from actors.problem_solving.handlers import visible_sheet
from protocol import exports as proto
from protocol.caller import Caller
from protocol.errors import FieldError, ValidationFailed
from protocol.ids import iso
from storage import actions as actions_repo
from storage import activity, board_export, kpis

procedures = Implementations()

# What makes a spreadsheet read a cell as a formula (OWASP "CSV Injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str) -> str:
    """Text as a cell: as it is, with a leading `'` when it begins like a formula."""
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _cell(value: Any) -> str:
    """A value as CSV text: empty for none, text as it is (neutralised where it begins like a formula), dates
    ISO 8601, a whole float without `.0`, anything else (numbers, booleans, objects, lists) as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, datetime):
        return iso(value) or ""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return msgspec.json.encode(value).decode()


def _csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([_text(name) for name in header])
    writer.writerows([_cell(value) for value in row] for row in rows)
    return buffer.getvalue()


@procedures.implement(proto.EXPORT_BOARD)
async def export_board(node: Node, caller: Caller, data: proto.BoardInput) -> str:
    """One row per top-level item that is neither archived nor in the trash, group by group in board order and
    by position within a group; then one column per board column in board order (computed columns included)."""
    await require_board_access(node, caller, data.boardId)
    async with node.pool.acquire() as conn:
        groups, columns, items = await board_export.board_rows(conn, caller.org_id, data.boardId)
    state = BoardState(groups=Map({r["id"]: row_from_record(GroupRow, r) for r in groups}),
                       columns=Map({r["id"]: row_from_record(ColumnRow, r) for r in columns}),
                       items=Map({r["id"]: row_from_record(ItemRow, r) for r in items}))
    ordered = state.ordered_columns()
    rows = []
    for group in state.ordered_groups():
        for item in state.items_of_group(group.id):
            if item.live:
                values = item_values(state, item)
                rows.append([group.name, item.name, item.created_at, *(values.get(c.id) for c in ordered)])
    return _csv([*proto.BOARD_HEADER, *(column.name for column in ordered)], rows)


@procedures.implement(proto.EXPORT_ACTION_LOG)
async def export_action_log(node: Node, caller: Caller, data: proto.BoardInput) -> str:
    """Type is the action's sourceType, Source its sourceId, Tier Level its escalationLevel."""
    await require_board_access(node, caller, data.boardId)
    rows = await actions_repo.for_export(node.pool, caller.org_id, data.boardId)
    return _csv(proto.ACTION_HEADER, ([
        r["title"], r["description"], r["source_type"], r["status"], r["priority"], r["source_id"], r["category"],
        r["escalation_level"], r["due_date"], r["created_at"], r["updated_at"]] for r in rows))


@procedures.implement(proto.EXPORT_KPI_DATA)
async def export_kpi_data(node: Node, caller: Caller, data: proto.KpiDataInput) -> str:
    """The values recorded on UTC days startDate to endDate (both included), oldest first; Date is the moment
    the value was recorded (ISO 8601 UTC)."""
    if data.endDate < data.startDate:
        raise ValidationFailed("endDate: must not be before startDate",
                               details=[FieldError("endDate", "must not be before startDate")])
    await require_board_access(node, caller, data.boardId)
    # The storage reads up to the start of the day after endDate, a day date.max does not have. Values carry the
    # server's time, so none lies on that last day: stopping a day short of it changes nothing.
    end = min(data.endDate, date.max - timedelta(days=1))
    rows = await kpis.values_for_export(node.pool, caller.org_id, data.boardId, data.startDate, end)
    return _csv(proto.KPI_HEADER, ([r["name"], r["category"], r["unit"], r["recorded_at"], r["value"], r["source"],
                                    r["comment"]] for r in rows))


@procedures.implement(proto.EXPORT_PROBLEM_SHEET)
async def export_problem_sheet(node: Node, caller: Caller, data: proto.SheetInput) -> str:
    """The sheet as an indented JSON document. Written to the trail like every sheet operation."""
    row = await visible_sheet(node, caller, data.id)
    await activity.record(node.pool, caller.org_id, caller.uid, SHEET_ENTITY, row["id"], "problem_sheet.exported",
                          {"boardId": row["board_id"], "title": row["title"]})
    document = {"id": row["id"], "type": row["type"], "title": row["title"], "status": row["status"],
                "actionId": row["action_id"], "data": row["data"], "createdAt": iso(row["created_at"]),
                "updatedAt": iso(row["updated_at"]), "reviewedAt": iso(row["reviewed_at"])}
    return msgspec.json.format(msgspec.json.encode(document), indent=2).decode()
