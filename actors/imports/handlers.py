"""CSV import (docs/import.md), the four steps and the history. A session belongs to the member who uploaded it and
to its board (another member, or a caller who cannot see the board, gets 404); it holds the file's bytes in
PostgreSQL, so any node of the cluster serves the next step. Reading the file (the row count at upload, the
preview) is CPU work over up to 10 MB and runs off the event loop; execution parses one batch at a time between
the batches it sends to the board's actor (actors/imports/batch.py), so other writes to the board wait for one
batch at most and live screens see the items arrive."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypeVar

import asyncpg
import msgspec
import structlog

from actors.board.items import ASSIGNED
from actors.board.routing import ask_board
from actors.files.uploads import clean_name
from actors.imports import csv_file
from actors.imports.batch import IMPORT_ITEMS, ImportBatch, ImportRow, encode_rows, fingerprint
from actors.imports.cells import IMPORTABLE, BoardColumn, Member, ParsedRow, RowReader
from actors.kernel.access import require_board_access, sees_board
from actors.kernel.events import board_stream
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import imports as proto
from protocol.caller import Caller
from protocol.columns import COMPUTED_TYPES
from protocol.errors import (
    ApiError,
    BadRequest,
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    ServiceUnavailable,
    TooManyRequests,
    ValidationFailed,
)
from protocol.ids import Prefix, derived_id, iso, new_id
from protocol.plans import plan
from storage import imports as repo

procedures = Implementations()

log = structlog.get_logger("obeya.imports")
T = TypeVar("T")

# Rows per board turn. Another write to the board waits for about one batch: at about 0.4 ms of the board's time per
# row (deciding, committing, applying; bench/import_csv.py on a shared 2-core machine), 250 rows are a tenth of a
# second. 500 made other writes wait twice as long for 7 % more rows per second.
BATCH_ROWS = 250
# Rows parsed between two yields of the event loop (about 5 ms of parsing): the import's own parsing must not hold
# up the node's other requests for a whole batch.
PARSE_SLICE = 50
# A file this small is read in a few milliseconds: on the event loop, without a thread.
INLINE_BYTES = 64 * 1024
PREVIEW_ROWS = 20
MAX_ERRORS = 100
# A batch the board could not take for a passing reason (its node moving, a full mailbox) is sent again.
BATCH_ATTEMPTS = 4
RETRY_SECONDS = 0.25


async def _over_file(content: bytes | bytearray, work: Callable[..., T], *args: Any) -> T:
    """`work(*args)`, a pass over the whole file: in a worker thread, so that the event loop goes on serving the
    node's other requests meanwhile, unless the file is small enough to read at once (a thread costs more)."""
    if len(content) <= INLINE_BYTES:
        return work(*args)
    return await asyncio.to_thread(work, *args)


def session_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"importId": row["id"], "boardId": row["board_id"], "fileName": row["file_name"],
            "fileSize": row["file_size"], "delimiter": row["delimiter"], "encoding": row["encoding"],
            "totalRows": row["total_rows"], "columns": row["columns"], "status": row["status"],
            "expiresAt": iso(row["expires_at"])}


async def create_session(node: Node, caller: Caller, *, board_id: str, file_name: str | None,
                         content: bytes | bytearray, delimiter: str | None) -> dict[str, Any]:
    """Step 1, after the route streamed the file in and checked its encoding: the delimiter (given or detected),
    the row count, the columns with sample values, and the session that keeps the bytes for an hour."""
    if delimiter is not None and delimiter not in proto.DELIMITERS:
        raise ValidationFailed.of("delimiter", "must be one of , ; | or a tab")
    if not content:
        raise ValidationFailed.of("file", "is empty")  # blank lines only: `scan` refuses it (it holds no rows)
    await require_board_access(node, caller, board_id)
    chosen = delimiter or csv_file.detect_delimiter(content)
    scanned = await _over_file(content, csv_file.scan, content, chosen)
    now = node.clock.now()
    async with node.write(caller) as uow:
        row = await repo.insert_session(
            uow.conn, session_id=new_id(Prefix.IMPORT), org_id=caller.org_id, board_id=board_id,
            file_name=clean_name(file_name), content=content, delimiter=chosen,
            encoding=csv_file.encoding_of(content), total_rows=scanned.total_rows, columns=scanned.columns,
            created_by=caller.user_id, now=now, expires_at=now + timedelta(seconds=proto.SESSION_SECONDS))
    return session_view(row)


async def _session(node: Node, caller: Caller, import_id: str) -> asyncpg.Record:
    """The caller's own live session; 404 for another's, an expired one or one on a board the caller cannot see."""
    row = await repo.session(node.pool, caller.org_id, import_id)
    if row is None or row["created_by"] != caller.user_id or not await sees_board(node, caller, row["board_id"]):
        raise NotFound("import not found")
    if row["status"] in ("uploaded", "mapped") and row["expires_at"] <= node.clock.now():
        raise NotFound("import not found: the session expired an hour after the upload; upload the file again")
    return row


def _not_runnable(row: asyncpg.Record) -> ApiError:
    if row["status"] == "uploaded":
        return Conflict("map the file's columns first (import.mapColumns)")
    if row["status"] in ("running", "mapped"):  # mapped: another request just claimed it and is starting
        return Conflict("the import is running")
    return Conflict(f"the import has already run ({row['status']})")


async def _layout(node: Node, caller: Caller, board_id: str) -> tuple[dict[str, BoardColumn], dict[str, str]]:
    columns, groups = await repo.board_layout(node.pool, caller.org_id, board_id)
    board_columns = {r["id"]: BoardColumn(r["id"], r["name"], r["type"], r["config"], r["required"],
                                          _has_default(r)) for r in columns}
    return board_columns, {r["id"]: r["name"] for r in groups}


def _has_default(column: asyncpg.Record) -> bool:
    config = column["config"] or {}
    return column["default_value"] is not None or (column["type"] == "status" and bool(config.get("defaultLabelId")))


def _check_mappings(data: proto.MapColumnsInput, width: int, columns: dict[str, BoardColumn]) -> None:
    faults: list[FieldError] = []
    seen_indexes: set[int] = set()
    seen_columns: set[str] = set()
    for index, mapping in enumerate(data.mappings):
        at = f"mappings.{index}"
        if mapping.csvIndex >= width:
            faults.append(FieldError(f"{at}.csvIndex", f"the file has {width} columns (0 to {width - 1})"))
        elif mapping.csvIndex in seen_indexes:
            faults.append(FieldError(f"{at}.csvIndex", "is mapped twice"))
        seen_indexes.add(mapping.csvIndex)
        if mapping.target != "column":
            continue
        column = columns.get(mapping.columnId) if mapping.columnId is not None else None
        if mapping.columnId is None:
            faults.append(FieldError(f"{at}.columnId", "is required when target is column"))
        elif column is None:
            faults.append(FieldError(f"{at}.columnId", "no such column on this board"))
        elif column.type in COMPUTED_TYPES:
            faults.append(FieldError(f"{at}.columnId", f"a {column.type} column is computed and cannot be imported"))
        elif column.type not in IMPORTABLE:
            faults.append(FieldError(f"{at}.columnId", f"a {column.type} column cannot be filled from a CSV cell"))
        elif column.id in seen_columns:
            faults.append(FieldError(f"{at}.columnId", "this column is mapped twice"))
        if column is not None:
            seen_columns.add(column.id)
    names = sum(1 for mapping in data.mappings if mapping.target == "item_name")
    if names != 1:
        faults.append(FieldError("mappings", "map exactly one CSV column to item_name"
                                 if names else "map one CSV column to item_name"))
    if sum(1 for mapping in data.mappings if mapping.target == "group") > 1:
        faults.append(FieldError("mappings", "map at most one CSV column to group"))
    if faults:
        raise ValidationFailed.naming(faults)


@procedures.implement(proto.MAP_COLUMNS)
async def map_columns(node: Node, caller: Caller, data: proto.MapColumnsInput) -> dict[str, Any]:
    row = await _session(node, caller, data.importId)
    if row["status"] not in ("uploaded", "mapped"):
        raise _not_runnable(row)
    columns, groups = await _layout(node, caller, row["board_id"])
    _check_mappings(data, len(row["columns"]), columns)
    if data.groupId is not None and data.groupId not in groups:
        raise ValidationFailed.of("groupId", "no such group on this board")
    if not groups:
        raise BadRequest("the board has no group to put the items in")
    stored = proto.StoredMapping(mappings=data.mappings, groupId=data.groupId or next(iter(groups)),
                                 skipFirstRow=data.skipFirstRow, dateFormat=data.dateFormat)
    updated = await repo.set_mapping(node.pool, caller.org_id, row["id"], msgspec.to_builtins(stored),
                                     node.clock.now())
    if updated is None:  # executed or expired meanwhile
        raise Conflict("the import is no longer waiting for a mapping")
    return {**session_view(updated), **msgspec.to_builtins(stored)}


async def _reader(node: Node, caller: Caller, row: asyncpg.Record) -> RowReader:
    """The stored mapping over the board as it is now; 409 when a mapped column or the group was removed since."""
    mapping = msgspec.convert(row["mapping"], proto.StoredMapping)
    columns, groups = await _layout(node, caller, row["board_id"])
    gone = [m.columnId for m in mapping.mappings if m.target == "column" and m.columnId not in columns]
    if gone or mapping.groupId not in groups:
        raise Conflict("the board changed since the columns were mapped (a mapped column or the group was removed):"
                       " map the columns again")
    members = [Member(r["id"], r["email"], r["name"]) for r in await repo.members(node.pool, caller.org_id)]
    headers = [column["header"] for column in row["columns"]]
    return RowReader(mapping, headers, list(columns.values()), groups, members, row["delimiter"])


def _rows(content: bytes, row: asyncpg.Record, reader: RowReader) -> Iterator[ParsedRow]:
    first = True
    for number, fields in csv_file.records(content, row["delimiter"]):
        if first and reader.mapping.skipFirstRow:
            first = False
            continue
        first = False
        yield reader.read(number, fields)


def _row_view(parsed: ParsedRow) -> dict[str, Any]:
    return {"row": parsed.row, "itemName": parsed.name, "groupId": parsed.group_id, "valid": parsed.valid,
            "values": parsed.cells}


def _summary(content: bytes, row: asyncpg.Record, reader: RowReader) -> dict[str, Any]:
    """Every row parsed: the counts, the first rows as they would be stored and the first errors."""
    total = valid = 0
    preview: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for parsed in _rows(content, row, reader):
        total += 1
        valid += parsed.valid
        if len(preview) < PREVIEW_ROWS:
            preview.append(_row_view(parsed))
        if len(errors) < MAX_ERRORS:
            errors.extend(parsed.errors[:MAX_ERRORS - len(errors)])
    return {"totalRows": total, "validRows": valid, "errorRows": total - valid, "preview": preview,
            "errors": errors}


async def _content(node: Node, caller: Caller, row: asyncpg.Record) -> bytes:
    content = await repo.content(node.pool, caller.org_id, row["id"])
    if content is None:
        raise Conflict("the import has already run")
    return content


@procedures.implement(proto.PREVIEW)
async def preview(node: Node, caller: Caller, data: proto.ImportIdInput) -> dict[str, Any]:
    row = await _session(node, caller, data.importId)
    if row["status"] != "mapped":
        raise _not_runnable(row)
    reader = await _reader(node, caller, row)
    content = await _content(node, caller, row)
    summary = await _over_file(content, _summary, content, row, reader)
    return {"importId": row["id"], **summary}


async def _send(node: Node, caller: Caller, board_id: str, batch: ImportBatch) -> dict[str, Any]:
    """One batch to the board; sent again (the same item ids: nothing made twice) when the board was passingly
    unable to take it."""
    for attempt in range(1, BATCH_ATTEMPTS + 1):
        try:
            reply: dict[str, Any] = await ask_board(node, caller, board_id, IMPORT_ITEMS, batch, with_members=True,
                                                    check_access=False)
            return reply
        except (ServiceUnavailable, TooManyRequests):
            if attempt == BATCH_ATTEMPTS:
                raise
            await asyncio.sleep(RETRY_SECONDS * attempt)
    raise AssertionError("unreachable")


class _Run:
    """An execution's counts, and who its items assigned."""

    def __init__(self) -> None:
        self.created = self.skipped = 0
        self.assigned: dict[str, int] = {}

    def took(self, reply: dict[str, Any]) -> None:
        self.created += reply["created"]
        self.skipped += len(reply["refused"])
        for user_id, count in reply["assigned"].items():
            self.assigned[user_id] = self.assigned.get(user_id, 0) + count


def _valid_count(content: bytes, row: asyncpg.Record, reader: RowReader) -> tuple[int, int, list[dict[str, Any]]]:
    valid = total = 0
    errors: list[dict[str, Any]] = []
    for parsed in _rows(content, row, reader):
        total += 1
        valid += parsed.valid
        if len(errors) < MAX_ERRORS:
            errors.extend(parsed.errors[:MAX_ERRORS - len(errors)])
    return valid, total, errors


async def _check_before(node: Node, caller: Caller, row: asyncpg.Record, reader: RowReader, content: bytes,
                        skip_error_rows: bool) -> None:
    """Refusals due before the first row is written: rows with errors when they may not be skipped, and more
    items than the plan lets the board hold (a full pass over the file; only when either can refuse)."""
    limit = plan(caller.organization.plan).items_per_board if caller.organization is not None else None
    if skip_error_rows and limit is None:
        return
    valid, total, errors = await _over_file(content, _valid_count, content, row, reader)
    if not skip_error_rows and valid < total:
        raise ValidationFailed(f"{total - valid} of {total} rows have errors and skipErrorRows is false: nothing was"
                               " imported", details=[FieldError("skipErrorRows", "rows have errors")],
                               data={"errorRows": total - valid, "errors": errors})
    if limit is not None:
        live = await repo.live_items(node.pool, caller.org_id, row["board_id"])
        if live + valid > limit:
            assert caller.organization is not None
            raise Forbidden(f"the {caller.organization.plan} plan includes {limit} items per board: the board has "
                            f"{live} and the file {valid} valid rows", data={"limit": "maxItemsPerBoard", "max": limit})


def imported_item_id(import_id: str, row: int) -> str:
    """The id of the item an import makes from a row: the same on every execution of the import, so a batch the
    board took but whose reply was lost (the import then went back to `mapped`) makes nothing twice when the
    import runs again."""
    return derived_id(Prefix.ITEM, import_id, str(row))


async def _run(node: Node, caller: Caller, row: asyncpg.Record, reader: RowReader, content: bytes,
               run: _Run) -> None:
    """Parse a batch of rows, send it, record the progress; the next batch only once the board took this one."""
    sender = replace(caller, idempotency=None)  # each batch is a call of its own (`imported_item_id` makes it safe)
    rows: list[ImportRow] = []
    board_id, org_id = row["board_id"], caller.org_id
    columns = {c.id: fingerprint(c.type, c.config, c.required) for c in reader.columns}

    async def flush() -> None:
        # Rows a batch whose reply was lost already made, and the user has since trashed or moved: sending them
        # again would bring them back here (the board upserts by id).
        gone = await repo.made_and_gone(node.pool, org_id, board_id, [r.item_id for r in rows])
        if gone:
            run.created += len(gone)
            rows[:] = [r for r in rows if r.item_id not in gone]
        if rows:
            run.took(await _send(node, sender, board_id, ImportBatch(row["id"], encode_rows(rows), columns)))
        rows.clear()
        await repo.progress(node.pool, org_id, row["id"], run.created, run.skipped)

    for count, parsed in enumerate(_rows(content, row, reader), 1):
        if count % PARSE_SLICE == 0:
            await asyncio.sleep(0)
        if not parsed.valid:
            run.skipped += 1
            continue
        rows.append(ImportRow(imported_item_id(row["id"], parsed.row), parsed.row, parsed.name, parsed.group_id,
                              parsed.values))
        if len(rows) >= BATCH_ROWS:
            await flush()
    if rows:
        await flush()


async def announce(uow: UnitOfWork, done: asyncpg.Record) -> None:
    """An import's end (`import.completed` or `import.failed`, from its finished row) on the activity trail and
    the board's stream, in the unit of work that recorded it."""
    summary = {"importId": done["id"], "boardId": done["board_id"], "fileName": done["file_name"],
               "status": done["status"], "itemsCreated": done["items_created"],
               "itemsSkipped": done["items_skipped"], "duration": done["duration_ms"]}
    await uow.activity("board", done["board_id"], f"import.{done['status']}", summary)
    uow.emit(board_stream(done["board_id"]), f"import.{done['status']}", summary)


async def _finish(node: Node, caller: Caller, row: asyncpg.Record, run: _Run, status: str, started: float,
                  error: str | None) -> asyncpg.Record:
    duration = round((time.monotonic() - started) * 1000)
    async with node.write(caller) as uow:
        done = await repo.finish(uow.conn, caller.org_id, row["id"], status=status, created=run.created,
                                 skipped=run.skipped, duration_ms=duration, error=error, now=uow.now)
        assert done is not None
        await announce(uow, done)
        for user_id, count in run.assigned.items():
            await uow.notify(user_id, ASSIGNED,
                             f"You were assigned to {count} item{'s' if count != 1 else ''} imported from "
                             f"{row['file_name']}", None, "board", row["board_id"])
    return done


@procedures.implement(proto.EXECUTE)
async def execute(node: Node, caller: Caller, data: proto.ExecuteInput) -> dict[str, Any]:
    row = await _session(node, caller, data.importId)
    now = node.clock.now()
    claimed = await repo.claim(node.pool, caller.org_id, row["id"], now,
                               now + timedelta(seconds=proto.SESSION_SECONDS))
    if claimed is None:
        raise _not_runnable(await _session(node, caller, data.importId))
    started = time.monotonic()
    run = _Run()
    try:
        reader = await _reader(node, caller, claimed)
        content = await _content(node, caller, claimed)
        await _check_before(node, caller, claimed, reader, content, data.skipErrorRows)
        await _run(node, caller, claimed, reader, content, run)
    except ApiError as error:
        if run.created == 0:  # nothing written: the session can be run again (after a new mapping, say)
            await repo.release(node.pool, caller.org_id, claimed["id"], row["expires_at"])
            raise
        await _finish(node, caller, claimed, run, "failed", started, error.message)
        log.warning("import_failed", importId=claimed["id"], created=run.created, error=error.message)
        raise Conflict(f"the import stopped after {run.created} items: {error.message}",
                       data={"importId": claimed["id"], "itemsCreated": run.created}) from None
    except BaseException:
        if run.created == 0:
            await repo.release(node.pool, caller.org_id, claimed["id"], row["expires_at"])
        else:
            await _finish(node, caller, claimed, run, "failed", started, "the import stopped unexpectedly")
        raise
    done = await _finish(node, caller, claimed, run, "completed", started, None)
    return {"importId": done["id"], "status": done["status"], "itemsCreated": done["items_created"],
            "itemsSkipped": done["items_skipped"], "duration": done["duration_ms"], "boardId": done["board_id"]}


@procedures.implement(proto.GET_HISTORY)
async def get_history(node: Node, caller: Caller, data: proto.HistoryInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    since = node.clock.now() - timedelta(days=proto.HISTORY_DAYS)
    rows = await repo.history(node.pool, caller.org_id, data.boardId, since)
    return {"imports": [{
        "id": r["id"], "fileName": r["file_name"], "status": r["status"], "totalRows": r["total_rows"],
        "itemsCreated": r["items_created"], "itemsSkipped": r["items_skipped"],
        "importedBy": {"id": r["created_by"], "name": r["importer_name"]} if r["created_by"] else None,
        "completedAt": iso(r["completed_at"]), "duration": r["duration_ms"], "error": r["error"]} for r in rows]}
