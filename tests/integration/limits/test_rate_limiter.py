"""The limiter implementations: fixed one-minute windows, counted in process or in a shared Redis."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from web.rate_limiter import InProcessLimiter, LimiterUnavailable, RedisLimiter

# 2026-11-21 10:00:00 UTC, the start of a minute, plus a little.
MINUTE = 1_795_255_200
NOW = MINUTE + 12.5


async def test_in_process_counts_down_and_refuses_past_the_limit() -> None:
    limiter = InProcessLimiter()
    decisions = [await limiter.hit("credential:a", 3, NOW + i) for i in range(4)]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert {d.reset_at for d in decisions} == {MINUTE + 60}
    assert decisions[3].retry_after(NOW + 3) == 45


async def test_in_process_window_resets_on_the_next_minute() -> None:
    limiter = InProcessLimiter()
    for _ in range(3):
        await limiter.hit("credential:a", 2, NOW)
    fresh = await limiter.hit("credential:a", 2, MINUTE + 60)
    assert fresh.allowed and fresh.remaining == 1 and fresh.reset_at == MINUTE + 120


async def test_in_process_keys_have_separate_buckets() -> None:
    limiter = InProcessLimiter()
    await limiter.hit("credential:a", 1, NOW)
    assert not (await limiter.hit("credential:a", 1, NOW)).allowed
    assert (await limiter.hit("credential:b", 1, NOW)).allowed


async def test_in_process_forgets_past_windows() -> None:
    limiter = InProcessLimiter()
    for index in range(100):
        await limiter.hit(f"ip:10.0.0.{index}", 60, NOW)
    assert len(limiter) == 100
    await limiter.hit("ip:10.0.0.1", 60, MINUTE + 61)
    assert len(limiter) == 1


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[redis.Redis]:
    client = redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_redis_limiters_on_two_nodes_count_together(redis_url: str, redis_client: redis.Redis) -> None:
    other_client = redis.from_url(redis_url)
    prefix = f"test:{secrets.token_hex(4)}"
    node_a, node_b = RedisLimiter(redis_client, prefix), RedisLimiter(other_client, prefix)
    try:
        results = [await (node_a if i % 2 else node_b).hit("credential:k", 4, NOW + i) for i in range(5)]
    finally:
        await other_client.aclose()
    assert [d.remaining for d in results] == [3, 2, 1, 0, 0]
    assert [d.allowed for d in results] == [True, True, True, True, False]
    assert {d.reset_at for d in results} == {MINUTE + 60}


async def test_redis_window_resets_and_counters_expire(redis_client: redis.Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}"
    limiter = RedisLimiter(redis_client, prefix)
    await limiter.hit("credential:k", 1, NOW)
    assert not (await limiter.hit("credential:k", 1, NOW)).allowed
    fresh = await limiter.hit("credential:k", 1, MINUTE + 60)
    assert fresh.allowed and fresh.remaining == 0 and fresh.reset_at == MINUTE + 120
    ttl = await redis_client.ttl(f"{prefix}:credential:k:{MINUTE // 60}")
    assert 0 < ttl <= 60 - 12 + 1 + 5  # the rest of the window plus the grace


async def test_unreachable_redis_is_reported_as_unavailable() -> None:
    client = redis.from_url("redis://127.0.0.1:1")
    try:
        with pytest.raises(LimiterUnavailable):
            await RedisLimiter(client).hit("credential:k", 1, NOW)
    finally:
        await client.aclose()


async def test_peeking_tells_whether_one_more_fits_without_counting(redis_client: redis.Redis) -> None:
    for limiter in (InProcessLimiter(), RedisLimiter(redis_client, f"test:{secrets.token_hex(4)}")):
        assert await limiter.peek("refused-ip:a", 2, NOW) == (True, 2, MINUTE + 60)
        await limiter.hit("refused-ip:a", 2, NOW)
        assert await limiter.peek("refused-ip:a", 2, NOW) == (True, 1, MINUTE + 60)
        await limiter.hit("refused-ip:a", 2, NOW)
        assert await limiter.peek("refused-ip:a", 2, NOW) == (False, 0, MINUTE + 60)
        assert await limiter.peek("refused-ip:a", 2, MINUTE + 60) == (True, 2, MINUTE + 120)
