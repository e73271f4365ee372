"""The subscription every Redis listener runs on (actors/runtime/redis_subscription.py), against a Redis of the
test's own that is killed (-9) and started again: it subscribes again by itself, runs its owner's hook once
before handing on anything newer, says so in the log (a warning once per loss, an info line with how long it
was away) and to the metrics, and hears what is published afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis
from structlog.testing import capture_logs

from actors.runtime.redis_subscription import RedisSubscription
from tests.integration.actors.conftest import until
from tests.redis_process import RedisProcess

CHANNEL = "test:subscription"
# A restart is noticed at once (the socket closes); the first retries come 0.1, 0.2, 0.4 s later.
BACK_WITHIN = 10.0


@pytest.fixture
async def own_redis() -> AsyncIterator[RedisProcess]:
    server = RedisProcess()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def test_a_subscription_comes_back_after_a_redis_restart_and_hears_on(own_redis: RedisProcess) -> None:
    heard: list[bytes] = []
    seen_by_hook: list[list[bytes]] = []  # what had been handed on when each resubscription's hook ran
    counted: list[str] = []

    async def caught_up() -> None:
        seen_by_hook.append(list(heard))

    subscription = RedisSubscription.from_url(own_redis.url, CHANNEL, heard.append, on_resubscribed=caught_up)
    subscription.observe = counted.append
    publisher = redis.from_url(own_redis.url)
    await subscription.start()
    try:
        assert await publisher.publish(CHANNEL, b"before") == 1

        async def heard_before() -> bool:
            return heard == [b"before"]

        await until(heard_before)
        logs: list[dict[str, Any]]
        with capture_logs() as logs:
            await own_redis.kill()

            async def noticed() -> bool:
                return any(entry["event"] == "redis_subscription_lost" for entry in logs)

            await until(noticed)
            await own_redis.start()  # on the same port, empty

            async def back() -> bool:
                return subscription.resubscribed == 1

            await until(back, within=BACK_WITHIN)
        assert seen_by_hook == [[b"before"]]
        assert counted == [CHANNEL]
        lost = [entry for entry in logs if entry["event"] == "redis_subscription_lost"]
        returned = [entry for entry in logs if entry["event"] == "redis_subscription_back"]
        assert [(entry["log_level"], entry["channel"]) for entry in lost] == [("warning", CHANNEL)]
        assert [(entry["log_level"], entry["channel"]) for entry in returned] == [("info", CHANNEL)]
        assert 0 < returned[0]["away_seconds"] < BACK_WITHIN

        await publisher.aclose()  # its connection died with the server
        publisher = redis.from_url(own_redis.url)
        assert await publisher.publish(CHANNEL, b"after") == 1  # subscribed again, on the restarted server

        async def heard_after() -> bool:
            return heard == [b"before", b"after"]

        await until(heard_after)
    finally:
        await publisher.aclose()
        await subscription.stop()
