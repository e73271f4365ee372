"""What a domain actor writes: the `Actor` base class (load, decide, persist, apply) and `Decision`.

The runtime (`lifecycle.py`) calls these in a fixed order per turn: `decide` each message against
in-memory state, write all changes of the turn in one transaction (`add_writes`' one statement, else `persist`),
then `apply` them to memory.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import asyncpg

from actors.runtime.clock import Clock
from storage.turn_statement import TurnStatement

S = TypeVar("S")  # the actor's in-memory state
M = TypeVar("M")  # the messages it accepts
C = TypeVar("C")  # the changes its decisions carry

# An event to log: (name, payload) on the actor's own stream, or (stream, name, payload) on another one
# (a user's private stream for a notification, say), in the same transaction.
Event = tuple[str, Any] | tuple[str, str, Any]


@dataclass(frozen=True, slots=True)
class Decision(Generic[C]):
    """The outcome of one message: what to write (`change`), what to log (`events`), what to answer.

    A query decides `Decision(reply=...)` with no change: it costs no transaction, and it is still
    answered after the writes decided before it in the same turn are durable.
    """

    reply: Any = None
    change: C | None = None
    events: Sequence[Event] = ()


class Actor(ABC, Generic[S, M, C]):
    """One actor type. Subclasses set `kind` and implement the four methods below.

    `decide` and `apply` must not do I/O; `apply` must be pure (it is used for live handling, for
    recovery and in tests, and it is run on a provisional copy of the state before the commit).
    """

    kind: ClassVar[str]

    def __init__(self, actor_id: str, organization_id: str, clock: Clock, *, secret_key: str | None = None) -> None:
        self.actor_id = actor_id
        self.organization_id = organization_id
        self.clock = clock
        # The key this node seals secrets at rest under (OBEYA_SECRET_KEY; None: the database's), for an actor
        # that seals while it persists: a node's own, never carried in a message that may cross nodes.
        self.secret_key = secret_key

    @classmethod
    def key_for(cls, actor_id: str) -> str:
        """The actor's address: the directory entry, the epoch row and the default event stream."""
        return f"{cls.kind}:{actor_id}"

    @property
    def key(self) -> str:
        return self.key_for(self.actor_id)

    @property
    def stream(self) -> str:
        """The event-log stream this actor's events go to."""
        return self.key

    @abstractmethod
    async def load(self, conn: asyncpg.Connection) -> S:
        """Read the state from the database (on activation and after a failed commit).

        Raise an ApiError (e.g. NotFound) when the actor does not exist in `organization_id`.
        """

    async def prepare(self, pool: asyncpg.Pool, state: S, messages: list[M]) -> S:
        """Before a turn's decisions: return `state` with whatever committed data the messages need that
        memory does not hold yet (read from the database on demand, e.g. an item in the trash). Memory
        keeps what was read. The default needs nothing."""
        return state

    @staticmethod
    async def query_state(pool: asyncpg.Pool, organization_id: str, actor_id: str, state: S, message: M) -> S:
        """Before a query (`ActorSystem.query`, on the node that owns the actor): return `state` with the
        committed data the query's reply shows that memory does not hold (read from the database; memory does
        not keep it). The default needs nothing."""
        return state

    @staticmethod
    def call_key(message: Any) -> str | None:
        """What identifies `message` as one call made under an Idempotency-Key (None: not such a call). Its
        reply is kept with the turn that applies it, and the same call coming again is answered from it
        (the actor type must have a `codec` to keep replies). The default: no message is."""
        return None

    @abstractmethod
    def decide(self, state: S, message: M) -> Decision[C]:
        """Validate `message` against `state`; raise an ApiError to reject it with nothing changed."""

    @abstractmethod
    async def persist(self, conn: asyncpg.Connection, changes: list[C]) -> None:
        """Write the turn's changes, in order, inside the turn's transaction (never commit here)."""

    def add_writes(self, statement: TurnStatement, changes: list[C]) -> bool:
        """Add the turn's changes to `statement` as parts (storage/turn_statement.py), for the runtime to commit them
        with the epoch check, the kept replies and the events as one statement: one round trip. Return False, before
        adding anything, when this turn needs `persist` instead (its writes read, or depend on one another). The
        default: every turn goes through `persist`."""
        return False

    @staticmethod
    @abstractmethod
    def apply(state: S, change: C) -> S:
        """Return the state with `change` applied. Pure: no I/O, and `state` itself is not mutated."""
