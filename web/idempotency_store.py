"""Safe retries (DESIGN.md "Safe retries"): a write that carries an `Idempotency-Key` runs once per
credential and key; its response is kept in PostgreSQL for 24 hours, so that a retry on any node, also
after a restart, gets the first answer instead of making a second change."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

import structlog

from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.errors import BadRequest, Conflict, FieldError

log = structlog.get_logger("obeya.idempotency")

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
KEY_LIFETIME = timedelta(hours=24)
# A request still marked in flight after this long died with its node; no request runs this long, so a
# retry may take the key over instead of getting 409 until the record expires.
ABANDONED_AFTER = timedelta(minutes=5)


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


async def begin(node: Node, scope: str, key: str, digest: str) -> StoredResponse | None:
    """Claim the key for this request (None: run it now), or the first request's response to replay.
    The same key with another request, or while the first is still running, is 409 CONFLICT."""
    now = node.clock.now()
    if await node.idempotency.claim(scope, key, digest, now, now - KEY_LIFETIME, now - ABANDONED_AFTER):
        return None
    row = await node.idempotency.find(scope, key)
    if row is not None and row.request_hash != digest:
        message = f"{HEADER} was already used with a different request"
        raise Conflict(message, details=[FieldError(HEADER, message)])
    if row is None or row.status is None:
        message = f"a request with this {HEADER} is still in progress"
        raise Conflict(message, details=[FieldError(HEADER, message)])
    if row.response is None:
        message = (f"the request with this {HEADER} already succeeded; its reply held a secret, which is shown "
                   "once and never stored: list the resources to find it, and rotate or revoke it if it was lost")
        raise Conflict(message, data={"secretWithheld": True},
                       details=[FieldError(HEADER, message)])
    return StoredResponse(row.status, row.response, row.content_type)


async def finish(node: Node, scope: str, key: str, digest: str, response: StoredResponse) -> None:
    await node.idempotency.complete(scope, key, digest, response.status, response.body, response.content_type)


async def finish_withheld(node: Node, scope: str, key: str, digest: str, status: int) -> None:
    """Mark the key used by a request whose reply held a secret: only its status is kept, never the body, so
    a retry makes no second change and is answered 409 (docs/decisions.md "Secrets and Idempotency-Key")."""
    await node.idempotency.complete(scope, key, digest, status, None, None)


async def release(node: Node, scope: str, key: str, digest: str) -> None:
    """Forget a claim whose request failed, so that a retry runs again."""
    await node.idempotency.release(scope, key, digest)


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
