"""Reads of a whole board for export.exportBoard: its groups, columns and items as committed (the board actor
persists every change before it replies), scoped by organization id. Only the board actor writes them."""

from __future__ import annotations

import asyncpg

from storage.connection import Connection


async def board_rows(conn: Connection, org_id: str, board_id: str
                     ) -> tuple[list[asyncpg.Record], list[asyncpg.Record], list[asyncpg.Record]]:
    """(groups, columns, items) of the board, all from one snapshot; every item, so that lookups see what the
    board sees."""
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        groups = await conn.fetch(
            """SELECT g.* FROM board_groups g JOIN boards b ON b.id = g.board_id
                WHERE g.board_id = $1 AND b.organization_id = $2""", board_id, org_id)
        columns = await conn.fetch(
            """SELECT c.* FROM board_columns c JOIN boards b ON b.id = c.board_id
                WHERE c.board_id = $1 AND b.organization_id = $2""", board_id, org_id)
        # An item between the two steps of a move to another board (`moving_to`) is on neither board.
        items = await conn.fetch("SELECT * FROM items WHERE board_id = $1 AND organization_id = $2"
                                 " AND moving_to IS NULL", board_id, org_id)
    return groups, columns, items
