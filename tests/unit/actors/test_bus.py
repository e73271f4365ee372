"""The bus never waits for a consumer: a blocked consumer does not hold `publish`, one that overflows its
queue catches up from the log by seq (each event once, in order), and a failing one stops nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

from actors.runtime.bus import AccessChange, EventBus
from storage.events import StoredEvent

ORG = "org_test"
STREAM = "board:brd_test"


def event(seq: int, stream: str = STREAM) -> StoredEvent:
    return StoredEvent(id=f"evt_{seq}", organization_id=ORG, stream=stream, seq=seq, name="item.updated",
                       payload={}, created_at=datetime(2026, 1, 1, tzinfo=UTC))


class Log:
    """An in-memory event log with the shape of storage.events.read."""

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []

    async def read(self, org_id: str, stream: str, since: int, limit: int) -> list[StoredEvent]:
        return [e for e in self.events if (e.organization_id, e.stream) == (org_id, stream) and e.seq > since][:limit]

    def commit(self, count: int) -> list[StoredEvent]:
        start = len(self.events)
        self.events.extend(event(start + n + 1) for n in range(count))
        return self.events[start:]


async def test_publish_returns_while_a_consumer_is_blocked_and_it_gets_everything_afterwards() -> None:
    bus, log, gate = EventBus(), Log(), asyncio.Event()
    seen: list[int] = []

    async def blocked(events: Sequence[StoredEvent]) -> None:
        await gate.wait()
        seen.extend(e.seq for e in events)

    bus.subscribe("slow", blocked, capacity=4, read=log.read)
    for _ in range(50):  # far more batches than the queue holds
        await bus.publish(log.commit(1))
    assert seen == []
    gate.set()
    await bus.drained()
    assert seen == list(range(1, 51))
    await bus.close()


async def test_a_failing_consumer_is_logged_and_the_others_go_on() -> None:
    bus, log = EventBus(), Log()
    seen: list[int] = []

    def broken(events: Sequence[StoredEvent]) -> None:
        raise RuntimeError("bug")

    bus.subscribe("broken", broken, read=log.read)
    bus.subscribe("fine", lambda events: seen.extend(e.seq for e in events), read=log.read)
    await bus.publish(log.commit(2))
    await bus.publish(log.commit(1))
    await bus.drained()
    assert seen == [1, 2, 3]
    await bus.close()


async def test_access_signals_reach_watchers_before_publish_returns() -> None:
    bus = EventBus()
    changes: list[AccessChange] = []
    bus.watch_access(changes.append)
    bus.access_changed(AccessChange(credential_id="key_1"))
    assert changes == [AccessChange(credential_id="key_1")]


async def test_a_consumer_keeps_nothing_of_its_catch_ups_once_its_queue_is_empty() -> None:
    """Catching up remembers, per stream, what queued events to skip; once nothing is queued that memory is
    dropped, so a node whose consumer fell behind on many quiet streams does not keep them all for good."""
    bus, gate = EventBus(), asyncio.Event()
    committed = [event(1, f"user:{ORG}:usr_{n}") for n in range(200)]  # one event on each of 200 streams
    seen: list[str] = []

    async def read(org_id: str, stream: str, since: int, limit: int) -> list[StoredEvent]:
        return [e for e in committed if e.stream == stream and e.seq > since][:limit]

    async def blocked(events: Sequence[StoredEvent]) -> None:
        await gate.wait()
        seen.extend(e.stream for e in events)

    bus.subscribe("slow", blocked, capacity=4, read=read)
    for stored in committed:
        await bus.publish([stored])
    gate.set()
    await bus.drained()
    assert sorted(seen) == sorted(e.stream for e in committed)  # each once
    assert bus._consumers["slow"].caught == {}
    await bus.close()
