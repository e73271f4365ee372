"""The idempotency records as the edge uses them (web/idempotency_store.py): the node's pool bound to the
queries of `storage/idempotency.py`, so that `web/` reaches the database only through the kernel."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from storage import actor_replies
from storage import idempotency as repo


@dataclass(frozen=True)
class StoredRecord:
    request_hash: str
    status: int | None  # None while the first request runs
    response: bytes | None
    content_type: str | None
    holder: str | None  # the node running the first request (None on claims older than migration 0051)


class IdempotencyRecords:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def claim(self, scope: str, key: str, request_hash: str, holder: str, now: datetime,
                    expired_before: datetime, abandoned_before: datetime) -> bool:
        """True if this request won the key (see `storage.idempotency.claim`)."""
        return await repo.claim(self._pool, scope, key, request_hash, holder, now, expired_before, abandoned_before)

    async def take_over(self, scope: str, key: str, request_hash: str, gone: str, holder: str) -> bool:
        """True if `holder` now holds the claim the node `gone` left in flight."""
        return await repo.take_over(self._pool, scope, key, request_hash, gone, holder)

    async def find(self, scope: str, key: str) -> StoredRecord | None:
        row = await repo.find(self._pool, scope, key)
        if row is None:
            return None
        response = None if row["response"] is None else bytes(row["response"])
        return StoredRecord(row["request_hash"], row["status"], response, row["content_type"], row["holder"])

    async def complete(self, scope: str, key: str, request_hash: str, status: int, response: bytes | None,
                       content_type: str | None) -> None:
        """Store the first request's response; `response` None keeps only that it succeeded (its reply held a
        secret, which is never stored)."""
        await repo.complete(self._pool, scope, key, request_hash, status, response, content_type)

    async def release(self, scope: str, key: str, request_hash: str, holder: str) -> None:
        await repo.release(self._pool, scope, key, request_hash, holder)

    async def purge(self, created_before: datetime) -> int:
        """Drop the keys, and the replies actors kept for calls made under them, created before the time."""
        await actor_replies.purge(self._pool, created_before)
        return await repo.purge(self._pool, created_before)
