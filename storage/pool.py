"""The asyncpg connection pool, with JSON codecs so that jsonb columns read and write Python values."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

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
