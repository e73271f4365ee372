"""Idempotency records (table `idempotency_keys`): one row per credential scope and key, claimed with
status NULL while its first request runs, then holding that request's response (or only its status, with
`response` NULL, when the reply held a secret that is shown once and so never stored)."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from storage.connection import Conn


async def claim(conn: Conn, scope: str, key: str, request_hash: str, holder: str, now: datetime,
                expired_before: datetime, abandoned_before: datetime) -> bool:
    """Insert the row in flight, held by the node `holder`; True if this request won the key. An expired row,
    or one left in flight since `abandoned_before`, is taken over as if it were absent."""
    return bool(await conn.fetchval(
        """INSERT INTO idempotency_keys (scope, key, request_hash, holder, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (scope, key) DO UPDATE
              SET request_hash = EXCLUDED.request_hash, status = NULL, response = NULL,
                  content_type = NULL, holder = EXCLUDED.holder, created_at = EXCLUDED.created_at
            WHERE idempotency_keys.created_at < $6
               OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $7)
        RETURNING true""", scope, key, request_hash, holder, now, expired_before, abandoned_before))


async def take_over(conn: Conn, scope: str, key: str, request_hash: str, gone: str, holder: str) -> bool:
    """Make `holder` the node of the same request's claim still in flight under the node `gone`; True if it
    did (False: the claim was completed, released or taken over by another retry meanwhile)."""
    return bool(await conn.fetchval(
        """UPDATE idempotency_keys SET holder = $5
            WHERE scope = $1 AND key = $2 AND request_hash = $3 AND status IS NULL AND holder = $4
        RETURNING true""", scope, key, request_hash, gone, holder))


async def find(conn: Conn, scope: str, key: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT request_hash, status, response, content_type, holder, created_at
             FROM idempotency_keys WHERE scope = $1 AND key = $2""", scope, key)


async def complete(conn: Conn, scope: str, key: str, request_hash: str, status: int, response: bytes | None,
                   content_type: str | None) -> None:
    """Mark the request done with its response; `response` NULL with a status: done, reply withheld."""
    await conn.execute(
        """UPDATE idempotency_keys SET status = $4, response = $5, content_type = $6
            WHERE scope = $1 AND key = $2 AND request_hash = $3 AND status IS NULL""",
        scope, key, request_hash, status, response, content_type)


async def release(conn: Conn, scope: str, key: str, request_hash: str, holder: str) -> None:
    """Forget the claim in flight if `holder` still holds it (a retry may have taken it over meanwhile)."""
    await conn.execute(
        """DELETE FROM idempotency_keys
            WHERE scope = $1 AND key = $2 AND request_hash = $3 AND status IS NULL AND holder = $4""",
        scope, key, request_hash, holder)


async def purge(conn: Conn, created_before: datetime) -> int:
    """Delete the records created before the given time; returns how many."""
    result = await conn.execute("DELETE FROM idempotency_keys WHERE created_at < $1", created_before)
    return int(result.split()[-1])
