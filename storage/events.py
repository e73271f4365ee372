"""The event log: every committed change appends its events here, in the committing transaction, with a
per-stream sequence number that dispatchers and reconnecting clients page through."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from protocol.ids import new_id
from storage.connection import Conn, Connection


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    stream: str
    seq: int
    name: str
    payload: Any
    created_at: datetime


def _from_row(row: asyncpg.Record) -> StoredEvent:
    return StoredEvent(id=row["id"], organization_id=row["organization_id"], stream=row["stream"],
                       seq=row["seq"], name=row["name"], payload=row["payload"],
                       created_at=row["created_at"])


class Writer(msgspec.Struct, frozen=True):
    """The actor activation that commits events: its node and its epoch (storage/epochs.py)."""

    node_id: str
    epoch: int


async def append(conn: Connection, organization_id: str, stream: str,
                 events: Sequence[tuple[str, Any]], writer: Writer | None = None) -> list[StoredEvent]:
    """Append `(name, payload)` events to `stream` with consecutive sequence numbers, naming the activation
    that wrote them when an actor did.

    Call inside the transaction that commits the change: the upsert on `event_streams` locks the
    stream's row until commit, so concurrent appenders to one stream get disjoint, gap-free ranges.
    """
    if not events:
        return []
    # One statement (one round trip per turn): reserve the seq range on the stream's row, insert the
    # events numbered from it. The row stays locked until commit, so appenders never interleave.
    rows = await conn.fetch(
        """WITH reserved AS (
               INSERT INTO event_streams (stream, organization_id, last_seq) VALUES ($3, $2, $7)
               ON CONFLICT (stream) DO UPDATE SET last_seq = event_streams.last_seq + EXCLUDED.last_seq
               RETURNING last_seq)
           INSERT INTO events (id, organization_id, stream, seq, name, payload, node_id, epoch)
           SELECT e.id, $2, $3, reserved.last_seq - $7 + e.n, e.name, e.payload, $8, $9
             FROM reserved, unnest($1::text[], $4::text[], $5::jsonb[], $6::bigint[]) AS e(id, name, payload, n)
           RETURNING id, organization_id, stream, seq, name, payload, created_at""",
        [new_id("evt") for _ in events], organization_id, stream, [name for name, _ in events],
        [payload for _, payload in events], list(range(1, len(events) + 1)), len(events),
        writer.node_id if writer else None, writer.epoch if writer else None)
    return sorted((_from_row(row) for row in rows), key=lambda event: event.seq)


async def read(conn: Conn, organization_id: str, stream: str, since: int = 0,
               limit: int = 500) -> list[StoredEvent]:
    """Events of `stream` with seq greater than `since`, oldest first, at most `limit` of them."""
    rows = await conn.fetch(
        """SELECT id, organization_id, stream, seq, name, payload, created_at FROM events
           WHERE organization_id = $1 AND stream = $2 AND seq > $3 ORDER BY seq LIMIT $4""",
        organization_id, stream, since, limit)
    return [_from_row(row) for row in rows]


async def last_seq(conn: Conn, organization_id: str, stream: str) -> int:
    """The newest sequence number of `stream` (0 when nothing was appended yet)."""
    value: int | None = await conn.fetchval(
        "SELECT last_seq FROM event_streams WHERE organization_id = $1 AND stream = $2",
        organization_id, stream)
    return value or 0
