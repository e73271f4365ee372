"""API keys and personal access tokens: one table, a clear lookup prefix plus a bcrypt hash."""

from __future__ import annotations

import asyncpg

Conn = asyncpg.Connection | asyncpg.Pool


async def active_by_prefix(conn: Conn, kind: str, prefix: str) -> list[asyncpg.Record]:
    """Active credentials of a kind sharing a lookup prefix (almost always zero or one)."""
    return await conn.fetch(
        """SELECT id, kind, organization_id, user_id, secret_hash, scopes, expires_at
             FROM credentials WHERE kind = $1 AND prefix = $2 AND status = 'active'""", kind, prefix)
