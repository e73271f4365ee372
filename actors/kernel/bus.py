"""The node's event bus: committed events are handed here (by the actor runtime's publish hook, and by
services after their transaction commits) and passed to every subscriber (the Socket.IO gateway, later
the webhook and automation dispatchers). Subscribers must be quick: hand heavy work to a queue."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence

import structlog

from storage.events import StoredEvent

log = structlog.get_logger("obeya.events")

Subscriber = Callable[[Sequence[StoredEvent]], Awaitable[None] | None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.remove(subscriber)

    async def publish(self, events: Sequence[StoredEvent]) -> None:
        """Deliver committed events, in order; a failing subscriber is logged and does not stop the rest."""
        if not events:
            return
        for subscriber in list(self._subscribers):
            try:
                result = subscriber(events)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("event_subscriber_failed", subscriber=repr(subscriber))
