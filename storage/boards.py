"""Boards, their groups, columns, items and comments. The board actor reads its state and what it keeps out of
memory here and writes every change to them here (rows are passed as structs whose fields are named like the
columns); work that spans boards reads board structure (a cross-board move reads the target board)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import asyncpg

from storage.activity import add_entries, insert_entries
from storage.connection import Conn
from storage.turn_statement import TurnStatement

# --- the board actor's state -------------------------------------------------------------------------------

async def board_row(conn: Conn, org_id: str, board_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow("SELECT * FROM boards WHERE id = $1 AND organization_id = $2", board_id, org_id)


async def live_items(conn: Conn, board_id: str) -> list[asyncpg.Record]:
    """The board's items neither in the trash nor on their way to another board."""
    return await conn.fetch("SELECT * FROM items WHERE board_id = $1 AND deleted_at IS NULL AND moving_to IS NULL",
                            board_id)


async def board_groups(conn: Conn, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT * FROM board_groups WHERE board_id = $1", board_id)


async def board_columns(conn: Conn, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT * FROM board_columns WHERE board_id = $1", board_id)


# --- what the board actor reads on demand ------------------------------------------------------------------

async def trashed_items(conn: Conn, org_id: str, board_id: str, item_ids: list[str]) -> list[asyncpg.Record]:
    """The items among `item_ids` in the board's trash, with their sub-items there."""
    return await conn.fetch(
        """SELECT * FROM items WHERE board_id = $1 AND organization_id = $3 AND deleted_at IS NOT NULL
           AND moving_to IS NULL AND (id = ANY($2::text[]) OR parent_id = ANY($2::text[]))""",
        board_id, item_ids, org_id)


async def expired_items(conn: Conn, org_id: str, board_id: str, before: object) -> list[asyncpg.Record]:
    """The board's items put in the trash at or before `before`."""
    return await conn.fetch(
        """SELECT * FROM items WHERE board_id = $1 AND organization_id = $3 AND moving_to IS NULL
           AND deleted_at <= $2""", board_id, before, org_id)


async def arriving_items(conn: Conn, org_id: str, board_id: str, item_ids: list[str]) -> list[asyncpg.Record]:
    """The items among `item_ids` on their way to the board, with their sub-items."""
    return await conn.fetch(
        """SELECT * FROM items WHERE moving_to = $1 AND organization_id = $3
           AND (id = ANY($2::text[]) OR parent_id = ANY($2::text[]))""",
        board_id, item_ids, org_id)


async def items_commented(conn: Conn, org_id: str, board_id: str, comment_ids: list[str]) -> set[str]:
    """The ids of the items the board's comments among `comment_ids` are on."""
    return {r["item_id"] for r in await conn.fetch(
        "SELECT item_id FROM comments WHERE board_id = $1 AND organization_id = $3 AND id = ANY($2::text[])",
        board_id, comment_ids, org_id)}


async def comments_on(conn: Conn, org_id: str, board_id: str, item_ids: list[str]) -> list[asyncpg.Record]:
    """The board's comments on the items `item_ids`."""
    return await conn.fetch(
        "SELECT * FROM comments WHERE board_id = $1 AND organization_id = $3 AND item_id = ANY($2::text[])",
        board_id, item_ids, org_id)


async def comments_on_item(conn: Conn, org_id: str, board_id: str, item_id: str) -> list[asyncpg.Record]:
    return await conn.fetch("SELECT * FROM comments WHERE board_id = $1 AND organization_id = $3 AND item_id = $2",
                            board_id, item_id, org_id)


async def comments_beside(conn: Conn, org_id: str, board_id: str, comment_id: str) -> list[asyncpg.Record]:
    """The board's comments on the item the comment `comment_id` is on (that one included)."""
    return await conn.fetch(
        """SELECT * FROM comments WHERE board_id = $1 AND organization_id = $3
            AND item_id = (SELECT item_id FROM comments WHERE id = $2 AND board_id = $1)""",
        board_id, comment_id, org_id)


async def made_items(conn: Conn, org_id: str, item_ids: list[str]) -> set[str]:
    """The ids among `item_ids` that were made already: their row (in any board, in the trash) or, once
    purged, their activity says so."""
    return {r["id"] for r in await conn.fetch(
        """SELECT id FROM unnest($2::text[]) AS made (id)
            WHERE EXISTS (SELECT FROM items i WHERE i.id = made.id AND i.organization_id = $1)
               OR EXISTS (SELECT FROM activity a WHERE a.organization_id = $1 AND a.entity_type = 'item'
                                                  AND a.entity_id = made.id)""",
        org_id, item_ids)}


# --- what a board turn writes ------------------------------------------------------------------------------

# SQL column names that differ from the row's field names (`values` is a reserved word).
_QUOTED = {"values": '"values"'}

# One batch of a turn: the table, the columns of the rows it puts (None: it removes rows), and the rows (the ids
# of the rows removed).
RowBatch = tuple[str, Sequence[str] | None, Sequence[Any]]


@functools.cache
def _upsert_sql(table: str, fields: tuple[str, ...], rows: str) -> str:
    """One statement for any number of rows: they travel as one jsonb array (`rows`, a placeholder; msgspec encodes
    the row structs in C), read back as the table's own row type, so each column keeps its type without listing
    any."""
    columns = [_QUOTED.get(name, name) for name in fields]
    listed = ", ".join(columns)
    updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in columns if column != "id")
    return (f"INSERT INTO {table} ({listed}) SELECT {listed} FROM jsonb_populate_recordset(NULL::{table}, {rows}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates}")


def add_rows(statement: TurnStatement, batch: RowBatch) -> None:
    """One batch as a part of `statement`."""
    table, fields, rows = batch
    if fields is not None:
        # One statement may not upsert a row twice: a row put twice in the turn goes once, as last put.
        put = list({row.id: row for row in rows}.values())
        statement.add(_upsert_sql(table, tuple(fields), statement.param(put)))
    else:
        statement.add(f"DELETE FROM {table} WHERE id = ANY({statement.param(list(rows))}::text[])")


async def write_rows(conn: Conn, org_id: str, batches: Sequence[RowBatch], activity: list[dict[str, Any]]) -> None:
    """Each batch in one statement, in order; the activity entries (`storage.activity.insert_entries_sql` rows)
    ride along with the last batch (one round trip less)."""
    for index, batch in enumerate(batches):
        statement = TurnStatement()
        add_rows(statement, batch)
        if activity and index == len(batches) - 1:
            add_entries(statement, org_id, activity)
        await statement.execute(conn)
    if activity and not batches:
        await insert_entries(conn, org_id, activity)


async def count_boards_locked(conn: Conn, org_id: str) -> int:
    """The organization's boards, counted under a lock held until the transaction ends: concurrent creations in
    one organization queue on it until the first commits, so the count each sees includes the others' boards."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtext('boards:' || $1))", org_id)
    count: int = await conn.fetchval("SELECT count(*) FROM boards WHERE organization_id = $1", org_id)
    return count


async def move_comments(conn: Conn, org_id: str, board_id: str, item_ids: list[str]) -> None:
    """The comments of the items `item_ids` (taken from another board) become the board's."""
    await conn.execute("UPDATE comments SET board_id = $1 WHERE item_id = ANY($2::text[]) AND organization_id = $3",
                       board_id, item_ids, org_id)


# --- reads for work that spans boards ----------------------------------------------------------------------

async def item_place(conn: Conn, org_id: str, item_id: str) -> asyncpg.Record | None:
    """An item's board and the board it is on its way to (`moving_to`: a cross-board move not yet taken)."""
    return await conn.fetchrow("SELECT board_id, moving_to FROM items WHERE id = $1 AND organization_id = $2",
                               item_id, org_id)


async def stalled_moves(conn: Conn, before: object) -> list[asyncpg.Record]:
    """Top-level items left by their board for another one before `before` and not taken since."""
    return await conn.fetch(
        """SELECT id, board_id, moving_to, organization_id FROM items
            WHERE moving_to IS NOT NULL AND parent_id IS NULL AND updated_at <= $1""", before)


async def return_move(conn: Conn, org_id: str, item_id: str, gone_board_id: str) -> None:
    """A move whose target board was deleted before it took the item: mark the item (and its sub-items) as
    arriving back on the board they never left, for that board to take them again."""
    await conn.execute(
        """UPDATE items SET moving_to = board_id
            WHERE organization_id = $1 AND moving_to = $2 AND (id = $3 OR parent_id = $3)""",
        org_id, gone_board_id, item_id)


async def board_exists(conn: Conn, org_id: str, board_id: str) -> bool:
    found: bool = await conn.fetchval("SELECT EXISTS (SELECT 1 FROM boards WHERE id = $1 AND organization_id = $2)",
                                      board_id, org_id)
    return found


async def comment_ids(conn: Conn, org_id: str, item_ids: list[str]) -> list[str]:
    rows = await conn.fetch("SELECT id FROM comments WHERE organization_id = $1 AND item_id = ANY($2::text[])",
                            org_id, item_ids)
    return [r["id"] for r in rows]


async def boards_with_expired_trash(conn: Conn, cutoff: object) -> list[asyncpg.Record]:
    """(board id, organization id) of every board holding items deleted before `cutoff`."""
    return await conn.fetch(
        """SELECT DISTINCT b.id, b.organization_id FROM items i JOIN boards b ON b.id = i.board_id
            WHERE i.deleted_at IS NOT NULL AND i.deleted_at <= $1""", cutoff)


async def boards_mentioning(conn: Conn, org_id: str, user_id: str) -> list[str]:
    """Boards with an item whose values name the user (a candidate list: each board checks its columns)."""
    return [r["board_id"] for r in await conn.fetch(
        """SELECT DISTINCT board_id FROM items
            WHERE organization_id = $1 AND strpos("values"::text, $2) > 0""", org_id, f'"{user_id}"')]
