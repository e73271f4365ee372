"""A Redis pub/sub subscription that outlives Redis restarts: subscribe, hand every message on, and when the
connection is lost, back off (0.1 s doubling up to 5 s) and subscribe again, then call the owner's hook, since
whatever was published meanwhile was missed (a channel keeps nothing for an absent subscriber).

The one reconnect loop of every Redis listener (the live fan-out, the cache invalidations, a node's inbox).
`from_url` and `alongside` build its client with redis-py's own retries turned off: a retry would reconnect and
resubscribe inside `get_message` without telling anyone, and the hooks would not run for what was missed.

A loss is logged once as a warning (`redis_subscription_lost`) and the return as an info line
(`redis_subscription_back`, with how long the channel was away); `observe` (the node's metrics) counts
each resubscription by channel.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from actors.runtime.redis_errors import REDIS_AWAY

log = structlog.get_logger(__name__)

FIRST_BACKOFF_SECONDS = 0.1
MAX_BACKOFF_SECONDS = 5.0
# How long subscribing waits for Redis to confirm it.
CONFIRM_SECONDS = 5.0

OnMessage = Callable[[bytes], Awaitable[None] | None]
OnResubscribed = Callable[[], Awaitable[None] | None]
OnLost = Callable[[], None]
Observe = Callable[[str], None]


class RedisSubscription:
    """`start()` subscribes to `channel` and returns once Redis confirmed it (nothing published from then on is
    missed while the connection holds); each message's data goes to `on_message`, one at a time, in order.
    When the connection is lost it calls `on_lost` at once; it subscribes again and awaits `on_resubscribed`
    before it reads on (messages published meanwhile wait in the connection), so the hook may read what was
    missed with no message interleaved. A failing `on_message` or hook is logged and the subscription goes on.
    `stop()` unsubscribes and waits for Redis to confirm it (messages read meanwhile are handed on), so nothing
    published after it returned counts this subscriber."""

    def __init__(self, client: redis.Redis, channel: str, on_message: OnMessage, *,
                 on_resubscribed: OnResubscribed | None = None, on_lost: OnLost | None = None,
                 first_backoff: float = FIRST_BACKOFF_SECONDS, max_backoff: float = MAX_BACKOFF_SECONDS) -> None:
        self.channel = channel
        self.resubscribed = 0  # how many times the subscription was lost and taken again
        # Told the channel after each resubscription (the node's metrics).
        self.observe: Observe | None = None
        self._client = client
        self._owns_client = False
        self._on_message = on_message
        self._on_resubscribed = on_resubscribed
        self._on_lost = on_lost
        self._first_backoff = first_backoff
        self._max_backoff = max_backoff
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str, channel: str, on_message: OnMessage, *, client_name: str | None = None,
                 on_resubscribed: OnResubscribed | None = None) -> RedisSubscription:
        """A subscription on a client of its own (closed by `stop()`) that never reconnects behind its back."""
        client = redis.from_url(url, client_name=client_name, retry=Retry(NoBackoff(), 0))
        subscription = cls(client, channel, on_message, on_resubscribed=on_resubscribed)
        subscription._owns_client = True
        return subscription

    @classmethod
    def alongside(cls, client: redis.Redis, channel: str, on_message: OnMessage, *,
                  on_resubscribed: OnResubscribed | None = None, on_lost: OnLost | None = None) -> RedisSubscription:
        """A subscription on a client of its own (closed by `stop()`), with `client`'s connection settings but
        none of its retries."""
        shared = client.connection_pool
        pool = redis.ConnectionPool(connection_class=shared.connection_class,
                                    **{**shared.connection_kwargs, "retry": Retry(NoBackoff(), 0)})
        subscription = cls(redis.Redis(connection_pool=pool), channel, on_message, on_resubscribed=on_resubscribed,
                           on_lost=on_lost)
        subscription._owns_client = True
        return subscription

    async def start(self) -> None:
        self._pubsub = await self._subscribe()
        self._listener = asyncio.get_running_loop().create_task(self._listen(), name=f"subscription:{self.channel}")

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
            self._listener = None
        if self._pubsub is not None:
            try:
                await self._pubsub.unsubscribe(self.channel)
                await self._confirmed(self._pubsub, "unsubscribe", hand_on=True)
            except (*REDIS_AWAY, TimeoutError) as error:
                log.warning("redis_subscription_unsubscribe_failed", channel=self.channel, error=repr(error))
        await self._close()
        if self._owns_client:
            await self._client.aclose()

    async def _subscribe(self) -> Any:
        pubsub: Any = self._client.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            await self._confirmed(pubsub, "subscribe", hand_on=False)  # SUBSCRIBE is only sent above
        except BaseException:
            await pubsub.aclose()
            raise
        return pubsub

    async def _confirmed(self, pubsub: Any, kind: str, *, hand_on: bool) -> None:
        """Read until Redis confirms `kind`, handing messages read meanwhile on if `hand_on`."""
        async with asyncio.timeout(CONFIRM_SECONDS):
            while True:
                message = await pubsub.get_message(timeout=CONFIRM_SECONDS)
                if message is None:
                    continue
                if message.get("type") == kind:
                    return
                if hand_on and message.get("type") == "message":
                    await self._hand_on(message["data"])

    async def _close(self) -> None:
        if self._pubsub is not None:
            pubsub, self._pubsub = self._pubsub, None
            try:
                await pubsub.aclose()
            except REDIS_AWAY:
                pass  # the connection is gone already

    async def _listen(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            except REDIS_AWAY as error:
                await self._resubscribe(error)
                continue
            if message is not None and message.get("type") == "message":
                await self._hand_on(message["data"])

    async def _hand_on(self, data: bytes) -> None:
        try:
            await _settle(self._on_message(data))
        except Exception:
            log.exception("redis_subscription_message_failed", channel=self.channel)

    async def _resubscribe(self, error: BaseException) -> None:
        lost_at = time.monotonic()
        log.warning("redis_subscription_lost", channel=self.channel, error=repr(error))
        if self._on_lost is not None:
            try:
                self._on_lost()
            except Exception:
                log.exception("redis_subscription_hook_failed", channel=self.channel)
        await self._close()
        backoff = self._first_backoff
        attempts = 0
        while self._pubsub is None:
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)
            attempts += 1
            try:
                self._pubsub = await self._subscribe()
            except (*REDIS_AWAY, TimeoutError) as again:
                log.debug("redis_subscription_retry", channel=self.channel, error=repr(again), retry_in=backoff)
        away = time.monotonic() - lost_at
        self.resubscribed += 1
        log.info("redis_subscription_back", channel=self.channel, away_seconds=round(away, 3), attempts=attempts)
        if self.observe is not None:
            self.observe(self.channel)
        if self._on_resubscribed is not None:
            try:
                await _settle(self._on_resubscribed())
            except Exception:
                log.exception("redis_subscription_hook_failed", channel=self.channel)


async def _settle(result: Awaitable[None] | None) -> None:
    if inspect.isawaitable(result):
        await result
