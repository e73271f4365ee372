"""The autouse guard of every async test: it fails the test when its event loop reported an unhandled
exception (a task's exception nobody read, an exception in a callback) or was blocked for longer than
BLOCKED_SECONDS.

Blocking is measured by a heartbeat, a task that asks to wake every HEARTBEAT_SECONDS. A late beat alone proves
nothing on a shared machine: the loop's thread may have waited for a CPU, or the whole machine for its host (the
VM's steal time). What Linux proves is how long the loop's thread ran on a CPU (/proc/thread-self/schedstat, which
counts neither the wait for a CPU nor the host's steal): a beat that was late and during which the thread ran for
longer than BLOCKED_SECONDS is a blocked loop, whoever else was busy. A blocking call that sleeps (time.sleep, a
synchronous socket) is not counted: it cannot be told apart from the host taking the CPU away. Where the kernel
does not say, lateness alone is measured. Every callback of an asyncio loop is also timed (uvloop's are out of
reach), and a blocked spell lists those that ran longer than SLOW_CALLBACK_SECONDS in it. (Sampling the loop
thread's stack from another thread, to name what held a uvloop loop, crashed CPython 3.11 in a frame's f_back: not
done.) Between two `run_until_complete` calls (one async fixture and the next) the loop is stopped while pytest
runs its own code: nothing is measured then; a beat is measured up to the stop and begins again when the loop runs.

A full garbage collection of the test process's heap (everything earlier tests left) stalls the loop for
100-400 ms, as it would stall a server that `obeya serve` had not frozen (server/cli.py). So, as the
server does, the tests freeze what is alive between tests (`settle_between_tests`), and collect fully
every COLLECT_EVERY tests, outside any test's loop. The oldest generation's automatic collections still run
inside tests, over what the test made since the last freeze (a whole app and its clients per test): 30-85 ms
measured, making up whole blocked spells. Their time is counted through `gc.callbacks` and subtracted like the
run delay; a younger generation's collection, or any other work, still counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

# aiohttp's and asyncpg's own test suites fail a test that blocks the loop; 100 ms is what a user notices.
BLOCKED_SECONDS = 0.1
HEARTBEAT_SECONDS = 0.02
SLOW_CALLBACK_SECONDS = 0.03
_SCHEDSTAT = "/proc/thread-self/schedstat"
# A full collection takes about a second with the whole suite's heap; every 200 tests keeps memory flat.
COLLECT_EVERY = 200


def _cpu_times() -> tuple[float, float] | None:
    """Seconds this thread has run on a CPU, and has spent runnable but waiting for one (None where the kernel
    does not say)."""
    try:
        with open(_SCHEDSTAT, "rb") as stat:
            ran, waited = stat.read().split()[:2]
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return None


_slow_callbacks: list[tuple[float, float, str]] = []  # (ended, seconds, what ran)
# Totals since the process started, read at both ends of a beat: seconds in callbacks and how many ran; seconds
# in garbage collection, of which in the oldest generation's; when the collection running began.
_ran = {"seconds": 0.0, "count": 0}
_collecting = {"seconds": 0.0, "oldest": 0.0, "since": 0.0}


def _count_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _collecting["since"] = time.perf_counter()
        return
    took = time.perf_counter() - _collecting["since"]
    _collecting["seconds"] += took
    if info["generation"] == 2:
        _collecting["oldest"] += took


gc.callbacks.append(_count_collection)


def _callback_named(handle: asyncio.Handle) -> str:
    """What a slow callback was: for a task's step, the task's coroutine and where it stands now."""
    callback = handle._callback  # type: ignore[attr-defined]
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        frame = getattr(coro, "cr_frame", None)
        where = f" (now at {frame.f_code.co_filename}:{frame.f_lineno})" if frame is not None else ""
        return f"a step of {getattr(coro, '__qualname__', coro)!s}{where}"
    return repr(handle)


def _timed_run(run: Callable[[asyncio.Handle], None]) -> Callable[[asyncio.Handle], None]:
    def timed(handle: asyncio.Handle) -> None:
        started = time.perf_counter()
        try:
            run(handle)
        finally:
            ended = time.perf_counter()
            _ran["seconds"] += ended - started
            _ran["count"] += 1
            if ended - started > SLOW_CALLBACK_SECONDS:
                _slow_callbacks.append((ended, ended - started, _callback_named(handle)))
    return timed


# Every callback the loop runs is timed, so a blocked spell names what held the loop.
asyncio.Handle._run = _timed_run(asyncio.Handle._run)  # type: ignore[method-assign]


def _slow_since(since: float) -> list[str]:
    found = [f"{seconds * 1000:.0f} ms in {what}" for ended, seconds, what in _slow_callbacks if ended >= since]
    _slow_callbacks.clear()
    return found


class _Heartbeat:
    """A beat: a timer asked for HEARTBEAT_SECONDS ahead, measured by how late the loop ran it and how long the
    loop's thread ran on a CPU meanwhile. Between two `run_until_complete` calls (one async fixture and the next,
    say) the loop is stopped and pytest runs its own code: that stretch is nobody's callback, so a beat is measured
    up to the stop and starts afresh when the loop runs again."""

    def __init__(self, blocked: list[tuple[float, list[str]]], loop: asyncio.AbstractEventLoop) -> None:
        self.blocked = blocked
        # uvloop runs its own handles, which `_timed_run` does not reach.
        self.times_callbacks = isinstance(loop, asyncio.BaseEventLoop)
        self.begin()

    def begin(self) -> None:
        self.started, self.cpu = time.perf_counter(), _cpu_times()
        self.ran, self.callbacks = _ran["seconds"], _ran["count"]
        self.collected, self.collected_oldest = _collecting["seconds"], _collecting["oldest"]

    def measure(self) -> None:
        cpu, oldest = _cpu_times(), _collecting["oldest"] - self.collected_oldest
        late = time.perf_counter() - self.started - HEARTBEAT_SECONDS
        ran_on_cpu, waited = ((cpu[0] - self.cpu[0], cpu[1] - self.cpu[1]) if cpu is not None and self.cpu is not None
                              else (late, 0.0))
        held = min(late - waited, ran_on_cpu) - oldest
        slow = _slow_since(self.started)
        if held > BLOCKED_SECONDS:
            ran = (f"{_ran['count'] - self.callbacks} callbacks ran for {(_ran['seconds'] - self.ran) * 1000:.0f} ms"
                   if self.times_callbacks else "callbacks not timed on uvloop (OBEYA_EVENT_LOOP=asyncio times them)")
            spell = (f"{ran}, garbage collection took {(_collecting['seconds'] - self.collected) * 1000:.0f} ms"
                     f" ({oldest * 1000:.0f} ms of it in full collections, not counted); the beat was"
                     f" {late * 1000:.0f} ms late, the thread ran {ran_on_cpu * 1000:.0f} ms on a CPU and waited"
                     f" {waited * 1000:.0f} ms for one")
            self.blocked.append((held, [spell, *slow]))

    async def run(self) -> None:
        while True:
            self.begin()
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self.measure()

    def measured_while_running(self, run_forever: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            self.begin()
            try:
                run_forever()
            finally:
                self.measure()
        return run


@contextlib.asynccontextmanager
async def guarded_loop() -> AsyncIterator[tuple[list[dict[str, Any]], list[tuple[float, list[str]]]]]:
    """While inside, collect the loop's unhandled exceptions and its blocked spells (seconds, with the callbacks
    that ran longer than SLOW_CALLBACK_SECONDS during the spell)."""
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    blocked: list[tuple[float, list[str]]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    heartbeat = _Heartbeat(blocked, loop)
    loop.run_forever = heartbeat.measured_while_running(loop.run_forever)  # type: ignore[method-assign]
    beat = asyncio.create_task(heartbeat.run(), name="loop guard heartbeat")
    try:
        yield unhandled, blocked
    finally:
        beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beat
        del loop.run_forever
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
