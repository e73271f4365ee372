"""A tiny actor for the runtime's tests: a ledger of positive amounts with a running total.

Its tables are created by the tests (never by migrations). `total` has a CHECK the actor does not
validate, so a test can make a commit fail; `Probe` counts loads and commits and can hold a commit.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field, replace

import asyncpg
import msgspec

from actors.runtime.actor import Actor, Decision
from protocol.errors import BadRequest

SCHEMA = """
CREATE TABLE IF NOT EXISTS test_ledgers (
    actor_id text PRIMARY KEY,
    total    integer NOT NULL CHECK (total <= 1000000)
);
CREATE TABLE IF NOT EXISTS test_ledger_entries (
    actor_id text NOT NULL,
    position integer NOT NULL,
    amount   integer NOT NULL,
    PRIMARY KEY (actor_id, position)
);
"""


class Add(msgspec.Struct, tag=True):
    amount: int
    once: str | None = None  # a call key (Actor.call_key), for the actors that keep replies


class Get(msgspec.Struct, tag=True):
    pass


LedgerMessage = Add | Get


@dataclass(frozen=True, slots=True)
class Ledger:
    total: int = 0
    entries: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Added:
    position: int
    amount: int


@dataclass
class Probe:
    loads: int = 0
    commits: int = 0
    entered: asyncio.Event = field(default_factory=asyncio.Event)
    gate: asyncio.Event | None = None


PROBES: defaultdict[str, Probe] = defaultdict(Probe)


class LedgerActor(Actor[Ledger, LedgerMessage, Added]):
    kind = "test-ledger"

    async def load(self, conn: asyncpg.Connection) -> Ledger:
        PROBES[self.actor_id].loads += 1
        rows = await conn.fetch(
            "SELECT amount FROM test_ledger_entries WHERE actor_id = $1 ORDER BY position", self.actor_id)
        total = await conn.fetchval("SELECT total FROM test_ledgers WHERE actor_id = $1", self.actor_id)
        return Ledger(total=total or 0, entries=tuple(row["amount"] for row in rows))

    def decide(self, state: Ledger, message: LedgerMessage) -> Decision[Added]:
        match message:
            case Add(amount=amount) if amount <= 0:
                raise BadRequest("amount must be positive")
            case Add(amount=amount):
                change = Added(position=len(state.entries), amount=amount)
                return Decision(reply=state.total + amount, change=change,
                                events=[("ledger.added", {"position": change.position, "amount": amount})])
            case Get():
                return Decision(reply=state)

    async def persist(self, conn: asyncpg.Connection, changes: list[Added]) -> None:
        probe = PROBES[self.actor_id]
        probe.commits += 1
        probe.entered.set()
        if probe.gate is not None:
            await probe.gate.wait()
        await conn.executemany(
            "INSERT INTO test_ledger_entries (actor_id, position, amount) VALUES ($1, $2, $3)",
            [(self.actor_id, change.position, change.amount) for change in changes])
        await conn.execute(
            """INSERT INTO test_ledgers (actor_id, total) VALUES ($1, $2)
               ON CONFLICT (actor_id) DO UPDATE SET total = test_ledgers.total + EXCLUDED.total""",
            self.actor_id, sum(change.amount for change in changes))

    @staticmethod
    def apply(state: Ledger, change: Added) -> Ledger:
        return replace(state, total=state.total + change.amount, entries=(*state.entries, change.amount))


async def stored(pool: asyncpg.Pool, actor_id: str) -> Ledger:
    """What the database holds for a ledger, read without the actor (so no probe counts change)."""
    rows = await pool.fetch("SELECT amount FROM test_ledger_entries WHERE actor_id = $1 ORDER BY position",
                            actor_id)
    total = await pool.fetchval("SELECT total FROM test_ledgers WHERE actor_id = $1", actor_id)
    return Ledger(total=total or 0, entries=tuple(row["amount"] for row in rows))
