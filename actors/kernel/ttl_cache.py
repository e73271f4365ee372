"""A per-node cache whose answers are at most a fixed number of seconds old: what the hot path reads on
every request (organizations, roles, board access, members, automation rules) without a query each time.
A change made on this node drops its entry at once; another node's change shows within the TTL. A load that
was already reading when its key was dropped answers its callers but is not kept: it may predate the change.
Callers that miss while a load of their key is under way wait for that load instead of starting their own.
Each cache belongs to one `Node` and runs on its clock, so tests drive staleness with a `ManualClock`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from actors.runtime.clock import Clock

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# Entries kept at most; past this the stale ones go, and if none is stale, all of them (a burst of
# distinct keys must not grow memory without bound).
MAX_ENTRIES = 100_000


class TtlCache(Generic[K, V]):
    def __init__(self, seconds: float, clock: Clock) -> None:
        self._seconds = seconds
        self._clock = clock
        self._entries: dict[K, tuple[float, V]] = {}
        # Keys being loaded, each with its load; a drop takes the load away, so that it is not kept.
        self._loading: dict[K, asyncio.Task[V]] = {}

    async def get(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        """The cached value while fresh, else the value of the load of `key` under way, else `await load()`
        stored under `key`. One load per key at a time: when a key every request reads expires under load, a
        load per request would queue hundreds of queries for the pool and a load finishing before the last
        one began would not be kept, so that the key stayed a miss for as long as requests kept coming (issue
        27: items.list waited up to 1.5 s for a connection). The load runs as a task of its own, so that a
        caller's cancellation leaves it to the others; the shield keeps a cancelled caller from cancelling it."""
        entry = self._entries.get(key)
        if entry is not None and self._clock.monotonic() - entry[0] < self._seconds:
            return entry[1]
        loading = self._loading.get(key)
        if loading is None:
            loading = self._loading[key] = asyncio.ensure_future(self._load(key, load))
        return await asyncio.shield(loading)

    async def _load(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        try:
            value = await load()
        finally:
            still_ours = self._loading.get(key) is asyncio.current_task()
            if still_ours:
                del self._loading[key]
        if still_ours:
            self.put(key, value)
        return value

    def peek(self, key: K) -> tuple[bool, V | None]:
        """(True, value) while `key` holds a fresh value, else (False, None); never loads (no await)."""
        entry = self._entries.get(key)
        if entry is not None and self._clock.monotonic() - entry[0] < self._seconds:
            return True, entry[1]
        return False, None

    def put(self, key: K, value: V) -> None:
        if len(self._entries) >= MAX_ENTRIES:
            self._evict()
        self._entries[key] = (self._clock.monotonic(), value)

    def drop(self, key: K) -> None:
        self._entries.pop(key, None)
        self._loading.pop(key, None)

    def drop_where(self, condition: Callable[[K], bool]) -> None:
        for key in [k for k in self._entries if condition(k)]:
            del self._entries[key]
        for key in [k for k in self._loading if condition(k)]:
            del self._loading[key]

    def clear(self) -> None:
        self._entries.clear()
        self._loading.clear()

    def _evict(self) -> None:
        now = self._clock.monotonic()
        self._entries = {k: e for k, e in self._entries.items() if now - e[0] < self._seconds}
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
