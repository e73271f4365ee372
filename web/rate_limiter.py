"""Request counting for the rate limits of each plan: fixed one-minute windows aligned to the
minute, behind one `RateLimiter` interface with an in-process implementation (one node) and a Redis one
(several nodes count together)."""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol

import redis.asyncio as redis
from redis.exceptions import RedisError

# The spec states every limit per minute; windows start on the minute so that `X-RateLimit-Reset` is the
# same for every node and every caller.
WINDOW_SECONDS = 60
# A Redis counter outlives its window by this much, so a node whose clock runs slightly behind still
# finds the counter of the window it is in.
REDIS_GRACE_SECONDS = 5


class Decision(NamedTuple):  # a tuple: made on every request, at a third of a frozen dataclass's cost
    allowed: bool
    remaining: int
    reset_at: int  # Unix time in seconds when the window ends and the count starts again

    def retry_after(self, now: float) -> int:
        """Whole seconds a refused caller should wait (at least 1)."""
        return max(1, math.ceil(self.reset_at - now))


class LimiterUnavailable(Exception):
    """The shared counter could not be reached; the edge lets the request through rather than fail it."""


class RateLimiter(Protocol):
    async def hit(self, key: str, limit: int, now: float) -> Decision:
        """Count one request of `key` at Unix time `now` against `limit` requests per window."""
        ...

    async def peek(self, key: str, limit: int, now: float) -> Decision:
        """Whether one more request of `key` would be within `limit`, without counting one."""
        ...


def _window(now: float) -> int:
    return int(now // WINDOW_SECONDS)


def _decision(count: int, limit: int, window: int) -> Decision:
    return Decision(allowed=count <= limit, remaining=max(0, limit - count),
                    reset_at=(window + 1) * WINDOW_SECONDS)


def _peeked(count: int, limit: int, window: int) -> Decision:
    return _decision(count + 1, limit, window)._replace(remaining=max(0, limit - count))


class InProcessLimiter:
    """Counts in a dict of key -> (window, count); entries of past windows are dropped whenever a new
    window begins, so memory holds at most the keys seen in the current minute."""

    def __init__(self) -> None:
        self._counts: dict[str, tuple[int, int]] = {}
        self._swept_window = 0

    async def hit(self, key: str, limit: int, now: float) -> Decision:
        window = _window(now)
        if window > self._swept_window:
            self._counts = {k: entry for k, entry in self._counts.items() if entry[0] >= window}
            self._swept_window = window
        seen_window, count = self._counts.get(key, (window, 0))
        count = count + 1 if seen_window == window else 1
        self._counts[key] = (window, count)
        return _decision(count, limit, window)

    async def peek(self, key: str, limit: int, now: float) -> Decision:
        window = _window(now)
        seen_window, count = self._counts.get(key, (window, 0))
        return _peeked(count if seen_window == window else 0, limit, window)

    def __len__(self) -> int:
        return len(self._counts)


class RedisLimiter:
    """One counter per key and window (`INCR` + `EXPIRE` in one MULTI/EXEC), shared by every node."""

    def __init__(self, client: redis.Redis, prefix: str = "obeya:ratelimit") -> None:
        self._client = client
        self._prefix = prefix

    async def hit(self, key: str, limit: int, now: float) -> Decision:
        window = _window(now)
        name = f"{self._prefix}:{key}:{window}"
        ttl = math.ceil((window + 1) * WINDOW_SECONDS - now) + REDIS_GRACE_SECONDS
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.incr(name)
                pipe.expire(name, ttl)
                count, _ = await pipe.execute()
        except (RedisError, OSError) as error:
            raise LimiterUnavailable(str(error)) from error
        return _decision(int(count), limit, window)

    async def peek(self, key: str, limit: int, now: float) -> Decision:
        window = _window(now)
        try:
            count = await self._client.get(f"{self._prefix}:{key}:{window}")
        except (RedisError, OSError) as error:
            raise LimiterUnavailable(str(error)) from error
        return _peeked(int(count or 0), limit, window)
