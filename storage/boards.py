"""Reads of board structure for work that spans boards (a cross-board move reads the target board).
Writes to boards, groups, columns, items and comments belong to the board actor alone."""

from __future__ import annotations

import asyncpg

from storage.connection import Conn


async def columns(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT c.id, c.name, c.type FROM board_columns c JOIN boards b ON b.id = c.board_id
            WHERE c.board_id = $1 AND b.organization_id = $2""", board_id, org_id)


async def group_end(conn: Conn, org_id: str, board_id: str, group_id: str) -> float | None:
    """One past the last position in a group of the board; None when the group is not on the board."""
    end: float | None = await conn.fetchval(
        """SELECT coalesce((SELECT max(i.position) FROM items i
                             WHERE i.group_id = g.id AND i.parent_id IS NULL AND i.deleted_at IS NULL), 0) + 1
             FROM board_groups g JOIN boards b ON b.id = g.board_id
            WHERE g.id = $3 AND g.board_id = $2 AND b.organization_id = $1""", org_id, board_id, group_id)
    return end


async def item_place(conn: Conn, org_id: str, item_id: str) -> asyncpg.Record | None:
    """An item's board and the board it is on its way to (`moving_to`: a cross-board move not yet taken)."""
    return await conn.fetchrow("SELECT board_id, moving_to FROM items WHERE id = $1 AND organization_id = $2",
                               item_id, org_id)


async def stalled_moves(conn: Conn, before: object) -> list[asyncpg.Record]:
    """Top-level items left by their board for another one before `before` and not taken since."""
    return await conn.fetch(
        """SELECT id, board_id, moving_to, organization_id FROM items
            WHERE moving_to IS NOT NULL AND parent_id IS NULL AND updated_at <= $1""", before)


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
