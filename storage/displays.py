"""Display links (docs/displays.md): a board's wall-screen credentials, a clear lookup prefix plus a bcrypt hash,
read and changed within one organization."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from storage.connection import Conn

# Everything a caller may see of a display: never `secret_hash`.
VIEW_COLUMNS = "id, organization_id, board_id, name, prefix, created_by, created_at, last_seen_at, revoked_at"


async def active_by_prefix(conn: Conn, prefix: str) -> list[asyncpg.Record]:
    """Displays not revoked sharing a lookup prefix (almost always zero or one)."""
    return await conn.fetch(
        """SELECT id, organization_id, board_id, created_by, secret_hash FROM displays
            WHERE prefix = $1 AND revoked_at IS NULL""", prefix)


async def insert(conn: Conn, *, display_id: str, org_id: str, board_id: str, name: str, prefix: str,
                 secret_hash: str, created_by: str, now: datetime) -> asyncpg.Record | None:
    """A new display for a board of the organization, only while its creator is an active member (the membership
    held as in storage/credentials.insert, so a removal in flight either prevents it or revokes it); None when
    there is no such board or member."""
    return await conn.fetchrow(
        f"""INSERT INTO displays (id, organization_id, board_id, name, prefix, secret_hash, created_by, created_at)
            SELECT $1, $2, b.id, $4, $5, $6, $7, $8 FROM boards b
             WHERE b.organization_id = $2 AND b.id = $3
               AND EXISTS (SELECT 1 FROM memberships WHERE organization_id = $2 AND user_id = $7
                              AND status = 'active' FOR KEY SHARE)
            RETURNING {VIEW_COLUMNS}""",
        display_id, org_id, board_id, name, prefix, secret_hash, created_by, now)


async def get(conn: Conn, org_id: str, display_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {VIEW_COLUMNS} FROM displays WHERE organization_id = $1 AND id = $2",
                               org_id, display_id)


async def list_of(conn: Conn, org_id: str, board_id: str | None) -> list[asyncpg.Record]:
    """The organization's displays (of one board when `board_id`), newest first."""
    return await conn.fetch(
        f"""SELECT {VIEW_COLUMNS} FROM displays
             WHERE organization_id = $1 AND ($2::text IS NULL OR board_id = $2)
             ORDER BY created_at DESC, id DESC""", org_id, board_id)


async def revoke(conn: Conn, org_id: str, display_id: str, now: datetime) -> asyncpg.Record | None:
    """Revoke a display not yet revoked; None when there is no such one (missing or revoked already)."""
    return await conn.fetchrow(
        f"""UPDATE displays SET revoked_at = $3 WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL
            RETURNING {VIEW_COLUMNS}""", org_id, display_id, now)


async def revoke_creator(conn: Conn, org_id: str, user_id: str, now: datetime) -> list[asyncpg.Record]:
    """Revoke every display a member created in an organization (they are leaving it); the rows revoked."""
    return await conn.fetch(
        f"""UPDATE displays SET revoked_at = $3 WHERE organization_id = $1 AND created_by = $2 AND revoked_at IS NULL
            RETURNING {VIEW_COLUMNS}""", org_id, user_id, now)


async def record_last_seen(conn: Conn, moments: dict[str, datetime]) -> None:
    """Write many last-seen times in one statement, never an older over a newer (another node may have written a
    later one first)."""
    await conn.execute(
        """UPDATE displays d SET last_seen_at = GREATEST(d.last_seen_at, u.seen_at)
             FROM unnest($1::text[], $2::timestamptz[]) AS u(id, seen_at)
            WHERE d.id = u.id""", list(moments), list(moments.values()))
