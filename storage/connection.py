"""What a repository function needs of the database: `Conn`, the queries an asyncpg connection and pool both
answer, and `Connection`, one connection (a function that locks rows for its caller's transaction takes it).

asyncpg ships no type information, so `asyncpg.Connection | asyncpg.Pool` is `Any` to a type checker and
so is every query result. These Protocols name the subset repositories call, with asyncpg's signatures, so
their results have types; an `asyncpg.Connection` or `asyncpg.Pool` is accepted wherever one is asked for.
Rows stay `asyncpg.Record`; a single value (`fetchval`) is whatever the query selects, so it is `Any`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import asyncpg


class Conn(Protocol):
    async def execute(self, query: str, *args: Any, timeout: float | None = None) -> str: ...

    async def executemany(self, command: str, args: Iterable[Sequence[Any]], *,
                          timeout: float | None = None) -> None: ...

    async def fetch(self, query: str, *args: Any, timeout: float | None = None,
                    record_class: type[Any] | None = None) -> list[asyncpg.Record]: ...

    async def fetchrow(self, query: str, *args: Any, timeout: float | None = None,
                       record_class: type[Any] | None = None) -> asyncpg.Record | None: ...

    async def fetchval(self, query: str, *args: Any, column: int = 0, timeout: float | None = None) -> Any: ...


class Connection(Conn, Protocol):
    def transaction(self, *, isolation: str | None = None, readonly: bool = False,
                    deferrable: bool = False) -> AbstractAsyncContextManager[Any]: ...
