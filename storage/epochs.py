"""Activation epochs (fencing): each activation of an actor takes a new epoch, and every commit of that
activation checks it, so an activation that was superseded can never overwrite newer state."""

from __future__ import annotations

from protocol.errors import ServiceUnavailable
from storage.connection import Connection


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


async def check_epoch(conn: Connection, actor_key: str, epoch: int) -> None:
    """Raise StaleEpoch unless `epoch` is still the current one.

    Run inside the commit's transaction: FOR UPDATE holds the row until commit, so a newer activation
    taking its epoch waits for this commit and then loads what it wrote.
    """
    current = await conn.fetchval("SELECT epoch FROM actor_epochs WHERE actor_key = $1 FOR UPDATE",
                                  actor_key)
    if current != epoch:
        # What the caller sees names no actor and no epoch (the runtime logs them: actor.stale_epoch).
        raise StaleEpoch("moved to another node; retry")
