"""A stall probe for benchmarks (off unless OBEYA_STALL_LOG names a file): a task that asks the loop to wake
it every few milliseconds and writes one JSON line for each wake-up that came more than OBEYA_STALL_MS late,
with the garbage collections that ran in that time (gc.callbacks). A stall with no collection in it was
Python code holding the loop. A request can also be slow with the loop free, waiting for something (a pool
connection, a lock): every WAIT_CHECK_TICKS ticks the probe looks at where each request's task waits, and
writes down a request that waited at the same await for more than OBEYA_STALL_WAIT_MS, with that await chain.
bench/stall_guard.py reads the file, fails on a stall over its limit and lists the waits."""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

# How often the probe asks to be woken: the finest stall it can see, and its cost (a few hundred wake-ups a
# second, next to thousands of requests).
TICK_SECONDS = 0.005
DEFAULT_STALL_MS = 20.0
DEFAULT_WAIT_MS = 100.0
WAIT_CHECK_TICKS = 10
# A wait is written down as its innermost frames of this project's code, then the frame it waits in.
WAIT_FRAMES = 4
_PROJECT = str(Path(__file__).resolve().parents[1]) + "/"


class _GcTimer:
    """The collections since the last `take()`: (generation, milliseconds) each, timed by gc.callbacks."""

    def __init__(self) -> None:
        self._began = 0.0
        self._collections: list[tuple[int, float]] = []

    def __call__(self, phase: str, info: Mapping[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self._collections.append((int(info["generation"]), (time.perf_counter() - self._began) * 1000))

    def take(self) -> list[tuple[int, float]]:
        taken, self._collections = self._collections, []
        return taken


def _await_chain(task: asyncio.Task[Any]) -> tuple[tuple[str, bool], ...]:
    """Where `task` waits: each coroutine of its await chain, outermost first, as ("file:line function", whether
    the file is this project's)."""
    frames = []
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            break
        path = frame.f_code.co_filename
        frames.append((f"{Path(path).name}:{frame.f_lineno} {frame.f_code.co_name}", path.startswith(_PROJECT)))
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return tuple(frames)


def _where(chain: tuple[tuple[str, bool], ...]) -> str:
    ours = [frame for frame, project in chain if project][-WAIT_FRAMES:]
    return " > ".join([*ours, "...", chain[-1][0]] if not chain[-1][1] else ours)


class _Waits:
    """Requests waiting at one await for longer than `wait_ms`. aiohttp answers a connection's requests in that
    connection's task: a task whose await chain passes through its request handler is a request in progress, and
    the same chain seen again later is the same wait (written down once)."""

    def __init__(self, wait_ms: float) -> None:
        self._wait_ms = wait_ms
        self._seen: dict[asyncio.Task[Any], tuple[tuple[tuple[str, bool], ...], float, bool]] = {}

    def check(self, now: float) -> list[dict[str, Any]]:
        found = []
        seen = {}
        for task in asyncio.all_tasks():
            chain = _await_chain(task)
            if not any(frame.endswith(" _handle_request") for frame, _ in chain):
                continue
            before = self._seen.get(task)
            if before is None or before[0] != chain:
                seen[task] = (chain, now, False)
                continue
            waited_ms = (now - before[1]) * 1000
            if waited_ms > self._wait_ms and not before[2]:
                found.append({"at": round(time.time(), 3), "wait_ms": round(waited_ms),
                              "waiting_in": _where(chain)})
                before = (chain, before[1], True)
            seen[task] = before
        self._seen = seen
        return found


async def _watch(out: TextIO, stall_ms: float, wait_ms: float) -> None:
    timer = _GcTimer()
    waits = _Waits(wait_ms)
    gc.callbacks.append(timer)
    try:
        for tick in itertools.count():
            asked = time.perf_counter()
            await asyncio.sleep(TICK_SECONDS)
            woken = time.perf_counter()
            late_ms = (woken - asked - TICK_SECONDS) * 1000
            collections = timer.take()
            lines = [{"at": round(time.time(), 3), "late_ms": round(late_ms, 1),
                      "gc_ms": round(sum(ms for _, ms in collections), 1),
                      "gc": [[generation, round(ms, 1)] for generation, ms in collections if ms >= 1]}
                     ] if late_ms > stall_ms else []
            if tick % WAIT_CHECK_TICKS == 0:
                lines += waits.check(woken)
            if lines:
                out.writelines(json.dumps(line) + "\n" for line in lines)
                out.flush()
    finally:
        gc.callbacks.remove(timer)


def _milliseconds(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        value = -1.0
    if not value > 0:
        raise SystemExit(f"{name} must be a number of milliseconds above 0")
    return value


def start(env: Mapping[str, str]) -> asyncio.Task[None] | None:
    """The probe's task on the running loop when OBEYA_STALL_LOG is set, else None."""
    path = env.get("OBEYA_STALL_LOG")
    if not path:
        return None
    out = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the process's lifetime
    stall_ms = _milliseconds(env, "OBEYA_STALL_MS", DEFAULT_STALL_MS)
    wait_ms = _milliseconds(env, "OBEYA_STALL_WAIT_MS", DEFAULT_WAIT_MS)
    return asyncio.get_running_loop().create_task(_watch(out, stall_ms, wait_ms))
