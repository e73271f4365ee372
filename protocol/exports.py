"""Exports: a board, its KPI values and its action log as CSV, a problem-solving sheet as JSON.
Each returns one string. The header rows are the spec's, column for column."""

from __future__ import annotations

from datetime import date

import msgspec

from protocol.fields import Id
from protocol.registry import declare

KPI_HEADER = ("KPI Name", "Category", "Unit", "Date", "Value", "Source", "Comment")
ACTION_HEADER = ("Title", "Description", "Type", "Status", "Priority", "Source", "Category", "Tier Level",
                 "Due Date", "Created At", "Updated At")
# Followed by one column per board column, named as the column.
BOARD_HEADER = ("Group", "Item Name", "Created At")


class KpiDataInput(msgspec.Struct):
    boardId: Id
    startDate: date
    endDate: date


class BoardInput(msgspec.Struct):
    boardId: Id


class SheetInput(msgspec.Struct):
    id: Id


EXPORT_KPI_DATA = declare("export.exportKpiData", "query", KpiDataInput, key_scope="read:kpis", feature="kpis",
                          summary="A board's KPI values recorded from startDate to endDate (UTC days, both "
                          "included) as CSV")
EXPORT_ACTION_LOG = declare("export.exportActionLog", "query", BoardInput, key_scope="read:actions",
                            summary="All actions of a board, newest first, as CSV")
EXPORT_BOARD = declare("export.exportBoard", "query", BoardInput, key_scope="read:items",
                       summary="A board's items (top level, neither archived nor in the trash) as CSV, one "
                       "column per board column")
EXPORT_PROBLEM_SHEET = declare("export.exportProblemSheet", "query", SheetInput, key_scope="read:items",
                               summary="A problem-solving sheet as a JSON document")
