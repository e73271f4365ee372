"""Replies actors gave to calls made under an Idempotency-Key (migration 0038): kept in the turn that applied
the call, read when the same call comes again, purged with the keys."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from storage.connection import Conn
from storage.turn_statement import TurnStatement


async def stored(conn: Conn, actor_key: str, call_keys: Sequence[str]) -> dict[str, bytes]:
    """call key -> encoded reply, for those of `call_keys` this actor already answered."""
    rows = await conn.fetch("SELECT call_key, reply FROM actor_replies WHERE actor_key = $1 AND call_key = ANY($2)",
                            actor_key, list(call_keys))
    return {row["call_key"]: bytes(row["reply"]) for row in rows}


_KEEP = """INSERT INTO actor_replies (actor_key, call_key, reply)
           SELECT {actor}, k, r FROM unnest({keys}::text[], {replies}::bytea[]) AS t(k, r)
           ON CONFLICT DO NOTHING"""


def add_kept(statement: TurnStatement, actor_key: str, replies: Sequence[tuple[str, bytes]]) -> None:
    """`(call key, encoded reply)` pairs as a part of the turn's statement."""
    statement.add(_KEEP.format(actor=statement.param(actor_key), keys=statement.param([key for key, _ in replies]),
                               replies=statement.param([reply for _, reply in replies])))


async def keep(conn: Conn, actor_key: str, replies: Sequence[tuple[str, bytes]]) -> None:
    """Store `(call key, encoded reply)` pairs inside the turn's transaction."""
    statement = TurnStatement()
    add_kept(statement, actor_key, replies)
    await statement.execute(conn)


async def purge(conn: Conn, created_before: datetime) -> int:
    result = await conn.execute("DELETE FROM actor_replies WHERE created_at < $1", created_before)
    return int(result.split()[-1])
