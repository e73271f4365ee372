"""The autouse guard of every async test: it fails the test when its event loop reported an unhandled
exception (a task's exception nobody read, an exception in a callback) or was blocked for longer than
BLOCKED_SECONDS.

Blocking is measured by a heartbeat: a task that asks to wake every HEARTBEAT_SECONDS and records how late
it woke. On a busy machine a late wake-up is mostly time the loop's thread spent waiting for a CPU, not
time a callback held the loop; Linux counts that wait per thread (/proc/thread-self/schedstat, "run
delay"), so the guard subtracts it. Where that count is missing, only lateness is measured.

A full garbage collection of the test process's heap (everything earlier tests left) stalls the loop for
100-400 ms, as it would stall a server that `obeya serve` had not frozen (server/cli.py). So, as the
server does, the tests freeze what is alive between tests (`settle_between_tests`), and collect fully
every COLLECT_EVERY tests, outside any test's loop. The oldest generation's automatic collections still
run inside tests, over what pytest, the clients and earlier tests' leftovers hold since the last freeze (40-300
ms measured, a heap no server has): their time is counted through `gc.callbacks` and subtracted like the run
delay. A younger generation's collection, or any other work, still counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator
from typing import Any

# aiohttp's and asyncpg's own test suites fail a test that blocks the loop; 100 ms is what a user notices.
BLOCKED_SECONDS = 0.1
HEARTBEAT_SECONDS = 0.02
_SCHEDSTAT = "/proc/thread-self/schedstat"
# A full collection takes about a second with the whole suite's heap; every 200 tests keeps memory flat.
COLLECT_EVERY = 200


_collecting: dict[str, float] = {"since": 0.0, "total": 0.0}


def _count_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _collecting["since"] = time.perf_counter()
    elif info["generation"] == 2:
        _collecting["total"] += time.perf_counter() - _collecting["since"]


gc.callbacks.append(_count_collection)


def _run_delay() -> float:
    """Seconds this thread has spent runnable but waiting for a CPU (0 where the kernel does not say)."""
    try:
        with open(_SCHEDSTAT, "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def _heartbeat(blocked: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while True:
        started, waited, collected = loop.time(), _run_delay(), _collecting["total"]
        await asyncio.sleep(HEARTBEAT_SECONDS)
        late = (loop.time() - started - HEARTBEAT_SECONDS - (_run_delay() - waited)
                - (_collecting["total"] - collected))
        if late > BLOCKED_SECONDS:
            blocked.append(late)


@contextlib.asynccontextmanager
async def guarded_loop() -> AsyncIterator[tuple[list[dict[str, Any]], list[float]]]:
    """While inside, collect the loop's unhandled exceptions and its blocked spells (seconds)."""
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    blocked: list[float] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    beat = asyncio.create_task(_heartbeat(blocked), name="loop guard heartbeat")
    try:
        yield unhandled, blocked
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        loop.set_exception_handler(previous)


def describe(context: dict[str, Any]) -> str:
    error = context.get("exception")
    return f"{context.get('message', '')} {error!r}" if error is not None else str(context.get("message"))


def settle_between_tests(tests_run: int) -> None:
    """Between two tests: keep what is alive now out of the collections that may run inside the next one."""
    if tests_run % COLLECT_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()
