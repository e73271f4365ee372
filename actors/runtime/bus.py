"""The node's event bus: committed events are handed here (by the write path and the actor runtime after
their commit) and passed to every consumer (the Socket.IO gateway, the webhook sender, the automation
engine) without the publisher ever waiting for one.

Each consumer has a bounded queue and its own task. `publish` only appends the batch to each queue and
returns. A consumer whose queue is full is "behind": its queue is dropped and, before it takes anything
new, it is handed the streams it missed from the event log by seq (`read`); queued events it already
got that way are skipped. A consumer therefore sees every committed event at least once; an event that
is published late after a catch-up may reach it twice, so consumers dedupe by (stream, seq) or event id
where that matters (the gateway does, per socket).

The bus also carries in-node access signals (`access_changed`): a revoked credential, a logout. They are
not events of the log; they are handed to the watchers at once, synchronously, so that anything
published afterwards is seen by a watcher only after it has reacted.

In the runtime, not the kernel: the actor system publishes every turn's events here and the kernel's write path
does the same, and the runtime imports nothing above it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import structlog

from storage.events import StoredEvent

log = structlog.get_logger("obeya.events")

Handle = Callable[[Sequence[StoredEvent]], Awaitable[None] | None]
Subscriber = Handle  # the actor runtime's name for it
# (organization id, stream, since, limit) -> events of the stream with seq > since, oldest first
LogReader = Callable[[str, str, int, int], Awaitable[Sequence[StoredEvent]]]

# Batches a consumer may have waiting before it is marked behind and catches up from the log instead.
DEFAULT_CAPACITY = 1024
# Events read from the log per query while catching up.
CATCH_UP_PAGE = 500
# How long a consumer waits before reading the log again after a failed read.
CATCH_UP_RETRY_SECONDS = 1.0


@dataclass(frozen=True)
class AccessChange:
    """Who may have lost access: every field set narrows it (all None: anybody of the organization)."""

    organization_id: str | None = None
    user_id: str | None = None
    credential_id: str | None = None  # an API key or personal token id
    session_digest: str | None = None  # a logged-out session


AccessWatcher = Callable[[AccessChange], None]


@dataclass
class _Consumer:
    name: str
    handle: Handle
    read: LogReader | None
    queue: asyncio.Queue[Sequence[StoredEvent]]
    # Streams whose events were dropped: (org, stream) -> the seq after which the log is read again.
    missed: dict[tuple[str, str], int] = field(default_factory=dict)
    # Streams caught up from the log: (org, stream) -> last seq handed; queued events up to it are skipped.
    caught: dict[tuple[str, str], int] = field(default_factory=dict)
    drops: int = 0  # how often the queue overflowed: a catch-up that saw it change reads once more
    busy: bool = False
    task: asyncio.Task[None] | None = None


class EventBus:
    def __init__(self) -> None:
        self._consumers: dict[str, _Consumer] = {}
        self._watchers: list[AccessWatcher] = []
        self._idle = asyncio.Condition()  # notified whenever a consumer finished a batch

    # -- consumers -----------------------------------------------------------------------------------

    def subscribe(self, name: str, handle: Handle, *, capacity: int = DEFAULT_CAPACITY,
                  read: LogReader | None = None) -> None:
        """Run `handle(events)` in a task of its own for every published batch. `read` lets a consumer
        that fell behind catch up from the log; without it the overflow is logged and lost."""
        if name in self._consumers:
            raise ValueError(f"a bus consumer named {name!r} is already subscribed")
        consumer = _Consumer(name, handle, read, asyncio.Queue(capacity))
        consumer.task = asyncio.get_running_loop().create_task(self._run(consumer), name=f"bus:{name}")
        self._consumers[name] = consumer

    def unsubscribe(self, name: str) -> None:
        consumer = self._consumers.pop(name, None)
        if consumer is not None and consumer.task is not None:
            consumer.task.cancel()

    async def close(self) -> None:
        """Stop every consumer task (the node is stopping)."""
        tasks = [c.task for c in self._consumers.values() if c.task is not None]
        self._consumers.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def publish(self, events: Sequence[StoredEvent]) -> None:
        """Hand committed events to every consumer's queue; never waits for a consumer."""
        if not events:
            return
        batch = tuple(events)
        for consumer in self._consumers.values():
            try:
                consumer.queue.put_nowait(batch)
            except asyncio.QueueFull:
                self._fall_behind(consumer, batch)

    async def drained(self) -> None:
        """Return once every consumer has handled everything published so far (a barrier for tests)."""
        async with self._idle:
            await self._idle.wait_for(lambda: not any(c.busy or not c.queue.empty() or c.missed
                                                      for c in self._consumers.values()))

    def behind(self, name: str) -> bool:
        """Whether the consumer has events to catch up from the log."""
        consumer = self._consumers.get(name)
        return consumer is not None and bool(consumer.missed)

    # -- access signals -------------------------------------------------------------------------------

    def watch_access(self, watcher: AccessWatcher) -> None:
        self._watchers.append(watcher)

    def unwatch_access(self, watcher: AccessWatcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    def access_changed(self, change: AccessChange) -> None:
        """A credential, session or membership changed: tell the watchers now (they must be quick)."""
        for watcher in list(self._watchers):
            try:
                watcher(change)
            except Exception:
                log.exception("access_watcher_failed", watcher=repr(watcher))

    # -- inside ------------------------------------------------------------------------------------

    def _fall_behind(self, consumer: _Consumer, batch: Sequence[StoredEvent]) -> None:
        dropped = [batch]
        while not consumer.queue.empty():
            dropped.append(consumer.queue.get_nowait())
        for events in dropped:
            for event in events:
                key = (event.organization_id, event.stream)
                since = event.seq - 1
                consumer.missed[key] = min(consumer.missed.get(key, since), since)
        consumer.drops += 1
        if consumer.read is None:
            log.error("bus_consumer_lost_events", consumer=consumer.name, streams=len(consumer.missed))
            consumer.missed.clear()
        else:
            log.warning("bus_consumer_behind", consumer=consumer.name, streams=len(consumer.missed))
        # Wake the consumer task if it waits on an empty queue: an empty batch makes it look at `missed`.
        consumer.queue.put_nowait(())

    async def _run(self, consumer: _Consumer) -> None:
        while True:
            batch = await consumer.queue.get()
            consumer.busy = True
            try:
                if consumer.missed:
                    await self._catch_up(consumer)
                events = self._fresh(consumer, batch)
                if events:
                    await self._call(consumer, events)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bus_consumer_failed", consumer=consumer.name)
            finally:
                if consumer.queue.empty() and not consumer.missed:
                    # Nothing queued is left to skip: forget the catch-ups, or a stream caught up once and
                    # quiet since would be kept for the node's lifetime. (An event committed before the
                    # catch-up's read but published after this may come twice: delivery is at least once.)
                    consumer.caught.clear()
                consumer.busy = False
                await self._notify_idle()

    async def _catch_up(self, consumer: _Consumer) -> None:
        assert consumer.read is not None
        while consumer.missed:
            key, since = next(iter(consumer.missed.items()))
            drops = consumer.drops
            try:
                page = await consumer.read(key[0], key[1], since, CATCH_UP_PAGE)
            except Exception:
                log.exception("bus_catch_up_failed", consumer=consumer.name, stream=key[1])
                await asyncio.sleep(CATCH_UP_RETRY_SECONDS)  # the database is away: try again
                continue
            if page:
                last = page[-1].seq
                consumer.caught[key] = max(consumer.caught.get(key, 0), last)
                # Events dropped meanwhile are above `since`; from `last` on they are read next.
                consumer.missed[key] = max(consumer.missed.get(key, last), last)
                await self._call(consumer, page)
            elif consumer.drops == drops:
                del consumer.missed[key]  # nothing more committed, and nothing dropped while reading

    def _fresh(self, consumer: _Consumer, batch: Sequence[StoredEvent]) -> Sequence[StoredEvent]:
        if not consumer.caught:
            return batch
        fresh = []
        for event in batch:
            key = (event.organization_id, event.stream)
            caught = consumer.caught.get(key)
            if caught is not None and event.seq <= caught:
                continue
            if caught is not None:
                del consumer.caught[key]  # the stream is past its catch-up: back to plain delivery
            fresh.append(event)
        return fresh

    async def _call(self, consumer: _Consumer, events: Sequence[StoredEvent]) -> None:
        try:
            result = consumer.handle(events)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("event_subscriber_failed", consumer=consumer.name)

    async def _notify_idle(self) -> None:
        async with self._idle:
            self._idle.notify_all()
