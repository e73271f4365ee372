"""CSV import sessions and their history. Every query is scoped by organization id. The file's
bytes are read only by the functions that need them (`content`); every other read leaves them in the table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn

_COLUMNS = """id, organization_id, board_id, file_name, file_size, delimiter, encoding, total_rows, columns, mapping,
              status, items_created, items_skipped, duration_ms, error, created_by, created_at, expires_at,
              completed_at"""


async def insert_session(conn: Conn, *, session_id: str, org_id: str, board_id: str, file_name: str,
                         content: bytes | bytearray, delimiter: str, encoding: str, total_rows: int,
                         columns: list[dict[str, Any]], created_by: str | None, now: datetime,
                         expires_at: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO import_sessions (id, organization_id, board_id, file_name, file_size, delimiter, encoding,
                                         total_rows, columns, content, created_by, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING {_COLUMNS}""",
        session_id, org_id, board_id, file_name, len(content), delimiter, encoding, total_rows, columns, content,
        created_by, now, expires_at)
    return row


async def session(conn: Conn, org_id: str, session_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM import_sessions WHERE organization_id = $1 AND id = $2",
                               org_id, session_id)


async def content(conn: Conn, org_id: str, session_id: str) -> bytes | None:
    data: bytes | None = await conn.fetchval(
        "SELECT content FROM import_sessions WHERE organization_id = $1 AND id = $2", org_id, session_id)
    return data


async def set_mapping(conn: Conn, org_id: str, session_id: str, mapping: dict[str, Any],
                      now: datetime) -> asyncpg.Record | None:
    """Store the mapping of a session not run yet and still live; None when there is no such session."""
    return await conn.fetchrow(
        f"""UPDATE import_sessions SET mapping = $3, status = 'mapped'
             WHERE organization_id = $1 AND id = $2 AND status IN ('uploaded', 'mapped') AND expires_at > $4
            RETURNING {_COLUMNS}""", org_id, session_id, mapping, now)


async def claim(conn: Conn, org_id: str, session_id: str, now: datetime, expires_at: datetime) -> asyncpg.Record | None:
    """Move a mapped, live session to `running` (one caller wins); its row, or None."""
    return await conn.fetchrow(
        f"""UPDATE import_sessions SET status = 'running', expires_at = $4
             WHERE organization_id = $1 AND id = $2 AND status = 'mapped' AND expires_at > $3
            RETURNING {_COLUMNS}""", org_id, session_id, now, expires_at)


async def release(conn: Conn, org_id: str, session_id: str, expires_at: datetime) -> None:
    """A running session that did not start after all (refused before its first row) goes back to `mapped`,
    with the expiry it had before `claim` (the hour after its upload, not a fresh one)."""
    await conn.execute("UPDATE import_sessions SET status = 'mapped', expires_at = $3"
                       " WHERE organization_id = $1 AND id = $2 AND status = 'running'", org_id, session_id, expires_at)


async def progress(conn: Conn, org_id: str, session_id: str, created: int, skipped: int) -> None:
    await conn.execute("UPDATE import_sessions SET items_created = $3, items_skipped = $4"
                       " WHERE organization_id = $1 AND id = $2", org_id, session_id, created, skipped)


async def finish(conn: Conn, org_id: str, session_id: str, *, status: str, created: int, skipped: int,
                 duration_ms: int, error: str | None, now: datetime) -> asyncpg.Record | None:
    """Record the outcome and drop the file's bytes: the row is history from now on."""
    return await conn.fetchrow(
        f"""UPDATE import_sessions SET status = $3, items_created = $4, items_skipped = $5, duration_ms = $6,
                   error = $7, completed_at = $8, content = NULL
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, session_id, status, created, skipped, duration_ms, error, now)


async def history(conn: Conn, org_id: str, board_id: str, since: datetime) -> list[asyncpg.Record]:
    """A board's finished imports since `since`; `total_rows` counts the first record too when the mapping read it
    as data (`skipFirstRow` false), as the import did."""
    return await conn.fetch(
        """SELECT s.id, s.file_name, s.status,
                  s.total_rows + CASE WHEN COALESCE((s.mapping->>'skipFirstRow')::boolean, true) THEN 0 ELSE 1 END
                      AS total_rows,
                  s.items_created, s.items_skipped, s.created_by,
                  s.completed_at, s.duration_ms, s.error, u.name AS importer_name
             FROM import_sessions s LEFT JOIN users u ON u.id = s.created_by
            WHERE s.organization_id = $1 AND s.board_id = $2 AND s.status IN ('completed', 'failed')
              AND s.completed_at >= $3
            ORDER BY s.completed_at DESC, s.id DESC""", org_id, board_id, since)


async def abandoned(conn: Conn, now: datetime) -> list[asyncpg.Record]:
    """Sessions still `running` past their expiry: their node stopped mid-import (every organization's)."""
    return await conn.fetch("SELECT organization_id, id FROM import_sessions WHERE status = 'running'"
                            " AND expires_at <= $1 ORDER BY expires_at, id", now)


async def abandon(conn: Conn, org_id: str, session_id: str, now: datetime) -> asyncpg.Record | None:
    """Record an abandoned import as failed and drop its bytes; None when it is no longer abandoned."""
    return await conn.fetchrow(
        f"""UPDATE import_sessions SET status = 'failed', completed_at = $3, content = NULL,
                   error = 'the import stopped before it finished (its server went away)'
             WHERE organization_id = $1 AND id = $2 AND status = 'running' AND expires_at <= $3
            RETURNING {_COLUMNS}""", org_id, session_id, now)


async def sweep(conn: Conn, now: datetime, history_before: datetime) -> tuple[int, int]:
    """Delete sessions that expired unexecuted and history older than `history_before`; the counts."""
    expired = await conn.execute(
        "DELETE FROM import_sessions WHERE status IN ('uploaded', 'mapped') AND expires_at <= $1", now)
    old = await conn.execute("DELETE FROM import_sessions WHERE completed_at < $1", history_before)
    return int(expired.split()[-1]), int(old.split()[-1])


async def board_layout(conn: Conn, org_id: str, board_id: str) -> tuple[list[asyncpg.Record], list[asyncpg.Record]]:
    """A board's columns and groups as stored (none of either: no such board in the organization)."""
    columns = await conn.fetch(
        """SELECT c.id, c.name, c.type, c.config, c.required, c.default_value, c.position
             FROM board_columns c JOIN boards b ON b.id = c.board_id
            WHERE b.organization_id = $1 AND b.id = $2 ORDER BY c.position, c.id""", org_id, board_id)
    groups = await conn.fetch(
        """SELECT g.id, g.name, g.position FROM board_groups g JOIN boards b ON b.id = g.board_id
            WHERE b.organization_id = $1 AND b.id = $2 ORDER BY g.position, g.id""", org_id, board_id)
    return columns, groups


async def members(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    """The organization's active members with what a CSV names them by: e-mail and name."""
    return await conn.fetch(
        """SELECT u.id, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND m.status = 'active'""", org_id)


async def made_and_gone(conn: Conn, org_id: str, board_id: str, item_ids: list[str]) -> set[str]:
    """Those of `item_ids` that exist but are no longer live on the board: trashed, moved or moving elsewhere."""
    rows = await conn.fetch(
        """SELECT id FROM items WHERE organization_id = $1 AND id = ANY($3::text[])
              AND (board_id <> $2 OR deleted_at IS NOT NULL OR moving_to IS NOT NULL)""", org_id, board_id, item_ids)
    return {row["id"] for row in rows}


async def live_items(conn: Conn, org_id: str, board_id: str) -> int:
    count: int = await conn.fetchval(
        "SELECT count(*) FROM items WHERE organization_id = $1 AND board_id = $2 AND deleted_at IS NULL", org_id,
        board_id)
    return count
