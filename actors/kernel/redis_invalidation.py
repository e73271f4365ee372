"""Cache invalidations between nodes over one Redis pub/sub channel (`OBEYA_REDIS_URL` set).

`node.invalidate(change)` applies a change to its own node's caches and hands it to `publish`, which only
queues it (a writer never waits for Redis); a sender task publishes what is queued, in order, batched, under
this node's random origin. Every node's listener applies what it hears from other origins (a node never needs
its own message back: it applied the change before publishing). A revoked key, an ended session, a role
changed or an organization's settings thus reach every node within the channel's latency instead of a cache's
TTL.

Redis going away loses nothing for good: the listener reconnects with a backoff (0.1 s doubling up to 5 s,
actors/runtime/redis_subscription.py), and once subscribed again it drops every cache of its node, since it
may have missed invalidations meanwhile. A change whose publication fails is retried with the same backoff;
past `MAX_PENDING` queued changes the new ones are dropped with a warning (the caches' TTLs still bound how
long another node may hold a stale answer).
"""

from __future__ import annotations

import asyncio
import secrets

import msgspec
import redis.asyncio as redis
import structlog
from redis.exceptions import RedisError

from actors.kernel.invalidation import Invalidation
from actors.kernel.node import Node
from actors.runtime.redis_subscription import FIRST_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS, RedisSubscription

log = structlog.get_logger("obeya.invalidation")

CHANNEL = "obeya:invalidate"
# Changes waiting to be published; a burst past this is dropped (the TTLs bound the staleness it causes).
MAX_PENDING = 10_000
# Changes sent in one message at most.
BATCH = 100


class Envelope(msgspec.Struct, frozen=True):
    origin: str
    changes: list[Invalidation]


class RedisInvalidations:
    def __init__(self, url: str, node: Node, *, channel: str = CHANNEL) -> None:
        self._url = url
        self._node = node
        self._channel = channel
        self.origin = secrets.token_hex(8)
        self._client: redis.Redis | None = None
        self._pending: asyncio.Queue[Invalidation] = asyncio.Queue(MAX_PENDING)
        self._decoder = msgspec.json.Decoder(Envelope)
        self._subscription: RedisSubscription | None = None
        self._sender: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Subscribe (before the node serves: nothing another node changes from then on is missed), then
        listen and send in tasks of their own, and route the node's invalidations here."""
        # Named after the origin: an operator (or a test) can tell this node's connections apart in CLIENT LIST.
        name = f"obeya-invalidation-{self.origin}"
        self._client = redis.from_url(self._url, client_name=name)
        self._subscription = RedisSubscription.from_url(self._url, self._channel, self._hear, client_name=name,
                                                        on_resubscribed=self._missed)
        await self._subscription.start()
        self._sender = asyncio.get_running_loop().create_task(self._send(), name="invalidation:send")
        self._node.broadcast = self.publish

    @property
    def subscription(self) -> RedisSubscription:
        assert self._subscription is not None, "started"
        return self._subscription

    async def stop(self) -> None:
        if self._node.broadcast == self.publish:
            self._node.broadcast = None
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        if self._subscription is not None:
            await self._subscription.stop()
        if self._client is not None:
            await self._client.aclose()

    def publish(self, change: Invalidation) -> None:
        """Queue `change` for the other nodes; never waits."""
        try:
            self._pending.put_nowait(change)
        except asyncio.QueueFull:
            log.warning("invalidation_dropped", change=type(change).__name__, pending=MAX_PENDING)

    # -- inside ----------------------------------------------------------------------------------------

    def _missed(self) -> None:
        self._node.forget_everything()  # whatever was published while away was missed

    def _hear(self, data: bytes) -> None:
        try:
            envelope = self._decoder.decode(data)
        except msgspec.DecodeError:
            log.exception("invalidation_unreadable")
            return
        if envelope.origin == self.origin:
            return
        for change in envelope.changes:
            self._node.drop_stale(change)

    async def _send(self) -> None:
        assert self._client is not None
        while True:
            changes = [await self._pending.get()]
            while len(changes) < BATCH and not self._pending.empty():
                changes.append(self._pending.get_nowait())
            payload = msgspec.json.encode(Envelope(self.origin, changes))
            backoff = FIRST_BACKOFF_SECONDS
            while True:
                try:
                    await self._client.publish(self._channel, payload)
                    break
                except (RedisError, OSError) as error:
                    log.warning("invalidation_publish_failed", error=repr(error), retry_in=backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
