"""The mail outbox: every e-mail the server sends, stored first so that none is lost, and the delivery
bookkeeping — claiming due e-mails across nodes, marking them sent, or scheduling their retry."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from protocol.ids import Prefix, new_id
from storage.connection import Conn

# Postgres delivers a NOTIFY only when the queuing transaction commits: the wake-up comes after commit.
WAKE_CHANNEL = "obeya_mail"


async def store(conn: Conn, org_id: str | None, kind: str, recipient: str, subject: str, body: str,
                status: str, sealed_body: bytes | None = None) -> str:
    """`body` is what may be shown and logged; `sealed_body`, when the e-mail carries a secret, is the text
    to send, sealed (actors/kernel/sealing.py)."""
    email_id = new_id(Prefix.EMAIL)
    await conn.execute(
        """INSERT INTO emails (id, organization_id, kind, recipient, subject, body, status, sealed_body)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)""",
        email_id, org_id, kind, recipient, subject, body, status, sealed_body)
    if status == "queued":
        await conn.execute(f"NOTIFY {WAKE_CHANNEL}")
    return email_id


async def claim_due(conn: Conn, now: datetime, lease_until: datetime, limit: int) -> list[asyncpg.Record]:
    """Take up to `limit` queued e-mails that are due, leased until `lease_until`; rows another node is
    claiming at this moment are skipped, and a lease that runs out (a node died mid-send) makes them due again."""
    return await conn.fetch(
        """UPDATE emails SET next_attempt_at = $2
           WHERE id IN (SELECT id FROM emails
                        WHERE status = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= $1)
                        ORDER BY next_attempt_at NULLS FIRST, created_at
                        LIMIT $3 FOR UPDATE SKIP LOCKED)
           RETURNING id, kind, recipient, subject, body, sealed_body, attempts""", now, lease_until, limit)


async def mark_sent(conn: Conn, email_id: str, now: datetime) -> None:
    await conn.execute(
        """UPDATE emails SET status = 'sent', sent_at = $2, attempts = attempts + 1, last_error = NULL,
                  next_attempt_at = NULL, sealed_body = NULL
           WHERE id = $1""", email_id, now)


async def mark_failed_attempt(conn: Conn, email_id: str, error: str, retry_at: datetime | None) -> None:
    """Count a failed attempt; with no `retry_at` the e-mail is given up as failed and its secret wiped."""
    await conn.execute(
        """UPDATE emails SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3,
                  status = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE status END,
                  sealed_body = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE sealed_body END
           WHERE id = $1""", email_id, error, retry_at)


async def next_due(conn: Conn, now: datetime) -> datetime | None:
    """When the earliest queued e-mail becomes due (None: nothing queued; `now`: due at once)."""
    due: datetime | None = await conn.fetchval(
        "SELECT min(coalesce(next_attempt_at, $1)) FROM emails WHERE status = 'queued'", now)
    return due



async def secret_key(conn: Conn, name: str, candidate: bytes) -> bytes:
    """The stored key named `name`, created as `candidate` by the first caller (every node reads the same)."""
    material: bytes | None = await conn.fetchval("SELECT material FROM secret_keys WHERE name = $1", name)
    if material is None:
        await conn.execute("INSERT INTO secret_keys (name, material) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                           name, candidate)
        material = await conn.fetchval("SELECT material FROM secret_keys WHERE name = $1", name)
    assert material is not None
    return material
