"""The mail outbox: every e-mail the server sends, stored first so that none is lost."""

from __future__ import annotations

import asyncpg

from protocol.ids import new_id

Conn = asyncpg.Connection | asyncpg.Pool


async def store(conn: Conn, org_id: str | None, kind: str, recipient: str, subject: str, body: str,
                status: str) -> str:
    email_id = new_id("eml")
    await conn.execute(
        """INSERT INTO emails (id, organization_id, kind, recipient, subject, body, status)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""", email_id, org_id, kind, recipient, subject, body, status)
    return email_id
