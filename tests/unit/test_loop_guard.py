"""The loop guard every async test runs under sees a blocked loop and an exception nobody read, and does
not mistake an idle or busy-but-yielding loop for a blocked one. Sync tests: each runs its own loop."""

from __future__ import annotations

import asyncio
import gc
import time

from tests.loop_guard import BLOCKED_SECONDS, guarded_loop


def test_a_callback_holding_the_loop_past_the_limit_is_reported() -> None:
    async def scenario() -> list[float]:
        async with guarded_loop() as (_, blocked):
            await asyncio.sleep(0.05)
            time.sleep(BLOCKED_SECONDS * 2)  # holds the loop
            await asyncio.sleep(0.05)
        return blocked

    assert [late > BLOCKED_SECONDS for late in asyncio.run(scenario())] == [True]


def test_a_loop_that_keeps_yielding_is_not_blocked() -> None:
    async def scenario() -> list[float]:
        async with guarded_loop() as (_, blocked):
            deadline = time.monotonic() + BLOCKED_SECONDS * 3
            while time.monotonic() < deadline:
                time.sleep(0.005)
                await asyncio.sleep(0)
        return blocked

    assert asyncio.run(scenario()) == []


def test_a_task_exception_nobody_reads_is_reported() -> None:
    async def fail() -> None:
        raise RuntimeError("lost")

    async def scenario() -> list[str]:
        async with guarded_loop() as (unhandled, _):
            task = asyncio.create_task(fail())
            await asyncio.sleep(0)
            del task
            gc.collect()
        return [str(context.get("exception")) for context in unhandled]

    assert asyncio.run(scenario()) == ["lost"]
