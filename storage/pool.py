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


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10, **kwargs: Any) -> asyncpg.Pool:
    pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, init=_init_connection,
                                     connection_class=_PooledConnection, **kwargs)
    assert pool is not None
    return pool
