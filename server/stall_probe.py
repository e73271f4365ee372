"""A stall probe for benchmarks (off unless OBEYA_STALL_LOG names a file): a task that asks the loop to wake
it every few milliseconds and writes one JSON line for each wake-up that came more than OBEYA_STALL_MS late,
with the garbage collections that ran in that time (gc.callbacks). A stall with no collection in it was
Python code holding the loop; bench/stall_guard.py reads the file and fails on any line over its limit."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Mapping
from typing import Any, TextIO

# How often the probe asks to be woken: the finest stall it can see, and its cost (a few hundred wake-ups a
# second, next to thousands of requests).
TICK_SECONDS = 0.005
DEFAULT_STALL_MS = 20.0


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


async def _watch(out: TextIO, stall_ms: float) -> None:
    timer = _GcTimer()
    gc.callbacks.append(timer)
    try:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(TICK_SECONDS)
            late_ms = (time.perf_counter() - asked - TICK_SECONDS) * 1000
            collections = timer.take()
            if late_ms > stall_ms:
                out.write(json.dumps({
                    "at": round(time.time(), 3), "late_ms": round(late_ms, 1),
                    "gc_ms": round(sum(ms for _, ms in collections), 1),
                    "gc": [[generation, round(ms, 1)] for generation, ms in collections if ms >= 1]}) + "\n")
                out.flush()
    finally:
        gc.callbacks.remove(timer)


def start(env: Mapping[str, str]) -> asyncio.Task[None] | None:
    """The probe's task on the running loop when OBEYA_STALL_LOG is set, else None."""
    path = env.get("OBEYA_STALL_LOG")
    if not path:
        return None
    out = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the process's lifetime
    return asyncio.get_running_loop().create_task(_watch(out, float(env.get("OBEYA_STALL_MS", DEFAULT_STALL_MS))))
