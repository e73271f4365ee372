"""Waits that end: a request that cannot get a database connection within OBEYA_POOL_TIMEOUT is answered 503,
a statement running past OBEYA_STATEMENT_TIMEOUT is cancelled, and the pool works on afterwards."""

from __future__ import annotations

import contextlib
from typing import Any

import aiohttp
import asyncpg
import pytest

from server.app import create_app
from storage.pool import create_pool
from tests.conftest import server_settings
from tests.harness import make_org
from web.keys import NODE


async def test_a_request_that_gets_no_connection_in_time_is_503(aiohttp_client: Any, database_url: str,
                                                                request: pytest.FixtureRequest) -> None:
    settings = server_settings(request, OBEYA_POOL_SIZE="3", OBEYA_POOL_TIMEOUT="0.2")
    client = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    org = await make_org(client)
    pool = client.server.app[NODE].pool
    async with contextlib.AsyncExitStack() as held:
        for _ in range(3):
            await held.enter_async_context(pool.acquire())
        reply = await org.owner.rest("GET", "/api/v1/auth/me")
        assert reply.status == 503, reply.body
        assert reply.body["error"]["code"] == "SERVICE_UNAVAILABLE"
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).status == 200


async def test_a_statement_past_its_timeout_is_cancelled_and_the_pool_works_on(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1, statement_timeout=0.1)
    try:
        with pytest.raises(TimeoutError):
            await pool.fetchval("SELECT pg_sleep(5)")
        assert await pool.fetchval("SELECT 1") == 1
    finally:
        await pool.close()


async def test_a_connection_wait_past_the_pool_timeout_raises(database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=1, acquire_timeout=0.1)
    try:
        async with pool.acquire():
            with pytest.raises(TimeoutError):
                await pool.fetchval("SELECT 1")
        assert await pool.fetchval("SELECT 1") == 1
        assert isinstance(pool, asyncpg.Pool)
    finally:
        await pool.close()
