"""The one mailer: every e-mail goes into the outbox table inside the transaction that caused it, and
leaves through `send` (called by the delivery worker, actors/delivery/mail_sender.py) to the SMTP server
named by `OBEYA_SMTP_URL`.

With `OBEYA_SMTP_URL` unset (the default run and the tests) an e-mail is stored and logged — recipient,
kind and subject only — and not sent.

Secrets an e-mail carries (an invitation token) are named by the caller: the stored `body` shows each one as
`REDACTED`, and the text to send is kept sealed (actors/kernel/sealing.py) until the sender opens it at send
time; the sealed text is wiped once the e-mail is sent or given up.

`OBEYA_SMTP_URL` is `smtp://[user:password@]host[:port]` (plain, upgraded with STARTTLS when the server
offers it; port 25 by default) or `smtps://…` (implicit TLS; port 465 by default). Query parameters:
`starttls=true` requires STARTTLS, `starttls=false` never tries it; `from=` sets the From address, by default
`Obeya <no-reply@<service host>>`. User and password are percent-decoded; the password is never logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib
import asyncpg
import structlog

from actors.kernel import sealing
from storage import mail

log = structlog.get_logger("obeya.mail")

SEND_TIMEOUT_SECONDS = 30.0
REDACTED = "[redacted]"


@dataclass(frozen=True)
class SmtpTarget:
    """Where mail goes: parsed once at start-up from `OBEYA_SMTP_URL`."""

    hostname: str
    port: int
    use_tls: bool
    start_tls: bool | None  # None: STARTTLS when the server offers it
    sender: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)


def smtp_target(url: str | None, service_host: str) -> SmtpTarget | None:
    """Parse `OBEYA_SMTP_URL`; None when unset. A malformed URL stops start-up, naming the fault only."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"OBEYA_SMTP_URL must start with smtp:// or smtps://, not {parts.scheme!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("OBEYA_SMTP_URL has an invalid port") from None
    if not parts.hostname:
        raise ValueError("OBEYA_SMTP_URL names no host")
    query = parse_qs(parts.query)
    starttls = query.get("starttls", [""])[-1].lower()
    if starttls not in ("", "true", "false"):
        raise ValueError("OBEYA_SMTP_URL starttls must be true or false")
    use_tls = parts.scheme == "smtps"
    return SmtpTarget(
        hostname=parts.hostname, port=port or (465 if use_tls else 25), use_tls=use_tls,
        start_tls=None if use_tls or not starttls else starttls == "true",
        sender=query.get("from", [f"Obeya <no-reply@{service_host}>"])[-1],
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None)


async def queue_mail(conn: asyncpg.Connection | asyncpg.Pool, *, org_id: str | None, kind: str, to: str,
                     subject: str, body: str, smtp_configured: bool = False, secrets: Sequence[str] = (),
                     secret_key: str | None = None) -> str:
    """Store an e-mail in the caller's transaction: `queued` for the sender when SMTP is configured
    (the sender wakes when that transaction commits), else `stored` and only logged. Each of `secrets`
    (never in the subject) is redacted from the stored body and kept only inside the copy sealed under
    `secret_key` (the node's; None: the database's key)."""
    status = "queued" if smtp_configured else "stored"
    shown = body
    for secret in secrets:
        shown = shown.replace(secret, REDACTED)
    sealed = await sealing.seal(conn, body, secret_key) if shown != body else None
    email_id = await mail.store(conn, org_id, kind, to, subject, shown, status, sealed)
    log.info(f"email_{status}", email_id=email_id, kind=kind, to=to, subject=subject)
    return email_id


async def send(target: SmtpTarget, *, to: str, subject: str, body: str) -> None:
    """Hand one e-mail to the SMTP server; raises aiosmtplib.SMTPException or OSError when it is refused."""
    message = EmailMessage()
    message["From"] = target.sender
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    await aiosmtplib.send(message, hostname=target.hostname, port=target.port, username=target.username,
                          password=target.password, use_tls=target.use_tls, start_tls=target.start_tls,
                          timeout=SEND_TIMEOUT_SECONDS)
