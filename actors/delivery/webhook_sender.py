"""The webhook delivery worker (platform 6.1): turns committed events into signed HTTP POSTs.

Events reach the `webhook_deliveries` table two ways: at once, from the node's event bus (the worker
wakes and fans the batch out in one statement), and by a periodic sweep of the event log past a global
watermark, which catches events committed while no worker ran (a restart, another process). Due
deliveries are claimed with `FOR UPDATE SKIP LOCKED` and a lease, so with several nodes each delivery is
sent by one. Failures are retried after 1 min, 5 min, 30 min, 2 h and 12 h; when the fifth retry fails
the delivery is failed and the webhook is marked failed, and nothing more is sent to it until someone
redelivers or reactivates it. All schedule times come from `node.clock`.

The receiver's address is checked again when connecting (actors/delivery/addresses.py, in every
environment unless OBEYA_ALLOW_PRIVATE_TARGETS=1), so a name that resolved to a public address when the
webhook was saved cannot be rebound to a private one; a refused address is a failed attempt saying why.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import time
from collections.abc import Sequence
from datetime import timedelta

import aiohttp
import asyncpg
import msgspec
import structlog

from actors.delivery.addresses import outbound_connector
from actors.kernel.events import wire_payload
from actors.kernel.invalidation import WebhooksChanged
from actors.kernel.node import Node
from actors.kernel.wake import BusNotes, pause
from protocol.webhooks import EVENT_NAMES
from storage import webhooks as repo
from storage.events import StoredEvent

log = structlog.get_logger("obeya.webhooks")

RETRY_DELAYS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
                timedelta(hours=12))
# A claimed delivery is not due again for this long: longer than a send can take.
LEASE = timedelta(seconds=60)
# How often (clock seconds) the worker looks for due retries and sweeps the event log.
POLL_SECONDS = 1.0
SWEEP_SECONDS = 30.0
# How far behind the watermark a sweep looks again: an event is stamped when its transaction writes it,
# so a transaction may commit an event older than one already swept.
SWEEP_OVERLAP = timedelta(minutes=5)
MAX_IN_FLIGHT = 50
# Event ids the bus brought and the next step has not fanned out yet. Past this many the worker stops
# noting them and sweeps the event log at its next step instead (the sweep finds every committed event).
MAX_PENDING = 10_000
_SUBSCRIBABLE = frozenset(EVENT_NAMES)


def sign_hex(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def delivery_headers(event: StoredEvent, body: bytes, secret: str | None, timestamp: int) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "X-Svc-Event": event.name, "X-Svc-Delivery": event.id,
               "webhook-id": event.id, "webhook-timestamp": str(timestamp)}
    if secret is not None:
        headers["X-Svc-Signature"] = "sha256=" + sign_hex(secret, body)
        signed = f"{event.id}.{timestamp}.".encode() + body
        digest = hmac.new(secret.encode(), signed, hashlib.sha256).digest()
        headers["webhook-signature"] = "v1," + base64.b64encode(digest).decode("ascii")
    return headers


# The bus path only takes events of organizations with an active webhook (most have none: a board change
# then costs the sender nothing). The set (`node.webhook_orgs`, under this key) is `WEBHOOK_ORGS_SECONDS`
# fresh at worst; a webhook change on this node drops it at once, and the log sweep catches whatever a
# stale set let pass.
WEBHOOK_ORGS_KEY = "orgs"


def forget_webhook_orgs(node: Node) -> None:
    """A webhook was created, changed or deleted on this node: re-read who has webhooks."""
    node.invalidate(WebhooksChanged())


class WebhookWorker:
    def __init__(self, node: Node) -> None:
        self.node = node
        self._notes: BusNotes[str] = BusNotes(MAX_PENDING)
        self._wake = asyncio.Event()
        self._sending: set[asyncio.Task[None]] = set()
        self._session: aiohttp.ClientSession  # opened by run()

    def on_events(self, events: Sequence[StoredEvent]) -> None:
        """Bus subscriber: note the subscribable events and wake the worker (no I/O here)."""
        known, orgs = self.node.webhook_orgs.peek(WEBHOOK_ORGS_KEY)
        fresh = [event.id for event in events if event.name in _SUBSCRIBABLE
                 and (not known or orgs is None or event.organization_id in orgs)]
        if fresh:
            self._notes.add(fresh)
            self._wake.set()

    async def sweep(self) -> int:
        async with self.node.pool.acquire() as conn, conn.transaction():
            return await repo.sweep(conn, self.node.clock.now(), SWEEP_OVERLAP)

    async def step(self) -> None:
        """Fan out the events the bus brought, then start sending what is due."""
        self._wake.clear()
        await self.node.webhook_orgs.get(WEBHOOK_ORGS_KEY, lambda: repo.organizations_with_webhooks(self.node.pool))
        now = self.node.clock.now()
        if self._notes.items:
            event_ids = self._notes.take()
            await repo.fan_out(self.node.pool, event_ids, now)
        room = MAX_IN_FLIGHT - len(self._sending)
        if room <= 0:
            return
        for row in await repo.claim_due(self.node.pool, now, now + LEASE, room):
            task = asyncio.create_task(self._deliver(row))
            self._sending.add(task)
            task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is not None:  # read here, or asyncio reports it unread
            log.error("webhook_delivery_crashed", error=repr(task.exception()), exc_info=task.exception())
        self._wake.set()  # a slot is free, and a retry may have come due meanwhile

    async def _deliver(self, row: asyncpg.Record) -> None:
        event = StoredEvent(id=row["event_id"], organization_id=row["organization_id"], stream=row["stream"],
                            seq=row["seq"], name=row["name"], payload=row["payload"],
                            created_at=row["created_at"])
        body = msgspec.json.encode(wire_payload(event))
        headers = delivery_headers(event, body, row["secret"], int(self.node.clock.now().timestamp()))
        code: int | None = None
        error: str | None = None
        started = time.perf_counter()  # a measurement of the real send, not a schedule
        try:
            async with self._session.post(row["url"], data=body, headers=headers, allow_redirects=False) as reply:
                code = reply.status
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            error = repr(exc)[:500]
        duration_ms = round((time.perf_counter() - started) * 1000)
        now = self.node.clock.now()
        if code is not None and 200 <= code < 300:
            await repo.record_attempt(self.node.pool, row["id"], status="succeeded", response_code=code,
                                      duration_ms=duration_ms, error=None, next_attempt_at=None)
            return
        failures = row["attempts"] + 1
        async with self.node.pool.acquire() as conn, conn.transaction():
            if failures <= len(RETRY_DELAYS):
                await repo.record_attempt(conn, row["id"], status="retrying", response_code=code,
                                          duration_ms=duration_ms, error=error,
                                          next_attempt_at=now + RETRY_DELAYS[failures - 1])
            else:
                await repo.record_attempt(conn, row["id"], status="failed", response_code=code,
                                          duration_ms=duration_ms, error=error, next_attempt_at=None)
                await repo.mark_failed(conn, row["webhook_id"], now)
        log.info("webhook_delivery_failed", delivery=row["id"], attempt=failures, status=code, error=error)

    async def run(self) -> None:
        clock = self.node.clock
        connector = outbound_connector(self.node.settings.allow_private_targets)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.node.settings.http_timeout),
                                              connector=connector)
        self.node.bus.subscribe("webhooks", self.on_events, read=self.node.events.read)
        last_sweep: float | None = None
        try:
            while True:
                step_started = clock.monotonic()
                overflowed = self._notes.take_overflow()
                if overflowed or last_sweep is None or step_started - last_sweep >= SWEEP_SECONDS:
                    await self.sweep()
                    last_sweep = step_started
                await self.step()
                # Not idle while deliveries are in flight: each one wakes the worker when it ends.
                await pause(clock, self._wake, POLL_SECONDS, step_started, busy=lambda: bool(self._sending))
        finally:
            self.node.bus.unsubscribe("webhooks")
            for task in list(self._sending):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*self._sending, return_exceptions=True)
            await self._session.close()


async def deliver_webhooks_forever(node: Node) -> None:
    """A worker (node.workers): a failed step is logged by the supervisor, which starts the worker again
    (a new session, a sweep of the log first) after its backoff."""
    await WebhookWorker(node).run()


