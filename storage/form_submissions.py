"""The statements of the submission pipeline and the submissions procedures (the shared reads are in
storage/forms.py). Every query is scoped by organization id, except the sweeper's search for unfinished
submissions, which runs for all organizations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn
from storage.forms import SUBMISSION_COLUMNS


async def lock(conn: Conn, *parts: str) -> None:
    """A lock held until the transaction ends, on a name made of `parts` (a form and its respondent, or a
    form and an Idempotency-Key): concurrent submissions of one respondent are decided one after the other."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "form-submit:" + "\x1f".join(parts))


async def by_key(conn: Conn, org_id: str, form_id: str, key: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {SUBMISSION_COLUMNS}, request_hash FROM form_submissions
             WHERE organization_id = $1 AND form_id = $2 AND idempotency_key = $3""", org_id, form_id, key)


async def respondent_submitted(conn: Conn, org_id: str, form_id: str, respondent: str) -> bool:
    return await conn.fetchval(
        "SELECT true FROM form_submissions WHERE organization_id = $1 AND form_id = $2 AND respondent = $3 LIMIT 1",
        org_id, form_id, respondent) is not None


async def insert(conn: Conn, *, submission_id: str, org_id: str, form_id: str, board_id: str, data: Any,
                 item_id: str, submitted_by: str | None, respondent: str | None, respondent_email: str | None,
                 idempotency_key: str | None, request_hash: str | None, now: datetime) -> asyncpg.Record:
    """The submission and its version 1."""
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO form_submissions (id, organization_id, form_id, board_id, data, version, item_id,
                                          submitted_by, respondent, respondent_email, idempotency_key,
                                          request_hash, submitted_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING {SUBMISSION_COLUMNS}""",
        submission_id, org_id, form_id, board_id, data, item_id, submitted_by, respondent, respondent_email,
        idempotency_key, request_hash, now)
    await conn.execute(
        """INSERT INTO form_submission_versions (submission_id, version, organization_id, data, changed_by,
                                                 reason, created_at)
            VALUES ($1, 1, $2, $3, $4, 'submitted', $5)""", submission_id, org_id, data, submitted_by, now)
    return row


async def complete(conn: Conn, org_id: str, submission_id: str, now: datetime) -> asyncpg.Record | None:
    """Mark the submission finished; None when it already was (or is gone)."""
    return await conn.fetchrow(
        f"""UPDATE form_submissions SET completed_at = $3
             WHERE organization_id = $1 AND id = $2 AND completed_at IS NULL RETURNING {SUBMISSION_COLUMNS}""",
        org_id, submission_id, now)


async def acknowledge(conn: Conn, org_id: str, submission_id: str, now: datetime) -> asyncpg.Record | None:
    """Mark the submission as told received, so it is never removed (`delete_unacknowledged`); the submission,
    or None when it is gone (its first request removed it)."""
    return await conn.fetchrow(
        f"""UPDATE form_submissions SET acknowledged_at = coalesce(acknowledged_at, $3)
             WHERE organization_id = $1 AND id = $2 RETURNING {SUBMISSION_COLUMNS}""", org_id, submission_id, now)


async def delete_unacknowledged(conn: Conn, org_id: str, submission_id: str) -> bool:
    """Remove a submission its first request refuses, unless a retry or the sweeper acknowledged it meanwhile
    (the row lock orders the two); whether it was removed."""
    return await conn.fetchval(
        """DELETE FROM form_submissions WHERE organization_id = $1 AND id = $2 AND acknowledged_at IS NULL
            RETURNING true""", org_id, submission_id) is not None


async def unfinished(conn: Conn, before: datetime, after: tuple[datetime, str] | None,
                     limit: int) -> list[asyncpg.Record]:
    """Up to `limit` submissions of every organization stored before `before` whose later steps never finished,
    oldest first, after the (submitted_at, id) of `after`."""
    moment, last_id = after if after is not None else (None, None)
    return list(await conn.fetch(
        f"""SELECT {SUBMISSION_COLUMNS} FROM form_submissions
             WHERE completed_at IS NULL AND submitted_at < $1
               AND ($2::timestamptz IS NULL OR (submitted_at, id) > ($2, $3))
             ORDER BY submitted_at, id LIMIT $4""", before, moment, last_id, limit))


async def page(conn: Conn, org_id: str, form_id: str, *, status: str | None, after: tuple[datetime, str] | None,
               limit: int) -> list[asyncpg.Record]:
    """Up to `limit` submissions of the form, newest first, after the (submitted_at, id) of `after`."""
    moment, last_id = after if after is not None else (None, None)
    return list(await conn.fetch(
        f"""SELECT {SUBMISSION_COLUMNS} FROM form_submissions
             WHERE organization_id = $1 AND form_id = $2 AND ($3::text IS NULL OR status = $3)
               AND ($4::timestamptz IS NULL OR (submitted_at, id) < ($4, $5))
             ORDER BY submitted_at DESC, id DESC LIMIT $6""", org_id, form_id, status, moment, last_id, limit))


async def versions(conn: Conn, org_id: str, submission_id: str) -> list[asyncpg.Record]:
    return list(await conn.fetch(
        """SELECT version, data, changed_by, changed_by_name, changed_by_email, reason, comment, created_at
             FROM form_submission_versions WHERE organization_id = $1 AND submission_id = $2 ORDER BY version""",
        org_id, submission_id))


async def set_status(conn: Conn, org_id: str, submission_id: str, status: str,
                     now: datetime) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""UPDATE form_submissions SET status = $3, updated_at = $4 WHERE organization_id = $1 AND id = $2
            RETURNING {SUBMISSION_COLUMNS}""", org_id, submission_id, status, now)


async def usable_files(conn: Conn, org_id: str, form_id: str, file_ids: list[str]) -> set[str]:
    """Which of `file_ids` a respondent of this form may name: files of the organization uploaded for this
    form, or uploaded by a member."""
    rows = await conn.fetch(
        """SELECT id FROM files WHERE organization_id = $1 AND id = ANY($2::text[])
              AND (form_id = $3 OR uploaded_by IS NOT NULL)""", org_id, file_ids, form_id)
    return {row["id"] for row in rows}


async def unmark_recipient(conn: Conn, org_id: str, form_id: str, token_digest: str, submitted_at: datetime) -> None:
    """Take back the distribution marks a removed submission made: its step 1 stamped the recipient completed
    (and opened and started, when skipped) at the moment it was stored, `submitted_at`; marks made earlier
    stay, and so does a completion of an earlier submission."""
    await conn.execute(
        """UPDATE form_recipients
              SET completed_at = NULL,
                  started_at = CASE WHEN started_at = $4 THEN NULL ELSE started_at END,
                  opened_at = CASE WHEN opened_at = $4 THEN NULL ELSE opened_at END,
                  status = CASE WHEN started_at < $4 THEN 'started' WHEN opened_at < $4 THEN 'opened'
                                ELSE 'sent' END
            WHERE organization_id = $1 AND form_id = $2 AND token_hash = $3 AND completed_at = $4""",
        org_id, form_id, token_digest, submitted_at)
