"""How a background worker waits between steps: until something wakes it (its node's bus, or a Postgres
NOTIFY from any node), or for a poll interval of the node's clock (so that tests drive the time)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg

from actors.runtime.clock import Clock


async def pause(clock: Clock, wake: asyncio.Event, seconds: float, step_started: float) -> None:
    """Return when `wake` is set or when `seconds` of clock time have passed since `step_started`."""
    sleeper = asyncio.ensure_future(clock.sleep(seconds))
    waker = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.sleep(0)  # the sleeper takes its deadline now, before the clock is read again
        # A clock moved past a poll while the step worked (a test's ManualClock) must not be slept through.
        if clock.monotonic() - step_started < seconds:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
        waker.cancel()


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
