"""The one mailer: every e-mail goes into the outbox table inside the transaction that caused it.

With `OBEYA_SMTP_URL` unset (the default run and the tests) an e-mail is stored and logged — recipient,
kind and subject only, since bodies carry secrets such as invitation links — and not sent.
"""

from __future__ import annotations

import asyncpg
import structlog

from storage import mail

log = structlog.get_logger("obeya.mail")


async def queue_mail(conn: asyncpg.Connection | asyncpg.Pool, *, org_id: str | None, kind: str, to: str,
                     subject: str, body: str, smtp_configured: bool = False) -> str:
    email_id = await mail.store(conn, org_id, kind, to, subject, body, "queued" if smtp_configured else "stored")
    log.info("email_stored", email_id=email_id, kind=kind, to=to, subject=subject)
    return email_id
