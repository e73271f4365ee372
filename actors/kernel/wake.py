"""How a background worker waits between steps: until something wakes it (its node's bus, or a Postgres
NOTIFY from any node), or for a poll interval of the node's clock (so that tests drive the time); and the
bounded notes its bus subscriber keeps for the next step."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

import asyncpg

from actors.kernel.supervisor import park
from actors.runtime.clock import Clock


async def pause(clock: Clock, wake: asyncio.Event, seconds: float, step_started: float,
                busy: Callable[[], bool] | None = None) -> None:
    """Return when `wake` is set or when `seconds` of clock time have passed since `step_started`.
    The worker is parked meanwhile (its supervisor's `idle()` counts it as waiting) unless `busy()` says
    it still has work of its own in flight."""
    deadline = clock.monotonic() + seconds
    sleeper = asyncio.ensure_future(_sleep_until(clock, deadline))
    waker = asyncio.ensure_future(wake.wait())

    def woken() -> bool:
        return wake.is_set() or clock.monotonic() >= deadline or (busy is not None and busy())

    try:
        await asyncio.sleep(0)  # the sleeper takes its deadline now, before the clock is read again
        # A clock moved past a poll while the step worked (a test's ManualClock) must not be slept through.
        if clock.monotonic() - step_started < seconds:
            await park(woken, asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED))
    finally:
        sleeper.cancel()
        waker.cancel()


async def _sleep_until(clock: Clock, deadline: float) -> None:
    # Measured when the task starts, so that it ends exactly when `woken` above starts saying so.
    remaining = deadline - clock.monotonic()
    if remaining > 0:
        await clock.sleep(remaining)


@contextlib.asynccontextmanager
async def woken_by_notify(pool: asyncpg.Pool, channel: str, wake: Callable[[], None]) -> AsyncIterator[None]:
    """While inside, a Postgres NOTIFY on `channel` (from any node, delivered at its commit) calls `wake`.
    Holds one pooled connection for the LISTEN."""

    def notified(*_: Any) -> None:
        wake()

    async with pool.acquire() as listener:
        await listener.add_listener(channel, notified)
        try:
            yield
        finally:
            # The pool resets nothing on release: the LISTEN must not outlive this worker.
            with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                await listener.remove_listener(channel, notified)


T = TypeVar("T")


class BusNotes(Generic[T]):
    """What a worker's bus subscriber noted for its next step, at most `limit`: past it the notes are dropped
    and the worker is told (`take_overflow`) to sweep the event log instead, which finds every committed
    event, so memory stays bounded whatever the bus brings."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: list[T] = []
        self.overflowed = False

    def add(self, fresh: list[T]) -> None:
        if len(self.items) + len(fresh) > self.limit:
            self.items.clear()
            self.overflowed = True
        else:
            self.items.extend(fresh)

    def take(self) -> list[T]:
        items, self.items = self.items, []
        return items

    def take_overflow(self) -> bool:
        overflowed, self.overflowed = self.overflowed, False
        return overflowed
