"""The event log: every committed change appends its events here, in the committing transaction, with a
per-stream sequence number that dispatchers and reconnecting clients page through."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from protocol.ids import Prefix, new_id
from storage.connection import Conn, Connection
from storage.turn_statement import TurnStatement


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


# An event to append: (organization id, stream, name, stored payload). A stream belongs to one organization.
Pending = tuple[str, str, str, Any]

# The parts of one statement for any number of streams: reserve each stream's seq range on its row, streams in
# sorted order (the rows stay locked until commit, so appenders never interleave, and taking them in one global
# order means two transactions never wait on each other's streams), and insert the events numbered from their
# ranges. `{counts}` and the like are the placeholders of the statement the parts go into.
_COUNTS = ("SELECT * FROM unnest({streams}::text[], {organizations}::text[], {counts}::bigint[])"
           " AS c(stream, organization_id, n)")
_RESERVED = """INSERT INTO event_streams (stream, organization_id, last_seq)
    SELECT stream, organization_id, n FROM counts ORDER BY stream COLLATE "C"
    ON CONFLICT (stream) DO UPDATE SET last_seq = event_streams.last_seq + EXCLUDED.last_seq
    RETURNING stream, last_seq"""
_APPENDED = """INSERT INTO events (id, organization_id, stream, seq, name, payload, node_id, epoch)
    SELECT e.id, c.organization_id, e.stream, r.last_seq - c.n + e.k, e.name, e.payload, {node}, {epoch}
      FROM unnest({ids}::text[], {event_streams}::text[], {names}::text[], {payloads}::jsonb[], {numbers}::bigint[])
           AS e(id, stream, name, payload, k)
      JOIN counts c USING (stream) JOIN reserved r USING (stream)
    RETURNING id, organization_id, stream, seq, name, payload, created_at"""


def add_events(statement: TurnStatement, events: Sequence[Pending],
               writer: Writer | None = None) -> tuple[str, list[str]]:
    """`events` (at least one) appended to their streams as parts of `statement`, each stream's with consecutive
    sequence numbers in the order given, naming the activation that wrote them when an actor did: the name of the
    part whose rows are the stored events, and their ids in the order given (for `in_order`).

    The statement must commit the change the events tell of: the upsert on `event_streams` locks each stream's row
    until commit, so concurrent appenders to one stream get disjoint, gap-free ranges.
    """
    counts: dict[str, int] = {}
    organization_of: dict[str, str] = {}
    ids: list[str] = []
    numbers: list[int] = []
    for organization_id, stream, _, _ in events:
        counts[stream] = counts.get(stream, 0) + 1
        organization_of.setdefault(stream, organization_id)
        ids.append(new_id(Prefix.EVENT))
        numbers.append(counts[stream])
    param = statement.param
    statement.add(_COUNTS.format(streams=param(list(counts)),
                                 organizations=param([organization_of[stream] for stream in counts]),
                                 counts=param(list(counts.values()))), "counts")
    statement.add(_RESERVED, "reserved")
    appended = statement.add(_APPENDED.format(
        ids=param(ids), event_streams=param([stream for _, stream, _, _ in events]),
        names=param([name for _, _, name, _ in events]), payloads=param([payload for _, _, _, payload in events]),
        numbers=param(numbers), node=param(writer.node_id if writer else None),
        epoch=param(writer.epoch if writer else None)), "appended")
    return appended, ids


def in_order(rows: Sequence[asyncpg.Record], ids: Sequence[str]) -> list[StoredEvent]:
    """The stored events (the rows of `add_events`' part) in the order they were given."""
    by_id = {row["id"]: _from_row(row) for row in rows}
    return [by_id[event_id] for event_id in ids]


async def append_all(conn: Connection, events: Sequence[Pending], writer: Writer | None = None) -> list[StoredEvent]:
    """Append `events` to their streams (as `add_events`, in a statement of their own); the stored events come
    back in the order given. Call inside the transaction that commits the change."""
    if not events:
        return []
    statement = TurnStatement()
    appended, ids = add_events(statement, events, writer)
    return in_order(await conn.fetch(statement.text(f"SELECT * FROM {appended}"), *statement.args), ids)


async def append(conn: Connection, organization_id: str, stream: str,
                 events: Sequence[tuple[str, Any]], writer: Writer | None = None) -> list[StoredEvent]:
    """Append `(name, payload)` events to `stream` (`append_all` for one stream)."""
    return await append_all(conn, [(organization_id, stream, name, payload) for name, payload in events], writer)


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
