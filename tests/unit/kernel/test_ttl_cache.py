"""The per-node TTL cache: loads once while fresh, again when stale or dropped, and stays bounded."""

from __future__ import annotations

import asyncio

import pytest

from actors.kernel import ttl_cache
from actors.kernel.ttl_cache import TtlCache
from actors.runtime.clock import ManualClock


class Loader:
    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self) -> int:
        self.calls += 1
        return self.calls


async def test_fresh_values_load_once() -> None:
    cache: TtlCache[str, int] = TtlCache(60, ManualClock())
    load = Loader()
    assert [await cache.get("a", load) for _ in range(3)] == [1, 1, 1]
    assert load.calls == 1


async def test_stale_or_dropped_values_load_again() -> None:
    load = Loader()
    clock = ManualClock()
    stale: TtlCache[str, int] = TtlCache(60, clock)
    first = await stale.get("a", load)
    clock.advance(60)
    assert [first, await stale.get("a", load)] == [1, 2]
    fresh: TtlCache[tuple[str, str], int] = TtlCache(60, clock)
    await fresh.get(("org", "b1"), load)
    await fresh.get(("org", "b2"), load)
    fresh.drop_where(lambda key: key[1] == "b1")
    assert await fresh.get(("org", "b1"), load) == 5 and await fresh.get(("org", "b2"), load) == 4
    fresh.drop(("org", "b2"))
    assert await fresh.get(("org", "b2"), load) == 6


async def test_peek_answers_only_fresh_values_and_never_loads() -> None:
    load = Loader()
    clock = ManualClock()
    cache: TtlCache[str, int] = TtlCache(60, clock)
    assert cache.peek("a") == (False, None)
    await cache.get("a", load)
    assert cache.peek("a") == (True, 1) and load.calls == 1
    clock.advance(59.9)
    assert cache.peek("a") == (True, 1)
    clock.advance(0.1)
    assert cache.peek("a") == (False, None)


async def test_the_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ttl_cache, "MAX_ENTRIES", 10)
    cache: TtlCache[int, int] = TtlCache(60, ManualClock())
    for key in range(25):
        await cache.get(key, Loader())
    assert len(cache._entries) <= 10


@pytest.mark.parametrize("how", ["drop", "drop_where", "clear"])
async def test_a_load_that_began_before_a_drop_is_not_kept(how: str) -> None:
    """A change dropped the key while a load was reading the state before it: that answer is the caller's, but
    the cache must not keep it (it would hide the change for a whole TTL, a removed member's access say)."""
    cache: TtlCache[str, int] = TtlCache(60, ManualClock())
    reading, release = asyncio.Event(), asyncio.Event()

    async def slow_load() -> int:
        reading.set()
        await release.wait()
        return 1

    pending = asyncio.ensure_future(cache.get("a", slow_load))
    await reading.wait()
    {"drop": lambda: cache.drop("a"), "drop_where": lambda: cache.drop_where(lambda key: key == "a"),
     "clear": cache.clear}[how]()
    release.set()
    assert await pending == 1
    assert cache.peek("a") == (False, None)
    load = Loader()
    assert await cache.get("a", load) == 1 and load.calls == 1  # loaded again, and kept this time
    assert cache.peek("a") == (True, 1)


async def test_callers_missing_together_share_one_load() -> None:
    """A key every request reads expires under load: one load answers every caller and is kept, however many
    callers miss while it reads (issue 27: a load per caller kept the key a miss and queued them for the pool)."""
    clock = ManualClock()
    cache: TtlCache[str, int] = TtlCache(60, clock)
    reading, release = asyncio.Event(), asyncio.Event()
    calls = 0

    async def slow_load() -> int:
        nonlocal calls
        calls += 1
        reading.set()
        await release.wait()
        return calls

    callers = [asyncio.ensure_future(cache.get("a", slow_load)) for _ in range(50)]
    await reading.wait()
    callers[0].cancel()  # a caller that goes away leaves the load to the others
    release.set()
    assert [await caller for caller in callers[1:]] == [1] * 49 and calls == 1
    assert cache.peek("a") == (True, 1)


async def test_a_failed_load_fails_its_callers_and_the_next_caller_loads_again() -> None:
    cache: TtlCache[str, int] = TtlCache(60, ManualClock())

    async def failing() -> int:
        await asyncio.sleep(0)
        raise ConnectionError("database away")

    callers = [asyncio.ensure_future(cache.get("a", failing)) for _ in range(3)]
    results = await asyncio.gather(*callers, return_exceptions=True)
    assert all(isinstance(result, ConnectionError) for result in results)
    load = Loader()
    assert await cache.get("a", load) == 1 and load.calls == 1


async def test_a_caller_missing_after_a_drop_does_not_wait_for_the_load_that_began_before_it() -> None:
    """Callers share a load only until the key is dropped: one that misses after the change must read the state
    after it, not wait for the load that read the state before it (a removed member would keep their access)."""
    cache: TtlCache[str, str] = TtlCache(60, ManualClock())
    reading, release = asyncio.Event(), asyncio.Event()

    async def before_the_change() -> str:
        reading.set()
        await release.wait()
        return "before"

    async def after_the_change() -> str:
        return "after"

    earlier = asyncio.ensure_future(cache.get("a", before_the_change))
    await reading.wait()
    cache.drop("a")
    later = asyncio.ensure_future(cache.get("a", after_the_change))
    for _ in range(10):  # a few passes of the loop, no time: the new load has nothing to wait for
        await asyncio.sleep(0)
    assert later.done() and later.result() == "after"  # while the earlier load is still reading
    release.set()
    assert await earlier == "before"
    assert cache.peek("a") == (True, "after")
