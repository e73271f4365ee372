"""What the tests of actors across nodes share: a Redis client built as a node builds it, and a poll for a
condition with a deadline (leases lapse and messages cross Redis on their own time)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import redis.asyncio as redis

from server.cluster import redis_client as node_client


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[redis.Redis]:
    # As a node builds it (server/cluster.py): a burst of forwarded requests waits for one of a few connections
    # rather than failing with "Too many connections", and each command answers within a wait.
    client = node_client(redis_url, max_connections=32)
    try:
        yield client
    finally:
        await client.aclose()


async def until(condition: Callable[[], Awaitable[bool]], *, within: float = 5.0) -> None:
    """Poll `condition` until it holds; fail the test if it does not within `within` seconds."""
    deadline = time.monotonic() + within
    while not await condition():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {within} s")
        await asyncio.sleep(0.02)
