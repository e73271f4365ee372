"""API keys and personal access tokens: one table, a clear lookup prefix plus a bcrypt hash."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from storage.connection import Conn


async def active_by_prefix(conn: Conn, kind: str, prefix: str) -> list[asyncpg.Record]:
    """Active credentials of a kind sharing a lookup prefix (almost always zero or one)."""
    return await conn.fetch(
        """SELECT id, kind, organization_id, user_id, secret_hash, scopes, expires_at
             FROM credentials WHERE kind = $1 AND prefix = $2 AND status = 'active'""", kind, prefix)


# Everything a caller may see of a credential: never `secret_hash`.
VIEW_COLUMNS = ("id, kind, organization_id, user_id, name, prefix, scopes, status, expires_at, last_used_at, "
                "created_at, revoked_at")


async def insert(conn: Conn, *, credential_id: str, kind: str, org_id: str, user_id: str, name: str,
                 prefix: str, secret_hash: str, scopes: list[str],
                 expires_at: datetime | None) -> asyncpg.Record | None:
    """A new credential, only while its user is an active member (None otherwise). The membership is held
    `FOR KEY SHARE`: a removal in flight commits first (then nothing is stored), or waits for this insert (then
    its `revoke_member` sees the credential)."""
    return await conn.fetchrow(
        f"""INSERT INTO credentials (id, kind, organization_id, user_id, name, prefix, secret_hash, scopes,
                                     expires_at)
            SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
             WHERE EXISTS (SELECT 1 FROM memberships WHERE organization_id = $3 AND user_id = $4
                              AND status = 'active' FOR KEY SHARE)
            RETURNING {VIEW_COLUMNS}""",
        credential_id, kind, org_id, user_id, name, prefix, secret_hash, scopes, expires_at)


async def list_of_kind(conn: Conn, org_id: str, kind: str,
                       user_id: str | None = None) -> list[asyncpg.Record]:
    """The organization's credentials of a kind, newest first; only `user_id`'s when given."""
    return await conn.fetch(
        f"""SELECT {VIEW_COLUMNS} FROM credentials
             WHERE organization_id = $1 AND kind = $2 AND ($3::text IS NULL OR user_id = $3)
             ORDER BY created_at DESC, id DESC""", org_id, kind, user_id)


async def get(conn: Conn, org_id: str, kind: str, credential_id: str,
              user_id: str | None = None) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {VIEW_COLUMNS} FROM credentials
             WHERE organization_id = $1 AND kind = $2 AND id = $3 AND ($4::text IS NULL OR user_id = $4)""",
        org_id, kind, credential_id, user_id)


async def revoke(conn: Conn, org_id: str, kind: str, credential_id: str, now: datetime,
                 user_id: str | None = None) -> asyncpg.Record | None:
    """Revoke an active credential; None when there is no such active one (missing or already revoked)."""
    return await conn.fetchrow(
        f"""UPDATE credentials SET status = 'revoked', revoked_at = $4
             WHERE organization_id = $1 AND kind = $2 AND id = $3 AND status = 'active'
               AND ($5::text IS NULL OR user_id = $5)
            RETURNING {VIEW_COLUMNS}""", org_id, kind, credential_id, now, user_id)


async def revoke_member(conn: Conn, org_id: str, kind: str, user_id: str, now: datetime) -> list[asyncpg.Record]:
    """Revoke every active credential of a kind that a user holds in an organization; the rows revoked."""
    return await conn.fetch(
        f"""UPDATE credentials SET status = 'revoked', revoked_at = $4
             WHERE organization_id = $1 AND kind = $2 AND user_id = $3 AND status = 'active'
            RETURNING {VIEW_COLUMNS}""", org_id, kind, user_id, now)


async def delete(conn: Conn, org_id: str, kind: str, credential_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""DELETE FROM credentials WHERE organization_id = $1 AND kind = $2 AND id = $3
            RETURNING {VIEW_COLUMNS}""",
        org_id, kind, credential_id)


async def record_last_used(conn: Conn, moments: dict[str, datetime]) -> None:
    """Write many last-used times in one statement; an older time never overwrites a newer one (another
    node may have flushed a later use first)."""
    await conn.execute(
        """UPDATE credentials c SET last_used_at = GREATEST(c.last_used_at, u.used_at)
             FROM unnest($1::text[], $2::timestamptz[]) AS u(id, used_at)
            WHERE c.id = u.id""", list(moments), list(moments.values()))
