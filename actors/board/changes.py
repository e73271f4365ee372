"""What a board decision changes: rows put or removed, and activity entries. `apply` folds a change into
the state (pure); `persist` writes the turn's changes with one batched statement per table and kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from actors.board.state import BoardRow, BoardState, ColumnRow, CommentRow, GroupRow, ItemRow, Row
from protocol.errors import Forbidden
from protocol.ids import new_id

# state attribute -> (SQL table, row type); the board row lives in `board`, the others in dicts by id.
TABLES: dict[type[Any], tuple[str, str]] = {
    BoardRow: ("board", "boards"),
    GroupRow: ("groups", "board_groups"),
    ColumnRow: ("columns", "board_columns"),
    ItemRow: ("items", "items"),
    CommentRow: ("comments", "comments"),
}
# SQL column names that differ from the row's field names (`values` is a reserved word).
_QUOTED = {"values": '"values"'}


@dataclass(frozen=True)
class Put:
    row: Row


@dataclass(frozen=True)
class Remove:
    row_type: type[Any]
    id: str


@dataclass(frozen=True)
class ActivityEntry:
    entity_type: str
    entity_id: str
    action: str
    actor_id: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NotificationEntry:
    """An in-app notification written in the turn's transaction (not part of the board's state)."""

    id: str
    user_id: str
    type: str
    title: str
    body: str | None
    entity_type: str | None
    entity_id: str | None


@dataclass(frozen=True)
class BoardLimit:
    """The plan's board limit a board creation is checked against, in its commit (not in decide, which
    cannot count the organization's boards): boards are created by their own actors, so only the
    database sees them all."""

    plan: str
    boards: int


@dataclass(frozen=True)
class BoardChange:
    ops: Sequence[Put | Remove] = ()
    activity: Sequence[ActivityEntry] = ()
    notifications: Sequence[NotificationEntry] = ()
    board_limit: BoardLimit | None = None


def apply_change(state: BoardState, change: BoardChange) -> BoardState:
    """Pure: a new state with every op applied; each touched table's dict is copied once."""
    copies: dict[str, dict[str, Any]] = {}
    board = state.board
    for op in change.ops:
        row_type = type(op.row) if isinstance(op, Put) else op.row_type
        attribute, _ = TABLES[row_type]
        if attribute == "board":
            board = op.row if isinstance(op, Put) else None  # type: ignore[assignment]
            continue
        rows = copies.get(attribute)
        if rows is None:
            rows = copies[attribute] = dict(getattr(state, attribute))
        if isinstance(op, Put) and isinstance(op.row, ItemRow | CommentRow) and board is not None \
                and op.row.board_id != board.id:
            rows.pop(op.row.id, None)  # moved to another board: written there, gone from here
        elif isinstance(op, Put):
            rows[op.row.id] = op.row
        else:
            rows.pop(op.id, None)
    result = state if board is state.board else BoardState(board, state.groups, state.columns, state.items,
                                                          state.comments)
    for attribute, rows in copies.items():
        result = result.with_rows(attribute, rows)
    return result


def _upsert_sql(row_type: type[Any], table: str) -> tuple[str, list[str]]:
    names = list(row_type.__struct_fields__)
    columns = [_QUOTED.get(name, name) for name in names]
    placeholders = ", ".join(f"${index}" for index in range(1, len(names) + 1))
    updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in columns if column != "id")
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates}", names)


_UPSERTS = {row_type: _upsert_sql(row_type, table) for row_type, (_, table) in TABLES.items()}


async def persist_changes(conn: asyncpg.Connection, organization_id: str, changes: Sequence[BoardChange]) -> None:
    """Write the turn's changes in order; consecutive ops of one kind on one table go as one batch."""
    for change in changes:
        if change.board_limit is not None:
            await _check_board_limit(conn, organization_id, change.board_limit)
    batch_key: tuple[str, type[Any]] | None = None
    batch: list[Any] = []

    async def flush() -> None:
        if not batch or batch_key is None:
            return
        kind, row_type = batch_key
        if kind == "put":
            sql, names = _UPSERTS[row_type]
            await conn.executemany(sql, [[getattr(row, name) for name in names] for row in batch])
        else:
            await conn.execute(f"DELETE FROM {TABLES[row_type][1]} WHERE id = ANY($1::text[])", batch)
        batch.clear()

    for change in changes:
        for op in change.ops:
            key = ("put", type(op.row)) if isinstance(op, Put) else ("remove", op.row_type)
            if key != batch_key:
                await flush()
                batch_key = key
            batch.append(op.row if isinstance(op, Put) else op.id)
    await flush()
    entries = [entry for change in changes for entry in change.activity]
    if entries:
        await conn.executemany(
            """INSERT INTO activity (id, organization_id, entity_type, entity_id, action, metadata, actor_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7)""",
            [(new_id("act"), organization_id, e.entity_type, e.entity_id, e.action, e.metadata, e.actor_id)
             for e in entries])
    notes = [note for change in changes for note in change.notifications]
    if notes:
        await conn.executemany(
            """INSERT INTO notifications (id, user_id, organization_id, type, title, body, entity_type, entity_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8)""",
            [(n.id, n.user_id, organization_id, n.type, n.title, n.body, n.entity_type, n.entity_id) for n in notes])


async def _check_board_limit(conn: asyncpg.Connection, organization_id: str, limit: BoardLimit) -> None:
    # Concurrent creations in one organization queue on this lock until the first commits, so the count
    # each sees includes the others' boards.
    await conn.execute("SELECT pg_advisory_xact_lock(hashtext('boards:' || $1))", organization_id)
    count = await conn.fetchval("SELECT count(*) FROM boards WHERE organization_id = $1", organization_id)
    if count >= limit.boards:
        raise Forbidden(f"the {limit.plan} plan allows {limit.boards} boards; this organization has {count}",
                        data={"limit": "boards", "max": limit.boards})


def row_from_record(row_type: type[Any], record: asyncpg.Record) -> Any:
    return row_type(**{name: record[name] for name in row_type.__struct_fields__})
