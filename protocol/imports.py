"""CSV import (docs/import.md): upload a file, map its columns onto the board, preview the parsed rows, execute.
The limits (10 MB, UTF-8, a session lives one hour, history is kept 90 days) are explained in
docs/decisions.md "CSV import". Every procedure needs the plan's `csv_import` feature; writing needs the
member role and `write:items`, reading the history `read:items`.

`import.uploadCsv` takes multipart/form-data, not JSON, so it is not a registry procedure (the RPC router would
serve it JSON): its description below lets its route (web/routes_imports.py) run the same `authorize`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.fields import Id
from protocol.registry import EmptyInput, Procedure, Role, declare

MAX_CSV_BYTES = 10 * 1024 * 1024
SESSION_SECONDS = 3600
HISTORY_DAYS = 90
# A sheet wider than this is not a board's worth of columns; it also bounds a mapping's length.
MAX_CSV_COLUMNS = 200
DELIMITERS = (",", ";", "\t", "|")
Delimiter = Literal[",", ";", "\t", "|"]
Target = Literal["item_name", "column", "group", "skip"]
# The orders a date cell may be written in; the separator is the one the format shows.
DateFormat = Literal["YYYY-MM-DD", "DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY", "DD-MM-YYYY", "MM-DD-YYYY",
                     "YYYY/MM/DD"]
Status = Literal["uploaded", "mapped", "running", "completed", "failed"]


class ColumnMapping(msgspec.Struct):
    csvIndex: Annotated[int, msgspec.Meta(ge=0, lt=MAX_CSV_COLUMNS)]
    target: Target
    columnId: Id | None = None


class MapColumnsInput(msgspec.Struct):
    importId: Id
    mappings: Annotated[list[ColumnMapping], msgspec.Meta(min_length=1, max_length=MAX_CSV_COLUMNS)]
    groupId: Id | None = None
    skipFirstRow: bool = True
    dateFormat: DateFormat = "YYYY-MM-DD"


class ImportIdInput(msgspec.Struct):
    importId: Id


class ExecuteInput(msgspec.Struct):
    importId: Id
    skipErrorRows: bool = True


class HistoryInput(msgspec.Struct):
    boardId: Id


class StoredMapping(msgspec.Struct, frozen=True):
    """What `import.mapColumns` keeps on the session (the input less its id, the group resolved)."""

    mappings: list[ColumnMapping]
    groupId: str
    skipFirstRow: bool
    dateFormat: DateFormat


_FEATURE = "csv_import"

UPLOAD = Procedure(name="import.uploadCsv", kind="mutation", input=EmptyInput,
                   summary="Step 1: upload a CSV file (multipart fields `file`, `boardId`, optional `delimiter`; "
                           "at most 10 MB, UTF-8 with or without a BOM); the session lives one hour",
                   min_role=Role.MEMBER, key_scope="write:items", token_scope="write", feature=_FEATURE)
MAP_COLUMNS = declare("import.mapColumns", "mutation", MapColumnsInput, min_role=Role.MEMBER, key_scope="write:items",
                      feature=_FEATURE, summary="Step 2: map CSV columns (0-based) onto the item name, board "
                      "columns or the group; store the mapping")
PREVIEW = declare("import.preview", "mutation", ImportIdInput, min_role=Role.MEMBER, key_scope="write:items",
                  feature=_FEATURE, summary="Step 3: parse every row by the mapping: counts, the first rows as "
                  "they would be stored, and the errors")
EXECUTE = declare("import.execute", "mutation", ExecuteInput, min_role=Role.MEMBER, key_scope="write:items",
                  feature=_FEATURE, summary="Step 4: create the items, in batches through the board, skipping "
                  "rows with errors by default")
GET_HISTORY = declare("import.getHistory", "query", HistoryInput, key_scope="read:items", feature=_FEATURE,
                      summary="A board's imports of the last 90 days, newest first")
