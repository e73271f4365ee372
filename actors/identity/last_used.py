"""Last-used times of API keys and personal tokens, kept without a database write per request.

Identity verification records each use in memory (`node.credentials.touch`); a flusher task writes what it
collected in one statement every FLUSH_SECONDS and once more on shutdown. Readers show the later of the
stored and the pending time, so a list is current even before a flush.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import Any

import structlog

from actors.kernel.node import Node
from storage import credentials as repo

log = structlog.get_logger("obeya.last_used")

# Last-used is informational: 30 s keeps it to one statement per node per half-minute, and bounds what
# a crashed node loses to half a minute of "last used" precision.
FLUSH_SECONDS = 30.0


def last_used_at(node: Node, row: Mapping[str, Any]) -> datetime | None:
    """The later of the stored last-used time and the one this node has not flushed yet."""
    moments = [m for m in (row["last_used_at"], node.credentials.last_used(row["id"])) if m is not None]
    return max(moments, default=None)


async def flush(node: Node) -> int:
    """Write the collected last-used times; returns how many credentials were written. On failure the
    times go back to memory (unless a newer use arrived meanwhile) for the next flush."""
    moments = node.credentials.take_last_used()
    if not moments:
        return 0
    try:
        await repo.record_last_used(node.pool, moments)
    except (Exception, asyncio.CancelledError):
        for credential_id, moment in moments.items():
            pending = node.credentials.last_used(credential_id)
            if pending is None or pending < moment:
                node.credentials.touch(credential_id, moment)
        raise
    return len(moments)


async def _flush_forever(node: Node) -> None:
    while True:
        await node.clock.sleep(FLUSH_SECONDS)
        try:
            await flush(node)
        except Exception:
            log.exception("last_used_flush_failed")


@contextlib.asynccontextmanager
async def flushing(node: Node) -> AsyncIterator[None]:
    """The flusher's lifetime: runs while the app runs, flushes once more when it stops."""
    task = asyncio.create_task(_flush_forever(node), name="last-used-flusher")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        try:
            await flush(node)
        except Exception:
            log.exception("last_used_final_flush_failed")
