"""The mail sender: while the server runs with SMTP configured, every queued e-mail is sent.

It wakes at start (mail queued before a restart), when any node's queuing transaction commits (Postgres
NOTIFY on `storage.mail.WAKE_CHANNEL`), when a retry comes due, and every POLL_SECONDS regardless (a lost
notification, a dropped listening connection). Nodes claim e-mails under a lease with SKIP LOCKED, so no two
send one at once; a node that dies mid-send leaves its claim to run out and the e-mail is tried again
(delivery is at least once). A failed attempt is retried after 1, 5 and 30 minutes, then the e-mail is failed.
An e-mail carrying a secret is sent from its sealed text, opened here just before sending.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import aiosmtplib
import asyncpg
import structlog

from actors.kernel import mailer, sealing
from actors.kernel.node import Node
from actors.kernel.wake import pause, woken_by_notify
from actors.runtime.clock import Clock
from storage import mail

log = structlog.get_logger("obeya.mail")

RETRY_BACKOFF_SECONDS = (60, 300, 1800)
MAX_ATTEMPTS = len(RETRY_BACKOFF_SECONDS) + 1
LEASE_SECONDS = 300  # longer than one send may take (mailer.SEND_TIMEOUT_SECONDS per step)
POLL_SECONDS = 30.0
BATCH = 20


async def deliver_due(node: Node, target: mailer.SmtpTarget) -> int:
    """Send every e-mail due now, a batch at a time; return how many were sent."""
    sent = 0
    while True:
        now = node.clock.now()
        claimed = await mail.claim_due(node.pool, now, now + timedelta(seconds=LEASE_SECONDS), BATCH)
        for row in claimed:
            sent += await _attempt(node, target, row)
        if len(claimed) < BATCH:
            return sent


async def _attempt(node: Node, target: mailer.SmtpTarget, row: asyncpg.Record) -> int:
    try:
        body = (row["body"] if row["sealed_body"] is None
                else await sealing.open_sealed(node.pool, row["sealed_body"], node.settings.secret_key))
    except sealing.Unopenable as error:
        # Another attempt cannot open it either: given up at once, naming why (never the secret).
        await mail.mark_failed_attempt(node.pool, row["id"], str(error), None)
        log.warning("email_send_failed", email_id=row["id"], kind=row["kind"], to=row["recipient"], error=str(error))
        return 0
    try:
        await mailer.send(target, to=row["recipient"], subject=row["subject"], body=body)
    # ValueError: a message that cannot be built (a header the e-mail library refuses) fails like a refusal
    # instead of stopping the sender.
    except (aiosmtplib.SMTPException, OSError, TimeoutError, ValueError) as error:
        attempts = row["attempts"] + 1
        retry_at = (node.clock.now() + timedelta(seconds=RETRY_BACKOFF_SECONDS[attempts - 1])
                    if attempts < MAX_ATTEMPTS else None)
        await mail.mark_failed_attempt(node.pool, row["id"], str(error) or type(error).__name__, retry_at)
        log.warning("email_send_failed", email_id=row["id"], kind=row["kind"], to=row["recipient"],
                    attempts=attempts, retry_at=retry_at and retry_at.isoformat(), error=str(error))
        return 0
    await mail.mark_sent(node.pool, row["id"], node.clock.now())
    log.info("email_sent", email_id=row["id"], kind=row["kind"], to=row["recipient"], subject=row["subject"])
    return 1


def _seconds_until(clock: Clock, due: datetime | None) -> float:
    return POLL_SECONDS if due is None else min(POLL_SECONDS, (due - clock.now()).total_seconds())


async def deliver_forever(node: Node) -> None:
    """A worker (node.workers) while the server serves with `OBEYA_SMTP_URL` set (server/app.py starts it
    only then). A failed pass is logged by the supervisor, which starts the sender again after its backoff."""
    target = node.settings.smtp
    assert target is not None
    log.info("email_sending_on", host=target.hostname, port=target.port, tls=target.use_tls, sender=target.sender)
    wake = asyncio.Event()
    async with woken_by_notify(node.pool, mail.WAKE_CHANNEL, wake.set):
        while True:
            step_started = node.clock.monotonic()
            wake.clear()
            await deliver_due(node, target)
            due = await mail.next_due(node.pool, node.clock.now())
            await pause(node.clock, wake, _seconds_until(node.clock, due), step_started)
