"""Committed events from the node that committed them to the Socket.IO gateway of every node, over one Redis
pub/sub channel. Each node delivers what it hears to its own sockets (web/socket_gateway.py), so the
channel carries one message per committed batch, whatever the number of sockets.

A message lost on the way (a Redis reconnect) is not lost to screens: a room that later hears a seq past
its own fills the gap from the event log."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import redis.asyncio as redis
import structlog

log = structlog.get_logger("obeya.live")

CHANNEL = "obeya:committed"

Deliver = Callable[[list[dict[str, Any]]], Awaitable[None]]


class RedisFanout:
    def __init__(self, url: str, deliver: Deliver) -> None:
        self._url = url
        self._deliver = deliver
        self._client: redis.Redis | None = None
        self._listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._client = redis.from_url(self._url)
        pubsub = self._client.pubsub()
        await pubsub.subscribe(CHANNEL)
        self._listener = asyncio.get_running_loop().create_task(self._listen(pubsub), name="gateway:fanout")

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()

    async def publish(self, items: list[dict[str, Any]]) -> None:
        assert self._client is not None
        await self._client.publish(CHANNEL, msgspec.json.encode(items))

    async def _listen(self, pubsub: Any) -> None:
        try:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
                if message is None or message.get("type") != "message":
                    continue
                try:
                    await self._deliver(msgspec.json.decode(message["data"]))
                except Exception:
                    log.exception("fanout_delivery_failed")
        finally:
            await pubsub.aclose()
