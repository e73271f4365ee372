"""Plumbing for the benchmarks: a throwaway database, the server subprocess pinned to a core (or several, as
the nodes of a cluster on one Redis), a closed-loop HTTP load generator, light Socket.IO subscribers speaking the
wire protocol over aiohttp websockets, and the measurements around them (percentiles, CPU use per process and
per core, PostgreSQL commit counts) and the lines that print them.

Nothing here imports the server: the benchmark talks to it only over 127.0.0.1 like any client would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg
import redis.asyncio as redis
from redis.exceptions import RedisError

REPO = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# -- database ----------------------------------------------------------------------------------------

def _with_database(url: str, name: str) -> str:
    """`url` pointing at database `name` (the path part; a unix-socket `?host=` query is kept)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@contextlib.contextmanager
def admin_database(url: str | None) -> Iterator[str]:
    """The PostgreSQL server to create the benchmark database in: `url` when given, otherwise the embedded
    PostgreSQL (the `pgserver` wheel the server itself uses) in a temporary directory, stopped afterwards."""
    if url:
        yield url
        return
    sys.path.insert(0, str(REPO))
    from server.embedded_db import embedded_postgres

    with tempfile.TemporaryDirectory(prefix="obeya-bench-pg-") as data_dir, \
            embedded_postgres(Path(data_dir)) as embedded_url:
        yield embedded_url


@contextlib.asynccontextmanager
async def fresh_database(admin_url: str) -> AsyncIterator[str]:
    """A new, empty database for one run; dropped (with any connection left) when the run ends."""
    name = f"obeya_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield _with_database(admin_url, name)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextlib.asynccontextmanager
async def one_node_database(database_url: str | None) -> AsyncIterator[tuple[str, dict[str, str], str]]:
    """A fresh database (in `database_url`'s server, else the embedded one) and a scratch data directory for one
    node without Redis: (the database's URL, the server's environment, the scratch directory)."""
    with admin_database(database_url) as admin, tempfile.TemporaryDirectory(prefix="obeya-bench-") as scratch:
        async with fresh_database(admin) as url:
            env = {**os.environ, "OBEYA_DATABASE_URL": url, "OBEYA_DATA_DIR": scratch}
            env.pop("OBEYA_REDIS_URL", None)
            yield url, env, scratch


class CommitCounter:
    """Reads `pg_stat_database.xact_commit` of the benchmark database over a connection to the admin
    database, so that reading it adds no transaction to the figure."""

    def __init__(self, conn: asyncpg.Connection, database: str) -> None:
        self._conn = conn
        self._database = database

    async def _read(self) -> int:
        async with self._conn.transaction():
            # Statistics are read once per transaction and cached; start from a fresh snapshot.
            await self._conn.execute("SELECT pg_stat_clear_snapshot()")
            value = await self._conn.fetchval("SELECT xact_commit FROM pg_stat_database WHERE datname = $1",
                                              self._database)
        return int(value or 0)

    async def settled(self, timeout: float = 4.0) -> int:
        """The counter once it stopped moving: a backend reports its counts at most once a second
        (PostgreSQL 15+), so a value equal across 1.2 s has every finished transaction in it."""
        deadline = time.monotonic() + timeout
        value = await self._read()
        while time.monotonic() < deadline:
            await asyncio.sleep(1.2)
            again = await self._read()
            if again == value:
                return value
            value = again
        return value


# -- server ------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pin_command(command: list[str], core: int | None) -> list[str]:
    if core is None:
        return command
    return ["taskset", "-c", str(core), *command] if shutil.which("taskset") else command


def run_cli(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One `obeya` command (org create, ...) run to completion; its JSON output."""
    done = subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"obeya {' '.join(args[:2])} failed: {done.stderr.strip()[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


SERVE = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]


def _launch(command: list[str], env: dict[str, str], core: int | None, log_path: Path) -> Server:
    """`command --port <free port>` started pinned to `core`, its output into `log_path`."""
    port = free_port()
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(pin_command([*command, "--port", str(port)], core),
                                   cwd=REPO, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    if core is not None and not shutil.which("taskset"):
        os.sched_setaffinity(process.pid, {core})
    return Server(process, port, log_path)


@contextlib.asynccontextmanager
async def running_server(env: dict[str, str], core: int | None, log_dir: Path, *,
                         bare: bool = False) -> AsyncIterator[Server]:
    """`obeya serve` (or, `bare`, the constant-JSON baseline app) on 127.0.0.1 pinned to `core`, ready when
    /healthz answers; stopped by its pid."""
    command = [sys.executable, str(REPO / "bench" / "constant_json_server.py")] if bare else SERVE
    server = _launch(command, env, core, log_dir / ("baseline.log" if bare else "server.log"))
    try:
        await _wait_ready(server)
        yield server
    finally:
        _stop([server.process])


async def _wait_ready(server: Server, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(f"the server exited with {server.process.returncode}: "
                                   f"{server.log_path.read_text(errors='replace')[-2000:]}")
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(server.base_url + "/healthz") as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.1)
    raise RuntimeError("the server did not answer /healthz in time")


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGINT (aiohttp's graceful stop) to each, then SIGKILL to any still running after 10 s; only the
    processes we started, by their pids."""
    running = [process for process in processes if process.poll() is None]
    for process in running:
        process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 10
    for process in running:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


# -- cluster -----------------------------------------------------------------------------------------

@dataclass
class ClusterNode(Server):
    name: str  # node1, node2, ... in the order started
    node_id: str


class Cluster:
    """Nodes of one cluster: `obeya serve` processes on 127.0.0.1 with the database and Redis of `env`, each
    with its own `OBEYA_NODE_ID`, all pinned to `core`. `cluster()` stops every one still running."""

    def __init__(self, env: dict[str, str], core: int | None, log_dir: Path, directory: redis.Redis) -> None:
        self._env, self._core, self._log_dir, self._directory = env, core, log_dir, directory
        # Node ids name pub/sub channels and directory entries on a Redis that other runs may share.
        self._prefix = f"bench-{secrets.token_hex(3)}"
        self.nodes: list[ClusterNode] = []  # every node started, killed ones included

    @property
    def live(self) -> list[ClusterNode]:
        return [node for node in self.nodes if node.process.poll() is None]

    async def start(self) -> ClusterNode:
        """One more node, once it answers /healthz (its actor directory and inbox run by then)."""
        name = f"node{len(self.nodes) + 1}"
        node_id = f"{self._prefix}-{name}"
        server = _launch(SERVE, {**self._env, "OBEYA_NODE_ID": node_id}, self._core, self._log_dir / f"{name}.log")
        node = ClusterNode(server.process, server.port, server.log_path, name, node_id)
        self.nodes.append(node)
        await _wait_ready(node)
        return node

    async def kill(self, node: ClusterNode) -> None:
        """SIGKILL by pid, reaped before this returns: no graceful stop, so its claims stay in the directory
        until their lease lapses."""
        node.process.kill()
        await asyncio.to_thread(node.process.wait, 5)

    async def owner(self, actor_key: str) -> ClusterNode | None:
        """The node the Redis directory names as the owner of `actor_key` (`board:<id>`), if any."""
        node_id = await self._directory.get(f"obeya:actor:{actor_key}")
        return next((node for node in self.nodes if node.node_id == node_id), None)

    async def lease_left(self, actor_key: str) -> float:
        """Seconds until the directory's claim on `actor_key` lapses unless renewed (0 when there is none)."""
        return max(0, int(await self._directory.pttl(f"obeya:actor:{actor_key}"))) / 1000


@contextlib.asynccontextmanager
async def cluster(env: dict[str, str], core: int | None, log_dir: Path) -> AsyncIterator[Cluster]:
    """A cluster on `env["OBEYA_REDIS_URL"]`, empty until `start()`; every node stopped by its pid on exit."""
    directory = redis.from_url(env["OBEYA_REDIS_URL"], decode_responses=True)
    nodes = Cluster(env, core, log_dir, directory)
    try:
        yield nodes
    finally:
        _stop([node.process for node in nodes.nodes])
        await directory.aclose()


async def redis_unreachable(url: str) -> str | None:
    """Why the Redis at `url` does not answer PING, or None when it does."""
    client = redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        await client.ping()
    except (RedisError, OSError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        await client.aclose()
    return None


# -- CPU ---------------------------------------------------------------------------------------------

def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def core_times() -> dict[int, tuple[int, int]]:
    """Per core: (busy ticks, total ticks) from /proc/stat."""
    result: dict[int, tuple[int, int]] = {}
    for line in Path("/proc/stat").read_text().splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and name != "cpu":
            ticks = [int(v) for v in values]
            idle = ticks[3] + ticks[4]  # idle + iowait
            result[int(name[3:])] = (sum(ticks) - idle, sum(ticks))
    return result


@dataclass
class CpuWindow:
    """CPU use of the server processes (added up), this process and every core between `start` and `stop`."""

    server_pids: tuple[int, ...]
    started: float = 0.0
    server: float = 0.0
    client: float = 0.0
    cores: dict[int, tuple[int, int]] = field(default_factory=dict)
    wall: float = 0.0
    server_share: float = 0.0
    client_share: float = 0.0
    core_busy: dict[int, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started = time.monotonic()
        self.server = self._server_seconds()
        self.client = time.process_time()
        self.cores = core_times()

    def stop(self) -> None:
        self.wall = time.monotonic() - self.started
        self.server_share = (self._server_seconds() - self.server) / self.wall
        self.client_share = (time.process_time() - self.client) / self.wall
        now = core_times()
        self.core_busy = {core: (now[core][0] - busy) / max(1, now[core][1] - total)
                          for core, (busy, total) in self.cores.items() if core in now}

    def mark(self, opening: bool) -> None:
        """`closed_loop`'s `on_window`: start at the window's opening, stop at its end."""
        self.start() if opening else self.stop()

    def _server_seconds(self) -> float:
        return sum(process_cpu_seconds(pid) for pid in self.server_pids)

    def describe(self) -> str:
        cores = ", ".join(f"core {core} {share:.0%}" for core, share in sorted(self.core_busy.items()))
        servers = "server process" if len(self.server_pids) == 1 else f"{len(self.server_pids)} server processes"
        return f"{servers} {self.server_share:.0%} of a core, load generator {self.client_share:.0%}; {cores}"


# -- statistics --------------------------------------------------------------------------------------

def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of already sorted values (NaN when there are none)."""
    if not values:
        return float("nan")
    rank = max(1, min(len(values), int(-(-fraction * len(values) // 1))))
    return values[rank - 1]


# -- HTTP load ---------------------------------------------------------------------------------------

@dataclass
class Sample:
    started: float
    finished: float
    status: int


@dataclass
class LoadResult:
    """Requests that finished inside the measured window (warm-up excluded)."""

    window: float
    samples: list[Sample]
    all_ok: int  # successful requests over warm-up and window together
    errors: dict[int, int]

    @property
    def ok(self) -> list[Sample]:
        return [s for s in self.samples if s.status == 200]

    @property
    def throughput(self) -> float:
        return len(self.ok) / self.window

    def latencies_ms(self) -> list[float]:
        return sorted((s.finished - s.started) * 1000 for s in self.ok)


RequestFactory = Callable[[int], tuple[str, str, dict[str, str], bytes | None]]


async def closed_loop(base_urls: list[str], make_request: RequestFactory, *, connections: int, warmup: float,
                      duration: float, on_window: Callable[[bool], None] | None = None) -> LoadResult:
    """`connections` workers on one keep-alive connection each (worker i to `base_urls[i % len(base_urls)]`),
    every worker sending its next request as soon as the previous answer is read; requests that finish within
    [warm-up end, end] are measured. `make_request(worker)` returns (method, path, headers, body);
    `on_window(True/False)` marks the window."""
    connector = aiohttp.TCPConnector(limit=connections, force_close=False)
    samples: list[Sample] = []
    errors: dict[int, int] = {}
    all_ok = 0
    stop_at = time.monotonic() + warmup + duration
    window_start = stop_at - duration

    async def worker(index: int, session: aiohttp.ClientSession) -> None:
        nonlocal all_ok
        base_url = base_urls[index % len(base_urls)]
        while True:
            method, path, headers, body = make_request(index)
            started = time.monotonic()
            if started >= stop_at:
                return
            try:
                async with session.request(method, base_url + path, headers=headers, data=body) as response:
                    await response.read()
                    status = response.status
            except aiohttp.ClientError:
                status = 0
            finished = time.monotonic()
            if status == 200:
                all_ok += 1
            else:
                errors[status] = errors.get(status, 0) + 1
            if window_start <= finished <= stop_at:
                samples.append(Sample(started, finished, status))

    async def marks() -> None:
        if on_window is None:
            return
        await asyncio.sleep(max(0.0, window_start - time.monotonic()))
        on_window(True)
        await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
        on_window(False)

    async with aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                     skip_auto_headers=("User-Agent",)) as session:
        await asyncio.gather(marks(), *(worker(i, session) for i in range(connections)))
    return LoadResult(duration, samples, all_ok, errors)


# -- Socket.IO subscribers ---------------------------------------------------------------------------

class SubscribeRefused(Exception):
    pass


class LiveSubscriber:
    """One Socket.IO client (Engine.IO 4 / Socket.IO 5 over a websocket, no polling), much lighter than a
    python-socketio AsyncClient: connect with `auth={"token": key}`, subscribe to one room, answer pings,
    and note the arrival time (time.monotonic(), taken before any parsing) of each event named `event`.
    `marker(text)` picks what identifies the event in the raw frame; (marker, arrival) pairs are kept."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, host: str, token: str, room: str,
                 event: str, marker: Callable[[str], Any]) -> None:
        self._session = session
        self._url = base_url.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket"
        self._host = host
        self._token = token
        self._room = room
        self._prefix = f'42["{event}",'
        self._marker = marker
        self.arrivals: list[tuple[float, Any]] = []
        self.received = 0
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._task: asyncio.Task[None] | None = None

    async def connect(self) -> int:
        """Open, authenticate and subscribe; returns the room's seq the server answered."""
        ws = self._ws = await self._session.ws_connect(self._url, headers={"Host": self._host}, autoping=True,
                                                       max_msg_size=0)
        opened = await ws.receive_str()
        if not opened.startswith("0"):
            raise SubscribeRefused(f"no Engine.IO open packet: {opened[:80]}")
        await ws.send_str("40" + json.dumps({"token": self._token}))
        connected = await ws.receive_str()
        if not connected.startswith("40"):
            raise SubscribeRefused(f"connect refused: {connected[:200]}")
        await ws.send_str('420["subscribe",' + json.dumps({"room": self._room}) + "]")
        while True:
            answer = await ws.receive_str()
            if answer == "2":
                await ws.send_str("3")
            elif answer.startswith("430"):
                break
        reply = json.loads(answer[3:])[0]
        if not reply.get("ok"):
            raise SubscribeRefused(f"subscribe refused: {reply}")
        self._task = asyncio.create_task(self._listen(ws))
        return int(reply["seq"])

    async def _listen(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        prefix, arrivals = self._prefix, self.arrivals
        async for message in ws:
            arrived = time.monotonic()
            if message.type is not aiohttp.WSMsgType.TEXT:
                break
            text = message.data
            if text.startswith(prefix):
                self.received += 1
                arrivals.append((arrived, self._marker(text)))
            elif text == "2":
                await ws.send_str("3")

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


async def connect_all(subscribers: list[LiveSubscriber], parallel: int = 50) -> None:
    """Connect every subscriber, at most `parallel` handshakes at a time."""
    gate = asyncio.Semaphore(parallel)

    async def one(subscriber: LiveSubscriber) -> None:
        async with gate:
            await subscriber.connect()

    await asyncio.gather(*(one(s) for s in subscribers))


@contextlib.asynccontextmanager
async def profiling(pid: int | None, out: Path | None, duration: float, fmt: str) -> AsyncIterator[None]:
    """py-spy sampling the server for `duration` seconds while the body runs (skipped unless asked)."""
    if pid is None or out is None:
        yield
        return
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    process = await asyncio.create_subprocess_exec(
        py_spy, "record", "--pid", str(pid), "--duration", str(int(duration)), "--rate", "200", "--nonblocking",
        "--format", fmt, "-o", str(out), stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        yield
    finally:
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=duration + 30)
        if process.returncode != 0:
            print(f"  (py-spy failed: {stderr.decode(errors='replace').strip()[-300:]})")


# -- report ------------------------------------------------------------------------------------------

def ms(values: list[float], fraction: float) -> str:
    """A percentile of sorted milliseconds, printed."""
    return f"{percentile(values, fraction):7.2f} ms"


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def print_http(title: str, result: LoadResult, cpu: CpuWindow) -> None:
    latencies = result.latencies_ms()
    errors = ", ".join(f"{status or 'connection error'}: {n}" for status, n in sorted(result.errors.items()))
    print(f"{title}")
    print(f"  throughput        {result.throughput:9.0f} req/s   "
          f"({len(result.ok)} answers 200 in {result.window:.0f} s)")
    print(f"  latency p50       {ms(latencies, 0.50)}")
    print(f"  latency p99       {ms(latencies, 0.99)}")
    print(f"  latency max       {ms(latencies, 1.0)}")
    print(f"  non-200 answers   {errors or 'none'}")
    print(f"  CPU               {cpu.describe()}")
    print(f"  server CPU        {cpu_ms(cpu, len(result.ok)):7.3f} ms per answer")


def cpu_ms(cpu: CpuWindow, count: int) -> float:
    """Server CPU time per unit of work over the window: steadier than throughput on a shared machine."""
    return cpu.server_share * cpu.wall * 1000 / max(1, count)


def run_bounded(main: Coroutine[Any, Any, int | None], seconds: float) -> int:
    """Run a benchmark's coroutine, cut off after `seconds`; its exit code (1 when cut off, its own or 0 else)."""
    try:
        return asyncio.run(asyncio.wait_for(main, seconds)) or 0
    except TimeoutError:
        print(f"stopped: the run took longer than {seconds:.0f} s")
        return 1


def pin_client(server_core: int | None, client_core: int | None) -> int | None:
    """Move this process (the load generator) to `client_core`; the core to pin the servers to, or None (with a
    warning) when the two are not distinct cores of this machine."""
    if server_core is None or client_core is None or server_core == client_core \
            or not {server_core, client_core} <= os.sched_getaffinity(0):
        print(f"warning: cores {server_core} and {client_core} are not both available; not pinning")
        return None
    os.sched_setaffinity(0, {client_core})
    return server_core
