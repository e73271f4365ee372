"""`obeya serve` stops gracefully on SIGTERM (server/app.py `runner_options`): it stops listening at once, the
request in flight completes (a sign-in that still reads the database after the signal), an open live socket is
closed rather than waited for, and the process exits 0 well within the shutdown timeout."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from actors.identity.accounts import create_organization
from actors.kernel.settings import NodeSettings
from server.node_services import build_node
from tests.harness import free_port

OBEYA = [sys.executable, "-m", "server.cli"]
PASSWORD = "a long password"
SHUTDOWN_TIMEOUT = 30  # OBEYA_SHUTDOWN_TIMEOUT of the node under test
EXIT_BOUND = 15  # seconds from SIGTERM to exit: an open WebSocket must not hold the node for the whole timeout


def _env(database_url: str, redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OBEYA_")}
    env.update(OBEYA_DATABASE_URL=database_url, OBEYA_REDIS_URL=redis_url, OBEYA_SERVICE_HOST="localhost",
               OBEYA_BCRYPT_ROUNDS="4", OBEYA_SHUTDOWN_TIMEOUT=str(SHUTDOWN_TIMEOUT))
    return env


async def _status(url: str) -> int:
    try:
        async with aiohttp.ClientSession() as session, session.get(url, timeout=aiohttp.ClientTimeout(2)) as reply:
            return reply.status
    except (aiohttp.ClientError, TimeoutError):
        return 0


async def _refuses_connections(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return True
    writer.close()
    return False


async def _until(condition: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


@pytest.mark.timeout(120)
async def test_sigterm_finishes_the_request_in_flight_and_exits_zero(database_url: str, redis_url: str,
                                                                     pool: asyncpg.Pool, tmp_path: Path) -> None:
    env = _env(database_url, redis_url)
    slug = f"stop-{secrets.token_hex(4)}"
    await create_organization(build_node(pool, NodeSettings(bcrypt_rounds=4)), slug=slug, name="Stop",
                              owner_email=f"o@{slug}.test", owner_password=PASSWORD)
    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(OBEYA + ["serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        await _until(lambda: _ready(port), 60, "obeya serve ready")
        async with aiohttp.ClientSession() as session:
            # An Engine.IO WebSocket that never finishes its Socket.IO handshake: it stays open until closed.
            socket = await session.ws_connect(f"http://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket")
            assert (await socket.receive_str()).startswith("0{")

            # A sign-in in flight: its session insert waits on a lock the test holds on `sessions`. (A request
            # whose body is still arriving cannot finish: aiohttp reads nothing more once it is stopping.)
            blocker, observer = await asyncpg.connect(database_url), await asyncpg.connect(database_url)
            try:
                holding = blocker.transaction()
                await holding.start()
                await blocker.execute("LOCK TABLE sessions IN EXCLUSIVE MODE")
                login = asyncio.ensure_future(session.post(
                    f"http://127.0.0.1:{port}/api/v1/auth/login", headers={"Host": f"{slug}.localhost"},
                    json={"email": f"o@{slug}.test", "password": PASSWORD}))
                await _until(lambda: _waits_on_sessions(observer), 20, "the sign-in waits for the lock")

                server.send_signal(signal.SIGTERM)
                signalled = time.monotonic()
                await _until(lambda: _refuses_connections(port), 10, "the node stops listening")
                await holding.rollback()
            finally:
                await blocker.close()
                await observer.close()
            reply = await asyncio.wait_for(login, 10)
            assert reply.status == 200, await reply.text()
            assert "authjs.session-token" in reply.cookies
            assert (await reply.json())["data"]["email"] == f"o@{slug}.test"

            # The live socket is told to close (Engine.IO's close packet, "1") and its connection closed: a
            # Socket.IO client reconnects, through the load balancer, to a node still running.
            message = await asyncio.wait_for(socket.receive(), EXIT_BOUND)
            assert (message.type, message.data) == (aiohttp.WSMsgType.TEXT, "1")
            message = await asyncio.wait_for(socket.receive(), EXIT_BOUND)
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)
            await socket.close()

        remaining = EXIT_BOUND - (time.monotonic() - signalled)
        exit_code = await asyncio.to_thread(server.wait, max(remaining, 0.1))
        assert exit_code == 0, (tmp_path / "serve.log").read_text()[-3000:]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)
        log.close()


async def _waits_on_sessions(conn: asyncpg.Connection) -> bool:
    """Whether a sign-in's insert waits for a lock (asked outside a transaction: pg_stat_activity is a snapshot
    kept for the whole of one)."""
    waiting = await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO sessions%'")
    return bool(waiting)


async def _ready(port: int) -> bool:
    return await _status(f"http://127.0.0.1:{port}/readyz") == 200
