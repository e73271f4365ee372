"""Assistant (MCP) keys: a clear lookup prefix plus a bcrypt hash, and the tools and resources allowed."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from storage.connection import Conn

# Everything a caller may see of a key: never `secret_hash`.
VIEW_COLUMNS = ("id, organization_id, user_id, name, prefix, allowed_tools, allowed_resources, status, "
                "created_at, revoked_at, last_used_at, expires_at")


async def active_by_prefix(conn: Conn, prefix: str) -> list[asyncpg.Record]:
    """Active keys sharing a lookup prefix (almost always zero or one)."""
    return await conn.fetch(
        """SELECT id, organization_id, user_id, secret_hash, allowed_tools, allowed_resources, expires_at
             FROM mcp_keys WHERE prefix = $1 AND status = 'active'""", prefix)


async def insert(conn: Conn, *, key_id: str, org_id: str, user_id: str, name: str, prefix: str,
                 secret_hash: str, allowed_tools: list[str], allowed_resources: list[str],
                 expires_at: datetime | None) -> asyncpg.Record | None:
    """A new key, only while its user is an active member (None otherwise; the membership held as in
    storage/credentials.insert, so a removal in flight either prevents it or revokes it)."""
    return await conn.fetchrow(
        f"""INSERT INTO mcp_keys (id, organization_id, user_id, name, prefix, secret_hash, allowed_tools,
                                  allowed_resources, expires_at)
            SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
             WHERE EXISTS (SELECT 1 FROM memberships WHERE organization_id = $2 AND user_id = $3
                              AND status = 'active' FOR KEY SHARE)
            RETURNING {VIEW_COLUMNS}""",
        key_id, org_id, user_id, name, prefix, secret_hash, allowed_tools, allowed_resources, expires_at)


async def list_for_user(conn: Conn, org_id: str, user_id: str) -> list[asyncpg.Record]:
    """A member's keys in an organization, newest first."""
    return await conn.fetch(
        f"""SELECT {VIEW_COLUMNS} FROM mcp_keys WHERE organization_id = $1 AND user_id = $2
             ORDER BY created_at DESC, id DESC""", org_id, user_id)


async def get(conn: Conn, org_id: str, key_id: str, user_id: str | None) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {VIEW_COLUMNS} FROM mcp_keys
             WHERE organization_id = $1 AND id = $2 AND ($3::text IS NULL OR user_id = $3)""",
        org_id, key_id, user_id)


async def revoke(conn: Conn, org_id: str, key_id: str, now: datetime,
                 user_id: str | None) -> asyncpg.Record | None:
    """Revoke an active key; None when there is no such active one (missing or already revoked)."""
    return await conn.fetchrow(
        f"""UPDATE mcp_keys SET status = 'revoked', revoked_at = $3
             WHERE organization_id = $1 AND id = $2 AND status = 'active' AND ($4::text IS NULL OR user_id = $4)
            RETURNING {VIEW_COLUMNS}""", org_id, key_id, now, user_id)


async def revoke_member(conn: Conn, org_id: str, user_id: str, now: datetime) -> list[asyncpg.Record]:
    """Revoke every active key a user holds in an organization; the rows revoked."""
    return await conn.fetch(
        f"""UPDATE mcp_keys SET status = 'revoked', revoked_at = $3
             WHERE organization_id = $1 AND user_id = $2 AND status = 'active'
            RETURNING {VIEW_COLUMNS}""", org_id, user_id, now)


async def record_last_used(conn: Conn, moments: dict[str, datetime]) -> None:
    """Write many last-used times in one statement, never an older over a newer (storage/credentials.py)."""
    await conn.execute(
        """UPDATE mcp_keys k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
             FROM unnest($1::text[], $2::timestamptz[]) AS u(id, used_at)
            WHERE k.id = u.id""", list(moments), list(moments.values()))
