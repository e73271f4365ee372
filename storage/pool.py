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


async def create_pool(dsn: str, *, min_size: int = 2, max_size: int = 10, **kwargs: Any) -> asyncpg.Pool:
    pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, init=_init_connection,
                                     **kwargs)
    assert pool is not None
    return pool
