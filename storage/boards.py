"""Reads of board structure for work that spans boards (a cross-board move reads the target board).
Writes to boards, groups, columns, items and comments belong to the board actor alone."""

from __future__ import annotations

import asyncpg

from storage.connection import Conn


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
