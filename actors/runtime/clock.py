"""Time as a dependency: the runtime and the services take a clock so that tests drive time instead of
sleeping."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...
    def monotonic(self) -> float: ...
    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that only moves when told to; sleepers wake when `advance` passes their deadline."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
        self._mono = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self._mono + seconds, future))
        await future

    async def until_sleeping(self, count: int = 1) -> None:
        """Return once at least `count` sleepers wait on this clock, so a test's `advance` reaches them."""
        while sum(not future.done() for _, future in self._sleepers) < count:
            await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        self._mono += seconds
        self._now += timedelta(seconds=seconds)
        due = [entry for entry in self._sleepers if entry[0] <= self._mono]
        self._sleepers = [entry for entry in self._sleepers if entry[0] > self._mono]
        for _, future in due:
            if not future.done():
                future.set_result(None)
