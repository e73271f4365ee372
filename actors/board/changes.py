"""What a board decision changes: rows put or removed, and its trail (activity entries, notifications).
`apply_change` folds a change into the state (pure); `add_change_writes` writes the turn's changes as parts of the
turn's one statement when they can be, `persist_changes` with one batched statement per table and kind otherwise
(storage/boards.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import asyncpg
from immutables import Map

from actors.board.state import BoardRow, BoardState, ColumnRow, CommentRow, GroupRow, ItemRow, Row
from actors.kernel.trail import ActivityEntry, NotificationEntry, activity_rows, persist_trail
from protocol.errors import Forbidden
from storage import boards as repo
from storage.activity import add_entries as add_activity
from storage.boards import RowBatch
from storage.notifications import add_entries as add_notifications
from storage.turn_statement import TurnStatement

# row type -> (state attribute, SQL table); the board row lives in `board`, the others in dicts by id.
TABLES: dict[type[Any], tuple[str, str]] = {
    BoardRow: ("board", "boards"),
    GroupRow: ("groups", "board_groups"),
    ColumnRow: ("columns", "board_columns"),
    ItemRow: ("items", "items"),
    CommentRow: ("comments", "comments"),
}


@dataclass(frozen=True)
class Put:
    row: Row


@dataclass(frozen=True)
class Remove:
    row_type: type[Any]
    id: str


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
    # (board id, item ids): the comments of items this board takes from another become this board's.
    comments_to: tuple[str, tuple[str, ...]] | None = None


def apply_change(state: BoardState, change: BoardChange) -> BoardState:
    """Pure: a new state with every op applied, in time proportional to the ops (persistent maps)."""
    board = state.board
    maps: dict[str, Any] = {}  # attribute -> the Map's mutation under way

    def rows(attribute: str) -> Any:
        if attribute not in maps:
            maps[attribute] = getattr(state, attribute).mutate()
        return maps[attribute]

    in_place = True  # no item entered, left or moved in board order, and no group changed
    for op in change.ops:
        row_type = type(op.row) if isinstance(op, Put) else op.row_type
        attribute, _ = TABLES[row_type]
        in_place = in_place and attribute != "groups"
        if attribute == "board":
            board = op.row if isinstance(op, Put) else None  # type: ignore[assignment]
            continue
        table = rows(attribute)
        if isinstance(op, Put) and isinstance(op.row, ItemRow | CommentRow) and board is not None \
                and op.row.board_id != board.id:
            _drop(table, op.row.id, rows if row_type is ItemRow else None, state)  # moved to another board
            in_place = in_place and row_type is not ItemRow
        elif isinstance(op, Put) and isinstance(op.row, ItemRow) and (op.row.deleted_at is not None
                                                                     or op.row.moving_to is not None):
            # Into the trash or leaving: out of memory (its comments with it); `prepare` reads it back on demand.
            _drop(table, op.row.id, rows, state)
            in_place = False
        elif isinstance(op, Put):
            old = table.get(op.row.id)
            table[op.row.id] = op.row
            if isinstance(op.row, ItemRow):
                in_place = in_place and old is not None and _same_place(old, op.row)
                _index_item(rows, old, op.row)
                if op.row.id in state.arriving:  # taken from another board: no longer arriving
                    rows("arriving").pop(op.row.id, None)
        else:
            _drop(table, op.id, rows if row_type is ItemRow else None, state)
            in_place = in_place and row_type is not ItemRow
    fields: dict[str, Any] = {attribute: mutation.finish() for attribute, mutation in maps.items()}
    if board is not state.board:
        fields["board"] = board
    if state.comments_of and "items" in fields:
        # An item that left memory takes its comments along: they are read again if it comes back.
        kept = frozenset(i for i in state.comments_of if i in fields["items"])
        if kept != state.comments_of:
            fields["comments_of"] = kept
    if not fields:
        return state
    applied = replace(state, **fields)
    if in_place and None in state.orders:
        # Board order is unchanged (values, names, archiving): the next `items.list` need not sort the board again.
        applied.orders[None] = state.orders[None]
    return applied


def _same_place(old: ItemRow, new: ItemRow) -> bool:
    """Whether the item keeps its place in board order (and stays in it: a trashed item read back for a restore
    is in memory but not in the order)."""
    return (old.group_id == new.group_id and old.parent_id == new.parent_id and old.position == new.position
            and old.board_id == new.board_id and old.deleted_at == new.deleted_at)


def _index_item(rows: Any, old: ItemRow | None, item: ItemRow) -> None:
    siblings = (item.group_id, item.parent_id)
    ends = rows("ends")
    if item.position > ends.get(siblings, float("-inf")):
        ends[siblings] = item.position
    if item.parent_id is not None and (old is None or old.parent_id != item.parent_id):
        children = rows("children")
        children[item.parent_id] = children.get(item.parent_id, frozenset()) | {item.id}


def _drop(table: Any, row_id: str, rows: Any, state: BoardState) -> None:
    old = table.get(row_id)
    if old is None:
        return
    del table[row_id]
    if rows is None:
        return
    if old.parent_id is not None:
        children = rows("children")
        siblings = children.get(old.parent_id, frozenset()) - {row_id}
        if siblings:
            children[old.parent_id] = siblings
        elif old.parent_id in children:
            del children[old.parent_id]
    # Comments are in memory only for the items in `comments_of`; only then are they looked through.
    if row_id in state.comments_of:
        comments = rows("comments")
        for comment_id in [c.id for c in state.comments.values() if c.item_id == row_id]:
            comments.pop(comment_id, None)


def index_items(items: Any) -> tuple[Map[Any, float], Map[str, frozenset[str]]]:
    """The `ends` and `children` indexes of a freshly loaded set of items."""
    ends: dict[Any, float] = {}
    children: dict[str, set[str]] = {}
    for item in items:
        siblings = (item.group_id, item.parent_id)
        ends[siblings] = max(ends.get(siblings, float("-inf")), item.position)
        if item.parent_id is not None:
            children.setdefault(item.parent_id, set()).add(item.id)
    return Map(ends), Map({k: frozenset(v) for k, v in children.items()})


def _batches(changes: Sequence[BoardChange]) -> list[RowBatch]:
    """The turn's ops as storage takes them: consecutive ops of one kind on one table go as one batch."""
    batches: list[tuple[tuple[str, type[Any]], list[Any]]] = []
    for change in changes:
        for op in change.ops:
            key = ("put", type(op.row)) if isinstance(op, Put) else ("remove", op.row_type)
            if not batches or batches[-1][0] != key:
                batches.append((key, []))
            batches[-1][1].append(op.row if isinstance(op, Put) else op.id)
    return [_row_batch(kind, row_type, rows) for (kind, row_type), rows in batches]


def add_change_writes(statement: TurnStatement, organization_id: str, changes: Sequence[BoardChange]) -> bool:
    """The turn's changes as parts of one statement, when they can be (`Actor.add_writes`): rows put, each table
    once (a row removed, or a table written twice, may depend on an earlier write of the turn), with the activity
    entries and notifications. False, with nothing added, for a turn that checks the board limit (it reads) or
    takes another board's comments."""
    if any(change.board_limit is not None or change.comments_to is not None for change in changes):
        return False
    batches = _batches(changes)
    tables = [table for table, fields, _ in batches if fields is not None]
    if len(tables) != len(batches) or len(set(tables)) != len(tables):
        return False
    for batch in batches:
        repo.add_rows(statement, batch)
    activity = activity_rows([entry for change in changes for entry in change.activity])
    if activity:
        add_activity(statement, organization_id, activity)
    notes = [note for change in changes for note in change.notifications]
    if notes:
        add_notifications(statement, organization_id, notes)
    return True


async def persist_changes(conn: asyncpg.Connection, organization_id: str, changes: Sequence[BoardChange]) -> None:
    """Write the turn's changes in order, one batched statement per batch, and the turn's activity entries ride
    along with the last batch."""
    for change in changes:
        if change.board_limit is not None:
            await _check_board_limit(conn, organization_id, change.board_limit)
    trail = activity_rows([entry for change in changes for entry in change.activity])
    await repo.write_rows(conn, organization_id, _batches(changes), trail)
    for change in changes:
        if change.comments_to is not None:
            await repo.move_comments(conn, organization_id, change.comments_to[0], list(change.comments_to[1]))
    notes = [note for change in changes for note in change.notifications]
    await persist_trail(conn, organization_id, notifications=notes)


def _row_batch(kind: str, row_type: type[Any], rows: list[Any]) -> RowBatch:
    """A batch as storage takes it: rows put with their columns (the row type's fields), or the ids removed."""
    return TABLES[row_type][1], row_type.__struct_fields__ if kind == "put" else None, rows


async def _check_board_limit(conn: asyncpg.Connection, organization_id: str, limit: BoardLimit) -> None:
    count = await repo.count_boards_locked(conn, organization_id)
    if count >= limit.boards:
        raise Forbidden(f"the {limit.plan} plan allows {limit.boards} boards; this organization has {count}",
                        data={"limit": "boards", "max": limit.boards})
