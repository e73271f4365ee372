"""Last-used times of API keys, personal tokens and assistant (MCP) keys, and the last-seen times of display links,
kept without a database write per request.

Identity verification records each use in memory (`node.credentials.touch`); a flusher worker writes what it
collected in one statement every FLUSH_SECONDS and once more on shutdown. Readers show the later of the
stored and the pending time, so a list is current even before a flush.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import structlog

from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.ids import Prefix
from storage import credentials as repo
from storage import displays as display_repo
from storage import mcp_keys as mcp_key_repo

log = structlog.get_logger("obeya.last_used")

# Last-used is informational: 30 s keeps it to one statement per node per half-minute, and bounds what
# a crashed node loses to half a minute of "last used" precision.
FLUSH_SECONDS = 30.0
MCP_KEY_ID = f"{Prefix.MCP_KEY}_"  # how the id of an assistant (MCP) key begins
DISPLAY_ID = f"{Prefix.DISPLAY}_"  # how the id of a display link begins


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
        keys = {ident: moment for ident, moment in moments.items() if ident.startswith(MCP_KEY_ID)}
        displays = {ident: moment for ident, moment in moments.items() if ident.startswith(DISPLAY_ID)}
        others = {ident: moment for ident, moment in moments.items() if ident not in keys and ident not in displays}
        if others:
            await repo.record_last_used(node.pool, others)
        if keys:  # assistant keys and displays live in their own tables
            await mcp_key_repo.record_last_used(node.pool, keys)
        if displays:
            await display_repo.record_last_seen(node.pool, displays)
    except (Exception, asyncio.CancelledError):
        for credential_id, moment in moments.items():
            pending = node.credentials.last_used(credential_id)
            if pending is None or pending < moment:
                node.credentials.touch(credential_id, moment)
        raise
    return len(moments)


async def flush_forever(node: Node) -> None:
    """A worker (node.workers): flush every FLUSH_SECONDS, and once more when stopped. A failed flush keeps
    its times for the next one; the supervisor logs it and starts the flusher again."""
    try:
        while True:
            await rest(node.clock, FLUSH_SECONDS)
            await flush(node)
    finally:
        try:
            await flush(node)
        except Exception:
            log.exception("last_used_final_flush_failed")
