"""Who a form's respondent is, from what they carry: a distribution tracking token (`t`) moves its
recipient forward (sent, opened, started, completed; never back), and a session token from
`forms.verifyOtp` names the e-mail it was given for. Both tokens are kept only as SHA-256."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

import asyncpg

from storage.connection import Conn

Stage = Literal["opened", "started", "completed"]
_ORDER = ("sent", "opened", "started", "completed")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def recipient_stage(conn: Conn, org_id: str, form_id: str, token: str, stage: Stage,
                          now: datetime) -> asyncpg.Record | None:
    """Mark the recipient of `token` on this form as having reached `stage` (and the stages before it, when
    skipped); its row (`id`, `email`, `name`, `status`), or None for a token of no recipient of the form."""
    return await conn.fetchrow(
        """UPDATE form_recipients
              SET status = CASE WHEN array_position($5::text[], $4) > array_position($5::text[], status)
                                THEN $4 ELSE status END,
                  opened_at = COALESCE(opened_at, $6),
                  started_at = CASE WHEN $4 IN ('started', 'completed') THEN COALESCE(started_at, $6)
                                    ELSE started_at END,
                  completed_at = CASE WHEN $4 = 'completed' THEN COALESCE(completed_at, $6) ELSE completed_at END
            WHERE organization_id = $1 AND form_id = $2 AND token_hash = $3
        RETURNING id, email, name, status""",
        org_id, form_id, token_hash(token), stage, list(_ORDER), now)


async def session_email(conn: Conn, org_id: str, form_id: str, token: str, now: datetime) -> str | None:
    """The e-mail a live `forms.verifyOtp` session token of this form stands for; None otherwise."""
    email: str | None = await conn.fetchval(
        """SELECT email FROM form_sessions
            WHERE token_hash = $1 AND organization_id = $2 AND form_id = $3 AND expires_at > $4""",
        token_hash(token), org_id, form_id, now)
    return email
