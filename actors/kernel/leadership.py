"""Which node runs a periodic worker's step when several nodes share one database: the node holding that
worker's PostgreSQL session-level advisory lock.

Each node keeps one connection of its own for these locks (outside the pool, so it never goes back to the
pool with a lock held). A worker asks `leads(node, name)` before each step: the node takes the lock if it is
free (`pg_try_advisory_lock`, never waiting) and keeps it from then on; a node that holds it checks that its
connection is alive. When the holder dies, PostgreSQL ends its session and releases its locks, and the next
node to ask takes over (a handover within one step's interval). A lost connection is given up (every lock of
this node with it) and opened again at the next ask.

Workers that claim their rows with `FOR UPDATE SKIP LOCKED` (mail, webhooks, automations, escalation, approval
actions) need no leader; those that hold per-node memory (last-used flusher, form OTP queue) run everywhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import asyncpg
import structlog

log = structlog.get_logger("obeya.workers")

# The first key of the two-key advisory lock: obeya's leader locks, apart from any other advisory lock.
NAMESPACE = 0x0BE7A
# How long a lock statement may take before the connection is taken for lost.
STATEMENT_SECONDS = 5.0

Connect = Callable[[], Awaitable[asyncpg.Connection]]


class Leadership:
    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._conn: asyncpg.Connection | None = None
        self._connecting: asyncio.Future[asyncpg.Connection] | None = None
        self._held: set[str] = set()
        self._followed: set[str] = set()  # names another node was found to lead (logged once)
        self._lock = asyncio.Lock()  # one statement at a time on the one connection

    async def leads(self, name: str) -> bool:
        """Whether this node runs `name`'s step: it holds the lock, or has just taken it."""
        async with self._lock:
            try:
                if self._conn is None:
                    self._conn = await self._connected()
                if name in self._held:
                    await self._conn.fetchval("SELECT 1", timeout=STATEMENT_SECONDS)
                    return True
                taken = await self._conn.fetchval("SELECT pg_try_advisory_lock($1, hashtext($2))", NAMESPACE,
                                                  name, timeout=STATEMENT_SECONDS)
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                log.warning("worker_lock_lost", worker=name, held=sorted(self._held), error=repr(error))
                await self._give_up()
                return False
            if taken:
                self._held.add(name)
                self._followed.discard(name)
                log.info("worker_leads", worker=name)
            elif name not in self._followed:
                self._followed.add(name)
                log.info("worker_follows", worker=name)
            return bool(taken)

    async def _connected(self) -> asyncpg.Connection:
        """The new connection. A worker cancelled meanwhile (the node stopping) leaves the attempt running for
        the next ask or `close`: asyncpg cancelled in the middle of its handshake leaves behind a future whose
        error asyncio prints when the process exits (MagicStack/asyncpg#1211), after a command's last line."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        finally:
            if connecting.done():
                self._connecting = None

    async def close(self) -> None:
        """Release every lock (the node is stopping): another node takes over at its next step."""
        async with self._lock:
            connecting, self._connecting = self._connecting, None
            if connecting is not None:
                try:
                    self._conn = await connecting
                except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
                    pass  # nothing was opened: nothing to close
            await self._give_up()

    async def _give_up(self) -> None:
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None:
            try:
                await conn.close(timeout=STATEMENT_SECONDS)  # the session ends: its locks go with it
            except Exception:
                conn.terminate()


async def leads(leadership: Leadership | None, name: str) -> bool:
    """Whether this node runs `name`'s step now; without leadership (one-shot commands, bare test nodes) always."""
    return leadership is None or await leadership.leads(name)
