"""Activation epochs (fencing): each activation of an actor takes a new epoch, and every commit of that
activation checks it, so an activation that was superseded can never overwrite newer state."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator

import asyncpg

from protocol.errors import ServiceUnavailable
from storage.connection import Connection
from storage.turn_statement import TurnStatement

# What `actor_fence` (migration 0039) raises when the epoch is no longer the current one.
STALE_SQLSTATE = "OB001"
# Actor keys that may be written into the statement as a literal: `kind:id` of generated ids. Another key (none
# today) is checked with one more round trip, as a parameter.
_LITERAL_KEY = re.compile(r"[A-Za-z0-9_:.-]+")


class StaleEpoch(ServiceUnavailable):
    """A newer activation of this actor exists (here or on another node); this one must deactivate.

    A 503: the caller's message was not applied and is safe to retry, which reaches the newer owner.
    """


async def take_epoch(conn: Connection, actor_key: str) -> int:
    """Start a new epoch for `actor_key` and return it (1 for the first activation ever)."""
    epoch: int = await conn.fetchval(
        """INSERT INTO actor_epochs (actor_key, epoch) VALUES ($1, 1)
           ON CONFLICT (actor_key) DO UPDATE SET epoch = actor_epochs.epoch + 1
           RETURNING epoch""",
        actor_key)
    return epoch


@contextlib.asynccontextmanager
async def fenced(conn: asyncpg.Connection, actor_key: str, epoch: int) -> AsyncIterator[None]:
    """A transaction that commits only while `epoch` is still the current one: StaleEpoch otherwise, before the
    body runs. Rolled back when the body raises.

    The check is the transaction's first statement, sent with its BEGIN in one round trip (the simple protocol
    takes no parameters: the key and epoch go in as literals). It locks the epoch row until the transaction
    ends, so a newer activation taking its epoch waits for this commit and then loads what it wrote.
    """
    if _LITERAL_KEY.fullmatch(actor_key):
        opening = [f"BEGIN; SELECT actor_fence('{actor_key}', {int(epoch)})"]
    else:
        opening = ["BEGIN", "SELECT actor_fence($1, $2)"]
    try:
        await conn.execute(opening[0])
        if len(opening) > 1:
            await conn.execute(opening[1], actor_key, epoch)
    except BaseException as exc:
        await _rollback(conn)
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == STALE_SQLSTATE:
            # What the caller sees names no actor and no epoch (the runtime logs them: actor.stale_epoch).
            raise StaleEpoch("moved to another node; retry") from None
        raise
    try:
        yield
    except BaseException:
        await _rollback(conn)
        raise
    await conn.execute("COMMIT")


async def commit_fenced(conn: Connection, statement: TurnStatement, actor_key: str, epoch: int,
                        returning: str | None = None) -> list[asyncpg.Record]:
    """`statement` with the epoch check as one more of its parts, sent on its own: one implicit transaction and one
    round trip. StaleEpoch, and nothing written, unless `epoch` is still the current one; the check locks the epoch
    row until the statement commits, as in `fenced`. The rows of the part named `returning` come back.

    The check must run whatever the other parts do, so the final query reads from it (a part that only reads runs
    only as far as the final query reads it): it is the outer side of a join with `returning`'s rows.
    """
    fence = statement.add(f"SELECT actor_fence({statement.param(actor_key)}, {statement.param(epoch)})", "fence")
    final = f"SELECT r.* FROM {fence} LEFT JOIN {returning} r ON true" if returning else f"SELECT FROM {fence}"
    try:
        rows = await conn.fetch(statement.text(final), *statement.args)
    except asyncpg.PostgresError as exc:
        if exc.sqlstate == STALE_SQLSTATE:
            raise StaleEpoch("moved to another node; retry") from None
        raise
    return rows if returning else []


async def _rollback(conn: asyncpg.Connection) -> None:
    # A broken connection cannot roll back; the pool discards it on release and the server rolled back.
    with contextlib.suppress(Exception):
        if conn.is_in_transaction():
            await conn.execute("ROLLBACK")
