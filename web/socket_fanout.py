"""Committed events from the node that committed them to the Socket.IO gateway of every node, over one Redis
pub/sub channel. Each node delivers what it hears to its own sockets (web/socket_gateway.py), so the
channel carries one message per committed batch, whatever the number of sockets.

A message lost on the way is not lost to screens. While Redis is away, a publish fails (logged once, as
`fanout_publish_failed`) and the subscription is lost; it comes back by itself
(actors/runtime/redis_subscription.py), and then, before it reads on, `caught_up` has every room of the node
take from the event log what was committed meanwhile. A room that later hears a seq past its own fills the gap
from the event log too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import redis.asyncio as redis
import structlog

from actors.runtime.redis_errors import REDIS_AWAY
from actors.runtime.redis_subscription import RedisSubscription

log = structlog.get_logger("obeya.live")

CHANNEL = "obeya:committed"

Deliver = Callable[[list[dict[str, Any]]], Awaitable[None]]
CatchUp = Callable[[], Awaitable[None]]


class RedisFanout:
    def __init__(self, url: str, deliver: Deliver, caught_up: CatchUp) -> None:
        self._url = url
        self._deliver = deliver
        self._client: redis.Redis | None = None
        self._publish_failing = False
        self.subscription = RedisSubscription.from_url(url, CHANNEL, self._hear, on_resubscribed=caught_up)

    async def start(self) -> None:
        self._client = redis.from_url(self._url)
        await self.subscription.start()

    async def stop(self) -> None:
        await self.subscription.stop()
        if self._client is not None:
            await self._client.aclose()

    async def publish(self, items: list[dict[str, Any]]) -> None:
        """Publish a committed batch. Tried twice: the first command after a Redis restart fails on the
        connection Redis closed, and the subscriptions of the other nodes may be back (and caught up) already.
        When Redis is away, the batch is left to the catch-up that follows the return of every node's
        subscription (this one's included)."""
        assert self._client is not None
        data = msgspec.json.encode(items)
        for attempt in (1, 2):
            try:
                await self._client.publish(CHANNEL, data)
                break
            except REDIS_AWAY as error:
                if attempt == 2:
                    if not self._publish_failing:
                        log.warning("fanout_publish_failed", error=repr(error))
                    self._publish_failing = True
                    return
        if self._publish_failing:
            log.info("fanout_publish_back")
            self._publish_failing = False

    async def _hear(self, data: bytes) -> None:
        await self._deliver(msgspec.json.decode(data))
