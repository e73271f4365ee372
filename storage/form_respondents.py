"""The statements of a form's respondents: distribution recipients, one-time codes and the respondent
sessions verifyOtp opens (tables of migration 0031). Every query is scoped by organization id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from storage.connection import Conn

RECIPIENT_COLUMNS = ("id, organization_id, form_id, email, name, status, sent_at, opened_at, started_at, "
                     "completed_at, reminder_count")


async def recipients(conn: Conn, org_id: str, form_id: str) -> list[asyncpg.Record]:
    """The form's recipients in the order they were sent to (one distribution's by e-mail)."""
    return list(await conn.fetch(
        f"""SELECT {RECIPIENT_COLUMNS} FROM form_recipients WHERE organization_id = $1 AND form_id = $2
            ORDER BY sent_at, lower(email), id""", org_id, form_id))


async def lock_recipients(conn: Conn, org_id: str, form_id: str) -> None:
    """Serialize the distributions of one form (across nodes) until commit, so that two at once cannot both
    find an address new."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 12))", f"{org_id}:{form_id}")


async def recipient_emails(conn: Conn, org_id: str, form_id: str, emails: Sequence[str]) -> set[str]:
    """Which of `emails` (lower case) already are recipients of the form."""
    rows = await conn.fetch(
        """SELECT lower(email) AS email FROM form_recipients
            WHERE organization_id = $1 AND form_id = $2 AND lower(email) = ANY($3::text[])""",
        org_id, form_id, list(emails))
    return {row["email"] for row in rows}


async def insert_recipient(conn: Conn, *, recipient_id: str, org_id: str, form_id: str, email: str,
                           name: str | None, token_hash: str, now: datetime) -> None:
    await conn.execute(
        """INSERT INTO form_recipients (id, organization_id, form_id, email, name, token_hash, sent_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""",
        recipient_id, org_id, form_id, email, name, token_hash, now)


async def unfinished_recipients(conn: Conn, org_id: str, form_id: str) -> list[asyncpg.Record]:
    """The recipients who have not completed the form, held for this transaction."""
    return list(await conn.fetch(
        f"""SELECT {RECIPIENT_COLUMNS} FROM form_recipients
             WHERE organization_id = $1 AND form_id = $2 AND status <> 'completed'
             ORDER BY sent_at, id FOR UPDATE""", org_id, form_id))


async def mark_reminded(conn: Conn, org_id: str, reminded: Sequence[tuple[str, str]], now: datetime) -> None:
    """One more reminder for each (recipient id, token hash of the link it was sent)."""
    await conn.executemany(
        """UPDATE form_recipients
              SET reminder_count = reminder_count + 1, last_reminded_at = $4, token_hash = $3
            WHERE organization_id = $1 AND id = $2""",
        [(org_id, recipient_id, token_hash, now) for recipient_id, token_hash in reminded])


async def lock_respondent(conn: Conn, org_id: str, email: str) -> None:
    """Serialize the code requests of one e-mail of an organization (across nodes) until commit."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 11))", f"{org_id}:{email}")


async def codes_since(conn: Conn, org_id: str, email: str, since: datetime) -> int:
    count: int = await conn.fetchval(
        "SELECT count(*) FROM form_otps WHERE organization_id = $1 AND email = $2 AND created_at > $3",
        org_id, email, since)
    return count


async def void_codes(conn: Conn, org_id: str, form_id: str, email: str, now: datetime) -> None:
    """Void every code of the form and e-mail still open."""
    await conn.execute(
        """UPDATE form_otps SET voided_at = $4
            WHERE organization_id = $1 AND form_id = $2 AND email = $3 AND used_at IS NULL AND voided_at IS NULL""",
        org_id, form_id, email, now)


async def insert_code(conn: Conn, *, code_id: str, org_id: str, form_id: str, email: str, code_hash: str,
                      expires_at: datetime, now: datetime) -> None:
    await conn.execute(
        """INSERT INTO form_otps (id, organization_id, form_id, email, code_hash, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""",
        code_id, org_id, form_id, email, code_hash, expires_at, now)


async def newest_code(conn: Conn, org_id: str, form_id: str, email: str) -> asyncpg.Record | None:
    """The code of the form and e-mail still open (a new code voids the older ones, so there is at most one),
    else the newest; held for this transaction."""
    return await conn.fetchrow(
        """SELECT id, code_hash, attempts, expires_at, used_at, voided_at FROM form_otps
            WHERE organization_id = $1 AND form_id = $2 AND email = $3
            ORDER BY (used_at IS NULL AND voided_at IS NULL) DESC, created_at DESC, id DESC LIMIT 1 FOR UPDATE""",
        org_id, form_id, email)


async def failed_attempt(conn: Conn, code_id: str, *, void_at: datetime | None) -> None:
    await conn.execute(
        "UPDATE form_otps SET attempts = attempts + 1, voided_at = COALESCE(voided_at, $2) WHERE id = $1",
        code_id, void_at)


async def use_code(conn: Conn, code_id: str, now: datetime) -> None:
    await conn.execute("UPDATE form_otps SET used_at = $2 WHERE id = $1", code_id, now)


async def insert_session(conn: Conn, *, token_hash: str, org_id: str, form_id: str, email: str,
                         expires_at: datetime, now: datetime) -> None:
    await conn.execute(
        """INSERT INTO form_sessions (token_hash, organization_id, form_id, email, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)""",
        token_hash, org_id, form_id, email, expires_at, now)
