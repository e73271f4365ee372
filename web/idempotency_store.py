"""Safe retries (docs/architecture.md, "The write path"): a write that carries an `Idempotency-Key` runs once per
credential and key; its response is kept in PostgreSQL for 24 hours, so that a retry on any node, also
after a restart, gets the first answer instead of making a second change."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import structlog

from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from actors.runtime.db_errors import database_error
from protocol.errors import BadRequest, Conflict, FieldError, ServiceUnavailable

log = structlog.get_logger("obeya.idempotency")

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
KEY_LIFETIME = timedelta(hours=24)
# A request still marked in flight after this long died with its node; no request runs this long, so a
# retry may take the key over instead of getting 409 until the record expires. A claim names its node, so a
# retry takes it over sooner, as soon as that node is known to be gone (`_held_by_the_dead`); this is for the
# claims whose node cannot be asked (made before they named it).
ABANDONED_AFTER = timedelta(minutes=5)
# How often a key's release or completion is tried on fresh connections when the database drops them: a
# request often fails because its connection was dropped, and its key must not stay claimed for that.
SETTLE_ATTEMPTS = 3


def _dropped(failure: BaseException) -> bool:
    """A database failure that asking again at once, on another connection, may cure: a connection lost or
    broken, not a full pool or a statement that ran out of time (TimeoutError), which asking again would only
    make wait longer."""
    return isinstance(database_error(failure), ServiceUnavailable) and not isinstance(failure, TimeoutError)


@dataclass(frozen=True)
class StoredResponse:
    status: int
    body: bytes
    content_type: str | None


def check_key(key: str) -> None:
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        message = f"{HEADER} must be 1-{MAX_KEY_LENGTH} characters"
        raise BadRequest(message, details=[FieldError(HEADER, message)])


def request_hash(method: str, organization_id: str, path_qs: str, body: bytes) -> str:
    """What makes two requests "the same": method, organization, path with query, and the body bytes."""
    digest = hashlib.sha256()
    for part in (method, organization_id, path_qs):
        digest.update(part.encode("utf-8") + b"\n")
    digest.update(body)
    return digest.hexdigest()


def call_digest(scope: str, key: str, request_hash: str) -> str:
    """What names a request made under a key to the actors it writes to: no credential or key in clear."""
    return hashlib.sha256(f"{scope}\n{key}\n{request_hash}".encode()).hexdigest()


async def begin(node: Node, scope: str, key: str, digest: str) -> StoredResponse | None:
    """Claim the key for this request (None: run it now), or the first request's response to replay.
    The same key with another request, or while the first is still running, is 409 CONFLICT."""
    now = node.clock.now()
    try:
        won = await node.idempotency.claim(scope, key, digest, node.settings.node_id, now, now - KEY_LIFETIME,
                                           now - ABANDONED_AFTER)
    except Exception as failure:
        # The connection may have dropped after the claim committed: release it, or every retry would be
        # 409 "still in progress" until the claim counts as abandoned.
        if _dropped(failure):
            await release(node, scope, key, digest)
        raise
    if won:
        return None
    row = await node.idempotency.find(scope, key)
    if row is not None and row.request_hash != digest:
        message = f"{HEADER} was already used with a different request"
        raise Conflict(message, details=[FieldError(HEADER, message)])
    if row is not None and row.status is None and await _held_by_the_dead(node, row.holder) \
            and await node.idempotency.take_over(scope, key, digest, row.holder or "", node.settings.node_id):
        # Run again: an actor the first request wrote to answers from the reply it kept under this key
        # (Caller.idempotency), so what was applied is not applied twice, and what was not runs now.
        log.info("idempotency_key_taken_over", gone=row.holder)
        return None
    if row is None or row.status is None:
        message = f"a request with this {HEADER} is still in progress"
        raise Conflict(message, details=[FieldError(HEADER, message)])
    if row.response is None:
        message = (f"the request with this {HEADER} already succeeded; its reply held a secret, which is shown "
                   "once and never stored: list the resources to find it, and rotate or revoke it if it was lost")
        raise Conflict(message, data={"secretWithheld": True},
                       details=[FieldError(HEADER, message)])
    return StoredResponse(row.status, row.response, row.content_type)


async def _held_by_the_dead(node: Node, holder: str | None) -> bool:
    """Whether the node named on a claim in flight is gone, so that its request will never finish: another
    process when this node runs alone (node ids differ per process), a node no longer listening in a cluster."""
    if holder is None or holder == node.settings.node_id:
        return False
    if node.node_alive is None:
        return True
    return not await node.node_alive(holder)


async def _settle(action: str, change: Callable[[], Awaitable[None]]) -> None:
    """Run `change` (a statement that may run twice: it only settles a claim still in flight), again on
    another connection of the pool when the database was unavailable, at most SETTLE_ATTEMPTS times."""
    for attempt in range(1, SETTLE_ATTEMPTS + 1):
        try:
            await change()
            return
        except Exception as failure:
            if attempt == SETTLE_ATTEMPTS or not _dropped(failure):
                raise
            log.warning("idempotency_key_retried", action=action, attempt=attempt, error=type(failure).__name__)


async def finish(node: Node, scope: str, key: str, digest: str, response: StoredResponse) -> None:
    await _settle("finish", lambda: node.idempotency.complete(scope, key, digest, response.status, response.body,
                                                              response.content_type))


async def finish_withheld(node: Node, scope: str, key: str, digest: str, status: int) -> None:
    """Mark the key used by a request whose reply held a secret: only its status is kept, never the body, so
    a retry makes no second change and is answered 409 (docs/decisions.md "Idempotency keys and secrets")."""
    await _settle("finish", lambda: node.idempotency.complete(scope, key, digest, status, None, None))


async def release(node: Node, scope: str, key: str, digest: str) -> None:
    """Forget a claim whose request failed, so that a retry runs again; the request's own connection, if it
    broke, was discarded already (storage/pool.py), so this runs on a fresh one."""
    await _settle("release", lambda: node.idempotency.release(scope, key, digest, node.settings.node_id))


async def purge(node: Node) -> int:
    """Delete the records older than their 24 hours; returns how many."""
    return await node.idempotency.purge(node.clock.now() - KEY_LIFETIME)


async def purge_periodically(node: Node, interval: float) -> None:
    """A worker (node.workers): purge, then wait `interval` seconds (Settings.idempotency_purge_interval); a
    failed purge is logged by the supervisor and tried again after its backoff."""
    while True:
        purged = await purge(node) if await leads(node.leadership, "idempotency-purge") else 0
        if purged:
            log.info("idempotency_keys_purged", count=purged)
        await rest(node.clock, interval)
