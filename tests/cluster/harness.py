"""Nodes as separate processes: `obeya serve` on free 127.0.0.1 ports against the test run's database and
Redis, ready once `/readyz` answers 200, stopped by pid (SIGTERM, then SIGKILL past a bound).

Each node's output goes to a file of its own, shown when the node fails to start. Requests reach a node
through `tests.harness.Api` over a plain aiohttp session whose base URL is the node's.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import redis.asyncio as redis

from actors.identity.accounts import create_user
from actors.kernel.settings import NodeSettings
from server.node_services import build_node
from tests.harness import PASSWORD, Api, Org, free_port, login, open_org

ROOT = Path(__file__).resolve().parents[2]
# A node on this machine is ready within a couple of seconds; two cores shared with the other test worker.
READY_SECONDS = 30.0
STOP_SECONDS = 15.0


@dataclass
class ClusterNode:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    session: aiohttp.ClientSession = field(init=False)

    def __post_init__(self) -> None:
        self.session = aiohttp.ClientSession(base_url=self.url,
                                             cookie_jar=aiohttp.DummyCookieJar())

    @property
    def node_id(self) -> str:
        """Its id in the actor directory: unique across the clusters of concurrent test workers, which share
        one Redis (node channels and directory entries name it)."""
        return f"{self.log_path.parent.name}-{self.name}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, host: str) -> Api:
        """A client of this node for the organization host `host` (no credential)."""
        client: Any = self.session  # speaks what Api needs of a test client: get, post, request
        return Api(client, host)

    def reach(self, api: Api) -> Api:
        """`api` (its host and credential) sent to this node instead."""
        client: Any = self.session
        return replace(api, client=client)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the process (by pid), wait for it to exit; SIGKILL once past STOP_SECONDS. Its exit code."""
        await self.session.close()
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
            try:
                await asyncio.to_thread(self.process.wait, STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                await asyncio.to_thread(self.process.wait)
        return self.process.returncode


class Cluster:
    """The nodes a test started; `stop()` ends every one of them (the fixture calls it)."""

    def __init__(self, database_url: str, redis_url: str) -> None:
        self.database_url = database_url
        self.redis_url = redis_url
        self.nodes: list[ClusterNode] = []
        self._dir = Path(tempfile.mkdtemp(prefix="obeya-cluster-"))

    async def start(self, count: int, **environ: str) -> list[ClusterNode]:
        """Start `count` nodes at once and return them once every one answers /readyz."""
        names = [f"node{len(self.nodes) + i}" for i in range(count)]
        started = [ClusterNode(name, port, process, log_path)  # each fork happens off the event loop
                   for name, port, process, log_path in [await asyncio.to_thread(self._spawn, name, environ)
                                                         for name in names]]
        self.nodes.extend(started)
        # Every wait ends before this returns or raises: none is left pending when the test fails.
        outcomes = await asyncio.gather(*(self._ready(node) for node in started), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return started

    async def owner(self, actor_key: str) -> ClusterNode | None:
        """The node whose claim on `actor_key` (`board:<id>`) is in the Redis directory, if any."""
        client = redis.from_url(self.redis_url, decode_responses=True)
        try:
            node_id = await client.get(f"obeya:actor:{actor_key}")
        finally:
            await client.aclose()
        return next((node for node in self.nodes if node.node_id == node_id), None)

    async def stop(self) -> None:
        await asyncio.gather(*(node.stop() for node in self.nodes))
        await asyncio.to_thread(shutil.rmtree, self._dir, True)  # the nodes' data directories and logs

    def _spawn(self, name: str, environ: dict[str, str]) -> tuple[str, int, subprocess.Popen[bytes], Path]:
        port = free_port()
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               "OBEYA_DATABASE_URL": self.database_url, "OBEYA_REDIS_URL": self.redis_url,
               "OBEYA_SERVICE_HOST": "localhost", "OBEYA_DATA_DIR": str(self._dir / name),
               "OBEYA_BCRYPT_ROUNDS": "4", "OBEYA_POOL_SIZE": "6",
               "OBEYA_NODE_ID": f"{self._dir.name}-{name}", **environ}
        log_path = self._dir / f"{name}.log"
        with log_path.open("wb") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return name, port, process, log_path

    async def _ready(self, node: ClusterNode) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + READY_SECONDS
        while True:
            if node.process.poll() is not None:
                raise AssertionError(f"{node.name} exited with {node.process.returncode}:\n{node.log()[-3000:]}")
            try:
                async with node.session.get("/readyz", headers={"Host": "localhost"}) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass  # not listening yet
            if loop.time() > deadline:
                raise AssertionError(f"{node.name} not ready within {READY_SECONDS} s:\n{node.log()[-3000:]}")
            await asyncio.sleep(0.05)


async def make_org(pool: asyncpg.Pool, node: ClusterNode, plan: str = "business") -> Org:
    """A new organization on `plan`, its owner signed in on `node` (an `Org`, so that the board helpers of
    tests/integration take it; its `add_user` needs an in-process server: use `add_user` below)."""
    return await open_org(build_node(pool, NodeSettings(bcrypt_rounds=4)), node.api, plan)


async def add_user(pool: asyncpg.Pool, org: Org, node: ClusterNode, role: str = "member") -> tuple[str, Api]:
    """A new user of `org` with `role`, signed in on `node`: (user id, their Api)."""
    email = f"{role}-{secrets.token_hex(4)}@{org.slug}.test"
    user_id = await create_user(build_node(pool, NodeSettings(bcrypt_rounds=4)), org_slug=org.slug, email=email,
                                password=PASSWORD, name="Test User", role=role)
    return user_id, await login(node.api(org.host), email)
