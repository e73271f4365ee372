"""The loop guard every async test runs under sees a blocked loop and an exception nobody read, and does
not mistake an idle or busy-but-yielding loop, one stopped between two runs, or one whose process was kept off the
CPU (as a busy host does), for a blocked one. Sync tests: each runs its own loop."""

from __future__ import annotations

import asyncio
import gc
import linecache
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
import uvloop

from tests.loop_guard import BLOCKED_SECONDS, guarded_loop


def _hold_the_loop() -> None:
    """Compute on the loop's thread for twice the limit of its CPU time (on a busy machine that takes longer)."""
    deadline = time.thread_time() + BLOCKED_SECONDS * 2
    while time.thread_time() < deadline:
        pass


def test_a_callback_holding_the_loop_past_the_limit_is_reported_with_where_it_was() -> None:
    async def scenario() -> list[tuple[float, list[str]]]:
        async with guarded_loop() as (_, blocked):
            await asyncio.sleep(0.05)
            _hold_the_loop()
            await asyncio.sleep(0.05)  # the step's end
        return blocked

    scenario_name = scenario.__qualname__
    blocked = asyncio.run(scenario())
    assert [late > BLOCKED_SECONDS for late, _ in blocked] == [True]
    spell, slow = blocked[0][1]
    assert re.fullmatch(r"\d+ callbacks ran for \d+ ms, garbage collection took \d+ ms .*, the thread ran \d+ ms"
                        r" on a CPU and waited \d+ ms for one", spell), spell
    step, where = slow.split(" ms in ")[1].removesuffix(")").split(" (now at ")
    assert step == "a step of " + scenario_name
    path, line = where.rsplit(":", 1)
    source = linecache.getline(path, int(line)).strip()
    assert (path, source) == (__file__, "await asyncio.sleep(0.05)  # the step's end")


def _between_two_runs(then: Callable[[asyncio.AbstractEventLoop], None],
                      new_loop: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop,
                      ) -> list[tuple[float, list[str]]]:
    """The guard entered in one run of a loop and left in another, as pytest runs async fixtures; `then` in
    between."""
    loop = new_loop()
    try:
        guard = guarded_loop()
        _, blocked = loop.run_until_complete(guard.__aenter__())
        loop.run_until_complete(asyncio.sleep(0.05))
        then(loop)
        loop.run_until_complete(asyncio.sleep(0.05))
        loop.run_until_complete(guard.__aexit__(None, None, None))
    finally:
        loop.close()
    return blocked


@pytest.mark.parametrize("new_loop", [asyncio.new_event_loop, uvloop.new_event_loop])
def test_the_stretch_between_two_runs_of_the_loop_is_not_a_blocked_loop(
        new_loop: Callable[[], asyncio.AbstractEventLoop]) -> None:
    def pytests_own_code(_: asyncio.AbstractEventLoop) -> None:  # between two async fixtures
        time.sleep(BLOCKED_SECONDS * 2)

    assert _between_two_runs(pytests_own_code, new_loop) == []


def test_on_uvloop_a_callback_holding_the_loop_just_before_it_stops_is_reported_without_timings() -> None:
    async def hold() -> None:
        _hold_the_loop()

    blocked = _between_two_runs(lambda loop: loop.run_until_complete(hold()), uvloop.new_event_loop)
    assert [late > BLOCKED_SECONDS for late, _ in blocked] == [True]
    assert blocked[0][1][0].startswith("callbacks not timed on uvloop")


def test_a_callback_holding_the_loop_just_before_it_stops_is_reported() -> None:
    async def hold() -> None:
        _hold_the_loop()

    blocked = _between_two_runs(lambda loop: loop.run_until_complete(hold()))
    assert [late > BLOCKED_SECONDS for late, _ in blocked] == [True]
    assert [slow.split(" ms in ")[1] for slow in blocked[0][1][1:]] == [f"a step of {hold.__qualname__}"]


def test_a_loop_that_keeps_yielding_is_not_blocked() -> None:
    async def scenario() -> list[tuple[float, list[str]]]:
        async with guarded_loop() as (_, blocked):
            deadline = time.monotonic() + BLOCKED_SECONDS * 3
            while time.monotonic() < deadline:
                time.sleep(0.005)
                await asyncio.sleep(0)
        return blocked

    assert asyncio.run(scenario()) == []


@pytest.mark.parametrize("new_loop", [asyncio.new_event_loop, uvloop.new_event_loop])
def test_a_loop_whose_process_was_kept_off_the_cpu_is_not_blocked(
        new_loop: Callable[[], asyncio.AbstractEventLoop]) -> None:
    """Another process stops this one for three times the limit, as a host busy elsewhere keeps a VM waiting: the
    beats come late, but the loop's thread ran no code meanwhile."""
    async def scenario() -> list[tuple[float, list[str]]]:
        async with guarded_loop() as (_, blocked):
            await asyncio.sleep(0.05)
            stopper = subprocess.Popen([sys.executable, "-c", "import os, signal, sys, time; pid = int(sys.argv[1]);"
                                        " os.kill(pid, signal.SIGSTOP); time.sleep(0.3); os.kill(pid, signal.SIGCONT)",
                                        str(os.getpid())])
            started = time.perf_counter()
            while time.perf_counter() - started < 0.3:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(stopper.wait)
        return blocked

    loop = new_loop()
    try:
        started = time.perf_counter()
        assert loop.run_until_complete(scenario()) == []
        assert time.perf_counter() - started >= 0.3
    finally:
        loop.close()


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
