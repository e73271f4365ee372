"""The asyncpg connection pool, with JSON codecs so that jsonb columns read and write Python values, that
discards a connection whose protocol broke and sends again, once, a statement such a connection refused to
send."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

import asyncpg
import msgspec
import structlog
from asyncpg.pool import PoolAcquireContext

log = structlog.get_logger("obeya.storage")

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


# jsonb's binary format is a version byte (1) and the JSON text; json's is the text alone. Binary, so msgspec's
# UTF-8 bytes go out as they are and come back as bytes: the text format made a str of them both ways (about a
# quarter of the codec's cost per value).
_JSONB_VERSION = b"\x01"


def _encode_jsonb(value: Any) -> bytes:
    return _JSONB_VERSION + _json_encode(value)


def _decode_jsonb(data: bytes) -> Any:
    return _json_decode(data[1:])


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", schema="pg_catalog", format="binary", encoder=_encode_jsonb,
                              decoder=_decode_jsonb)
    await conn.set_type_codec("json", schema="pg_catalog", format="binary", encoder=_json_encode,
                              decoder=_json_decode)


class _PooledConnection(asyncpg.Connection):  # type: ignore[misc]
    """No reset query when a connection goes back to the pool (asyncpg still rolls back an open transaction).

    The default (`pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`) is one more round trip and
    one more transaction per checkout — half the transactions of a board mutation. Obeya never leaves session
    state behind: no LISTEN, no SET, no cursors outside transactions, and the one advisory lock (migrations)
    is released explicitly."""

    def get_reset_query(self) -> str:
        return ""


def broke_connection(exc: BaseException | None) -> bool:
    """Whether a failure leaves its connection unfit for another statement: asyncpg's protocol in a state it
    cannot leave (InternalClientError), or the socket failing under it (OSError), also when the failure was
    mapped to a typed error on its way up. An error PostgreSQL answered (PostgresError) leaves the connection
    as good as before, and so does a statement timeout (TimeoutError, an OSError too): asyncpg cancels the
    statement and waits for the connection to be idle again before it goes back."""
    return exc is not None and any(isinstance(cause, asyncpg.InternalClientError | OSError)
                                   and not isinstance(cause, TimeoutError) for cause in (exc, exc.__cause__))


async def give_back(pool: asyncpg.Pool, conn: asyncpg.Connection, failure: BaseException | None) -> None:
    """Return a connection taken with `await pool.acquire()`, or terminate it when `failure` broke it
    (what a checkout with `async with pool.acquire()` does by itself). The pool's other connections are
    renewed too (each as it is next checked out or given back): whatever broke one (a restart, a failover,
    an administrator terminating the server's backends) most likely broke them all at the same moment, and
    until asyncpg has read each one's end of file they still look open."""
    if broke_connection(failure):
        log.warning("database_connection_discarded", error=type(failure).__name__)
        conn.terminate()  # frees its place in the pool, which connects again when next used
        await pool.expire_connections()
    await pool.release(conn)


def never_sent(exc: BaseException) -> bool:
    """Whether asyncpg refused to start the statement, before writing a byte of it: its protocol was not idle.
    That is what a connection PostgreSQL terminated looks like between the server's goodbye (an unsolicited
    57P01 error, which leaves the protocol waiting for a sync that never comes) and the socket's end of file:
    a checkout in that window gets "cannot switch to state 12; another operation (2) is in progress". asyncpg
    gives this refusal no class or code of its own, so its message (raised only by the protocol's state
    switch) is the one way to tell it from a failure after the statement went out."""
    return isinstance(exc, asyncpg.InternalClientError) and str(exc).startswith("cannot switch to state")


class _AcquireContext(PoolAcquireContext):  # type: ignore[misc]
    """A checkout that terminates its connection, instead of giving it back, when the block failed in a way
    that broke it (`broke_connection`): the pool connects afresh for the next checkout. Given back, such a
    connection fails every later request that gets it (no reset query runs to notice, see
    `_PooledConnection`)."""

    connection: Any

    async def __aexit__(self, exc_type: type[BaseException] | None = None, exc: BaseException | None = None,
                        tb: TracebackType | None = None) -> None:
        if self.connection is None or not broke_connection(exc):
            await super().__aexit__(exc_type, exc, tb)
            return
        self.done, conn, self.connection = True, self.connection, None
        await give_back(self.pool, conn, exc)


class _Pool(asyncpg.Pool):  # type: ignore[misc]
    """A pool whose `acquire` waits at most `acquire_timeout` seconds unless told otherwise. Every checkout,
    also those inside `pool.fetch` and friends, goes through `acquire`; a wait that runs out raises
    TimeoutError, which callers answer 503. A single statement run on the pool (`pool.fetch` and friends)
    that a broken connection refused to send (`never_sent`) is sent once more on another connection: it
    never reached PostgreSQL, so running it is safe for a read and a write alike. A statement that went out
    is never sent again here, since its commit may have happened."""

    __slots__ = ("_acquire_timeout",)

    def __init__(self, *args: Any, acquire_timeout: float | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._acquire_timeout = acquire_timeout

    def acquire(self, *, timeout: float | None = None) -> Any:
        return _AcquireContext(self, self._acquire_timeout if timeout is None else timeout)

    async def _once_more_if_never_sent(self, statement: Callable[..., Awaitable[Any]], *args: Any,
                                       **kwargs: Any) -> Any:
        try:
            return await statement(*args, **kwargs)
        except asyncpg.InternalClientError as refused:
            if not never_sent(refused):
                raise
            log.warning("database_statement_resent", error=str(refused))
            return await statement(*args, **kwargs)

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more_if_never_sent(super().execute, *args, **kwargs)

    async def executemany(self, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more_if_never_sent(super().executemany, *args, **kwargs)

    async def fetch(self, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more_if_never_sent(super().fetch, *args, **kwargs)

    async def fetchval(self, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more_if_never_sent(super().fetchval, *args, **kwargs)

    async def fetchrow(self, *args: Any, **kwargs: Any) -> Any:
        return await self._once_more_if_never_sent(super().fetchrow, *args, **kwargs)


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10, acquire_timeout: float | None = None,
                      statement_timeout: float | None = None, idle_transaction_timeout: float | None = None,
                      **kwargs: Any) -> asyncpg.Pool:
    """`acquire_timeout`: the longest wait for a connection; `statement_timeout`: the longest a statement may
    run (asyncpg's `command_timeout`: it cancels the statement and raises TimeoutError);
    `idle_transaction_timeout`: the longest PostgreSQL lets a transaction wait for its client between two
    statements before it ends the session (`idle_in_transaction_session_timeout`), so that a process stopped in
    the middle of a transaction (SIGSTOP, a frozen VM) does not hold its row locks until it runs again."""
    if idle_transaction_timeout is not None:
        settings = dict(kwargs.pop("server_settings", None) or {})
        settings["idle_in_transaction_session_timeout"] = str(max(1, math.ceil(idle_transaction_timeout * 1000)))
        kwargs["server_settings"] = settings
    pool = _Pool(dsn, min_size=min_size, max_size=max_size, max_queries=50000,
                 max_inactive_connection_lifetime=300.0, loop=None, init=_init_connection,
                 connection_class=_PooledConnection, record_class=asyncpg.Record,
                 acquire_timeout=acquire_timeout, command_timeout=statement_timeout, **kwargs)
    await pool
    return pool
