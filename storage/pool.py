"""The asyncpg connection pool, with JSON codecs so that jsonb columns read and write Python values."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


async def _init_connection(conn: asyncpg.Connection) -> None:
    for name in ("json", "jsonb"):
        await conn.set_type_codec(name, schema="pg_catalog", format="text",
                                  encoder=lambda value: _json_encode(value).decode(),
                                  decoder=_json_decode)


class _PooledConnection(asyncpg.Connection):  # type: ignore[misc]
    """No reset query when a connection goes back to the pool (asyncpg still rolls back an open transaction).

    The default (`pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`) is one more round trip and
    one more transaction per checkout — half the transactions of a board mutation. Obeya never leaves session
    state behind: no LISTEN, no SET, no cursors outside transactions, and the one advisory lock (migrations)
    is released explicitly."""

    def get_reset_query(self) -> str:
        return ""


class _Pool(asyncpg.Pool):  # type: ignore[misc]
    """A pool whose `acquire` waits at most `acquire_timeout` seconds unless told otherwise. Every checkout,
    also those inside `pool.fetch` and friends, goes through `acquire`; a wait that runs out raises
    TimeoutError, which callers answer 503."""

    __slots__ = ("_acquire_timeout",)

    def __init__(self, *args: Any, acquire_timeout: float | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._acquire_timeout = acquire_timeout

    def acquire(self, *, timeout: float | None = None) -> Any:
        return super().acquire(timeout=self._acquire_timeout if timeout is None else timeout)


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10, acquire_timeout: float | None = None,
                      statement_timeout: float | None = None, **kwargs: Any) -> asyncpg.Pool:
    """`acquire_timeout`: the longest wait for a connection; `statement_timeout`: the longest a statement may
    run (asyncpg's `command_timeout`: it cancels the statement and raises TimeoutError)."""
    pool = _Pool(dsn, min_size=min_size, max_size=max_size, max_queries=50000,
                 max_inactive_connection_lifetime=300.0, loop=None, init=_init_connection,
                 connection_class=_PooledConnection, record_class=asyncpg.Record,
                 acquire_timeout=acquire_timeout, command_timeout=statement_timeout, **kwargs)
    await pool
    return pool
