"""The fault drill: three nodes as processes on one PostgreSQL database and on a Redis of the drill's own, under
steady keyed writes, reads after every write and screens following every board, with a fault every few seconds,
the four kinds in turn:

- kill: the owner of a board killed (-9), and a node started again five seconds later;
- redis: Redis killed and started again a second later (empty, as a restarted cache comes back);
- postgres: every server connection to the database terminated (`pg_terminate_backend`);
- stall: the owner of a board stopped (SIGSTOP) for longer than two leases, then continued.

The clients behave as a plant's would behind a load balancer: a write is sent again under its Idempotency-Key
until it is acknowledged, after `Retry-After` when it names one; a node that does not answer within
REQUEST_SECONDS is left aside for SUSPECT_SECONDS (a proxy's passive health check), a node killed by the drill
is left aside until it is back. A screen whose node died connects to another and resumes each board with
`since`; it never subscribes again otherwise.

`run_drill` returns a `Report` of everything seen, with the figures a run is judged by (see `Report`'s
properties). tests/cluster/test_fault_drill.py runs each fault once and asserts on them;
bench/cluster_faults.py runs it for minutes and prints them."""

from __future__ import annotations

import asyncio
import itertools
import math
import os
import random
import secrets
import shutil
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import socketio

from tests.cluster.harness import Cluster, ClusterNode, add_user, make_org
from tests.harness import Api, Reply
from tests.integration.boards.conftest import Board, make_board
from tests.redis_process import RedisProcess

LEASE_SECONDS = 3
ENVIRON = {"OBEYA_ACTOR_LEASE": str(LEASE_SECONDS)}
NODES = 3
BOARDS = 3
WRITERS = 6  # two per board, each through every node in turn
KINDS = ("kill", "redis", "postgres", "stall")
RESTART_AFTER_SECONDS = 5.0  # a killed node's replacement starts this long after the kill
REDIS_AWAY_SECONDS = 1.0
STALL_SECONDS = 8.0
# A write forwarded to a stalled owner is answered 503 within a lease and half a second (the forwarding node's
# liveness check); past this, the node itself does not answer.
REQUEST_SECONDS = LEASE_SECONDS + 1.0
SUSPECT_SECONDS = 5.0
GIVE_UP_SECONDS = 60.0  # a write not acknowledged by then counts as given up (the drill reports it)
ANSWERED_WITHIN_SECONDS = 5.0  # the aim: writes acknowledged within this, counted from their first send
SCREEN_CONNECT_SECONDS = 5.0
# An event committed this shortly before its node was killed or stopped, or Redis, may not have been published,
# nor delivered by a node stopped this shortly after it.
UNPUBLISHED_SECONDS = 1.0
SETTLE_SECONDS = 10.0  # after the load stops, for the screens to receive what was committed last
TERMINATE_ALL = """SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()"""


@dataclass
class Fault:
    kind: str
    began: float  # wall-clock seconds (time.time(), comparable with PostgreSQL's clock_timestamp())
    ended: float  # when the fault was over: Redis answering again, the stalled node continued (else `began`)
    node: str | None  # the node killed or stalled (its node id, as the event log names it)
    boards: list[str]  # the boards whose writes it stopped: the node's, or every board


@dataclass
class Write:
    board_id: str
    procedure: str
    began: float
    last_sent: float = 0.0
    acked: float | None = None
    # What each refused attempt got: its status, or 0 when the node did not answer (timeout, connection refused).
    refusals: list[int] = field(default_factory=list)

    @property
    def seconds(self) -> float | None:
        return None if self.acked is None else self.acked - self.began


@dataclass
class Read:
    at: float
    status: int  # 0: no answer
    stale: bool = False


@dataclass
class Received:
    at: float
    stream: str
    seq: int
    event_id: str
    node: str  # the node the screen was connected to (its node id)
    since: float  # when that connection's subscriptions were answered: later events reached it live


@dataclass
class Report:
    started: float
    faults_began: float
    ended: float
    faults: list[Fault]
    writes: list[Write]
    reads: list[Read]
    screens: list[list[Received]]
    screen_starts: list[dict[str, int]]  # per screen, the seq each board's first subscription answered
    resumes: list[int]  # per screen, how many times it connected again (its node died)
    dropped: list[tuple[float, str, str]]  # a screen disconnected from a node the drill did not kill: when, which, why
    # From the database once the load stopped.
    log: dict[str, list[tuple[int, str, float, str, int | None]]]  # stream: (seq, id, committed, node, epoch)
    stored_names: Counter[str]
    acked_names: list[str]
    unacked_names: list[str]
    metrics: dict[str, str]  # node name: its /metrics exposition at the end
    errors: list[str] = field(default_factory=list)  # the nodes' log lines at level error, or of a 500

    # -- the figures a run is judged by --------------------------------------------------------------------

    def phase(self, faulty: bool) -> list[Write]:
        return [w for w in self.writes if (w.began >= self.faults_began) == faulty]

    def answered_within(self, writes: list[Write], seconds: float = ANSWERED_WITHIN_SECONDS) -> float:
        """The share of `writes` acknowledged within `seconds` of their first send."""
        quick = [w for w in writes if w.seconds is not None and w.seconds <= seconds]
        return len(quick) / len(writes) if writes else 1.0

    def refusals(self) -> Counter[int]:
        return Counter(status for write in self.writes for status in write.refusals)

    def server_errors(self) -> int:
        """Answers 5xx other than 503 (writes and reads)."""
        return (sum(count for status, count in self.refusals().items() if status >= 500 and status != 503)
                + sum(1 for read in self.reads if read.status >= 500 and read.status != 503))

    def given_up(self) -> list[Write]:
        return [w for w in self.writes if w.acked is None]

    def lost(self) -> list[str]:
        return [name for name in self.acked_names if self.stored_names[name] == 0]

    def doubled(self) -> list[str]:
        return [name for name, count in self.stored_names.items() if count > 1]

    def stale_reads(self) -> list[Read]:
        return [read for read in self.reads if read.stale]

    def fenced_epochs_from_two_nodes(self) -> list[tuple[str, int]]:
        """(stream, epoch) committed from more than one node: fencing broken."""
        broken = []
        for stream, rows in self.log.items():
            nodes: dict[int, set[str]] = {}
            for _, _, _, node, epoch in rows:
                if epoch is not None:
                    nodes.setdefault(epoch, set()).add(node)
            broken += [(stream, epoch) for epoch, of in nodes.items() if len(of) > 1]
        return broken

    def recoveries(self) -> list[tuple[Fault, float | None]]:
        """Per fault, the seconds from its start until every board it stopped acknowledged a write sent after it
        (None: a board never did before the load stopped)."""
        out: list[tuple[Fault, float | None]] = []
        for fault in self.faults:
            per_board: list[float | None] = []
            for board in fault.boards:
                acks = [w.acked for w in self.writes
                        if w.board_id == board and w.acked is not None and w.last_sent >= fault.began]
                per_board.append(min(acks) - fault.began if acks else None)
            out.append((fault, None if None in per_board else max((s for s in per_board if s is not None),
                                                                   default=0.0)))
        return out

    def stream_faults(self) -> list[str]:
        """Per screen and board: events missing, repeated or out of order against the log, from the seq its first
        subscription answered to the last committed."""
        wrong = []
        for number, (received, starts) in enumerate(zip(self.screens, self.screen_starts, strict=True)):
            for stream, start in starts.items():
                expected = [(seq, event_id) for seq, event_id, *_ in self.log[stream] if seq > start]
                got = [(r.seq, r.event_id) for r in received if r.stream == stream]
                if got != expected:
                    missing = sorted(set(expected) - set(got))
                    wrong.append(f"screen {number} {stream}: {len(got)} received, {len(expected)} expected, "
                                 f"missing {missing[:5]}, repeated {[s for s, n in Counter(got).items() if n > 1][:5]}")
        return wrong

    def unexplained_drops(self) -> list[tuple[float, str, str]]:
        """Screens disconnected by a node that was neither killed nor stopped shortly before (a client gives up on
        a connection that stayed silent for a while: python-engineio's after 30 s without sending anything, which a
        stall can stretch past)."""
        return [(at, node, reason) for at, node, reason in self.dropped
                if not any(fault.kind == "stall" and fault.node == node
                           and fault.began <= at <= fault.ended + SCREEN_CONNECT_SECONDS for fault in self.faults)]

    def live_delays(self) -> list[float]:
        """For every event a screen received on a connection that was already subscribed when it was committed:
        seconds from the moment it could first be delivered to its arrival. It could not be delivered while Redis
        was away or while the screen's node was stopped (nor, committed just before, until then); and when the node
        that committed it was killed or stopped right after the commit (before it published it), not before the
        board's next event, whose seq shows the screens' nodes the gap to read from the log."""
        delays = []
        for stream, rows in self.log.items():
            committed = {seq: (at, node, rows[n + 1][2] if n + 1 < len(rows) else math.inf)
                         for n, (seq, _, at, node, _) in enumerate(rows)}
            for received in self.screens:
                for r in received:
                    if r.stream != stream:
                        continue
                    at, committer, next_at = committed[r.seq]
                    if at >= r.since:  # else read from the log when the screen (re)subscribed
                        delays.append(r.at - self._deliverable(at, r.node, committer, next_at))
        return delays

    def _deliverable(self, at: float, screen_node: str, committer: str, next_at: float) -> float:
        start = at
        for fault in sorted(self.faults, key=lambda f: f.began):
            if fault.kind == "redis" and fault.began - UNPUBLISHED_SECONDS <= start <= fault.ended:
                start = fault.ended
            elif (fault.kind == "stall" and fault.node == screen_node
                  and fault.began - UNPUBLISHED_SECONDS <= start <= fault.ended):
                start = fault.ended
            elif fault.node == committer and at <= fault.began <= at + UNPUBLISHED_SECONDS:
                start = max(start, next_at)
        return start

    def lines(self) -> list[str]:
        """The figures, one per line, as the benchmark prints them."""
        calm, faulty = self.phase(False), self.phase(True)
        kinds = ", ".join(f"{kind} {count}" for kind, count in Counter(f.kind for f in self.faults).items())
        out = [f"run: {self.ended - self.started:.0f} s, {self.faults_began - self.started:.0f} s without faults, "
               f"then {len(self.faults)} faults ({kinds}); "
               f"lease {LEASE_SECONDS} s, {NODES} nodes, {WRITERS} writers on {BOARDS} boards"]
        for name, writes in (("without faults", calm), ("with faults", faulty)):
            acked = sorted(w.seconds for w in writes if w.seconds is not None)
            span = (self.faults_began - self.started) if writes is calm else (self.ended - self.faults_began)
            out.append(f"writes {name}: {len(writes)} ({len(writes) / max(span, 1e-9):.1f}/s), "
                       f"{100 * self.answered_within(writes):.2f} % acknowledged within "
                       f"{ANSWERED_WITHIN_SECONDS:.0f} s, p50 {_ms(acked, 0.5)} p99 {_ms(acked, 0.99)} "
                       f"max {_ms(acked, 1.0)}, given up {sum(1 for w in writes if w.acked is None)}")
        calm_p99, faulty_p99 = _at(sorted(w.seconds for w in calm if w.seconds is not None), 0.99), \
            _at(sorted(w.seconds for w in faulty if w.seconds is not None), 0.99)
        calm_rate = len(calm) / max(self.faults_began - self.started, 1e-9)
        faulty_rate = len(faulty) / max(self.ended - self.faults_began, 1e-9)
        if calm_p99 and faulty_p99 and calm_rate:
            out.append(f"with faults / without: write p99 {faulty_p99 / calm_p99:.1f}x, "
                       f"writes per second {faulty_rate / calm_rate:.2f}x")
        slowest = sorted((w for w in faulty if w.seconds is not None), key=lambda w: -(w.seconds or 0.0))[:3]
        out.append("slowest writes (s after the first fault: seconds, what each refused attempt got): " + "; ".join(
            f"{w.began - self.faults_began:.0f}: {w.seconds:.1f} {w.refusals}" for w in slowest))
        out.append(f"refused attempts by status (0 = no answer): {dict(sorted(self.refusals().items()))}; "
                   f"5xx other than 503: {self.server_errors()}; errors in the nodes' logs: {len(self.errors)}")
        out += [f"  {line[:300]}" for line in self.errors[:5]]
        out.append(f"reads after a write: {len(self.reads)}, stale {len(self.stale_reads())}, not 200: "
                   f"{dict(sorted(Counter(r.status for r in self.reads if r.status != 200).items()))}")
        for kind in KINDS:
            seconds = [s for fault, s in self.recoveries() if fault.kind == kind]
            if seconds:
                shown = ", ".join("never" if s is None else f"{s:.1f}" for s in seconds)
                out.append(f"writes accepted again after {kind}: {shown} s (two leases: {2 * LEASE_SECONDS} s)")
        delays = sorted(self.live_delays())
        unexplained = len(self.unexplained_drops())
        out.append(f"live events: {len(delays)} delivered, delay p50 {_ms(delays, 0.5)} p99 {_ms(delays, 0.99)} "
                   f"max {_ms(delays, 1.0)}; screens resumed on another node {sum(self.resumes)} times, "
                   f"disconnected otherwise {unexplained} times (after a stall {len(self.dropped) - unexplained})")
        out.append(f"event streams with a gap, a repeat or out of order: {len(self.stream_faults())}; "
                   f"acknowledged writes lost {len(self.lost())}, applied twice {len(self.doubled())}; "
                   f"epochs committed from two nodes {len(self.fenced_epochs_from_two_nodes())}")
        return out


def _at(values: list[float], share: float) -> float | None:
    return values[min(len(values) - 1, int(share * len(values)))] if values else None


def _ms(values: list[float], share: float) -> str:
    found = _at(values, share)
    return "-" if found is None else f"{1000 * found:.0f} ms"


class Drill:
    def __init__(self, cluster: Cluster, redis_server: RedisProcess, database_url: str) -> None:
        self.cluster = cluster
        self.redis = redis_server
        self.database_url = database_url
        self.live: list[ClusterNode] = []  # started and not killed by the drill
        self.suspect_until: dict[str, float] = {}
        self.stopping = asyncio.Event()
        self.writes: list[Write] = []
        self.reads: list[Read] = []
        self.faults: list[Fault] = []
        self.acked_names: list[str] = []
        self.unacked_names: list[str] = []
        self.screens: list[DrillScreen] = []
        self.restarting: list[asyncio.Task[None]] = []  # the replacements of killed nodes, starting
        self.stopped: set[str] = set()  # the nodes stalled just now (not chosen for another fault)
        self._turn = itertools.count()

    # -- the nodes a client may reach --------------------------------------------------------------------

    def next_node(self) -> ClusterNode:
        """The next node in turn that is up and not suspect (any node that is up when all are suspect)."""
        now = time.monotonic()
        up = [node for node in self.live if self.suspect_until.get(node.name, 0.0) <= now] or self.live
        return up[next(self._turn) % len(up)]

    async def send(self, api: Api, call: Callable[[Api], Awaitable[Reply]]) -> Reply | None:
        """`call` through the next node; None when the node does not answer (it is then left aside a while)."""
        node = self.next_node()
        try:
            return await asyncio.wait_for(call(node.reach(api)), REQUEST_SECONDS)
        except (TimeoutError, aiohttp.ClientError):
            self.suspect_until[node.name] = time.monotonic() + SUSPECT_SECONDS
            return None

    # -- the load ----------------------------------------------------------------------------------------

    async def writer(self, number: int, api: Api, board: Board, item_id: str, column_id: str) -> None:
        """Creates an item, then sets its own item's number one higher, in turn; after each number is
        acknowledged, reads the item back through the next node."""
        for count in itertools.count(1):
            if self.stopping.is_set():
                return
            if count % 2:
                name = f"w{number}-{count}"
                acked = await self.write(api, board.id, "items.create",
                                         {"boardId": board.id, "groupId": board.group_id, "name": name})
                (self.acked_names if acked else self.unacked_names).append(name)
                continue
            value = count // 2
            if await self.write(api, board.id, "items.setValue",
                                {"itemId": item_id, "columnId": column_id, "value": value}):
                await self.read_back(api, item_id, column_id, value)

    async def write(self, api: Api, board_id: str, procedure: str, input: dict[str, Any]) -> bool:
        write = Write(board_id, procedure, time.time())
        self.writes.append(write)
        headers = {"Idempotency-Key": secrets.token_hex(12)}
        while time.time() - write.began < GIVE_UP_SECONDS:
            write.last_sent = time.time()
            reply = await self.send(api, lambda through: through.mutate(procedure, input, headers))
            if reply is not None and reply.status == 200:
                write.acked = time.time()
                return True
            write.refusals.append(0 if reply is None else reply.status)
            if reply is None:
                continue
            if reply.status not in (409, 429, 503):
                raise AssertionError(f"{procedure}: {reply.status} {reply.body}")
            # 409: the key's first try is still running somewhere; 429/503 name when to come back.
            await asyncio.sleep(float(reply.headers.get("Retry-After", "0.2")))
        return False

    async def read_back(self, api: Api, item_id: str, column_id: str, value: int) -> None:
        reply = await self.send(api, lambda through: through.query("items.get", {"id": item_id}))
        at = time.time()
        if reply is None:
            self.reads.append(Read(at, 0))
            return
        stale = reply.status == 200 and reply.data["values"].get(column_id, 0) < value
        self.reads.append(Read(at, reply.status, stale))

    # -- the faults --------------------------------------------------------------------------------------

    async def owned(self, boards: list[Board]) -> dict[str, ClusterNode]:
        """Each board's owner among the live nodes, by board id (boards without one are left out)."""
        owners = {board.id: await self.cluster.owner(f"board:{board.id}") for board in boards}
        return {board: node for board, node in owners.items() if node in self.live}

    async def victim(self, boards: list[Board], board: Board) -> tuple[ClusterNode, list[str]] | None:
        """The owner of `board` (or another node when it has none), and the boards it owns: a node that is up and
        running, and not the last one (None when there is no such node: the fault is skipped)."""
        running = [node for node in self.live if node.node_id not in self.stopped]
        if len(running) < 2:
            return None
        owners = await self.owned(boards)
        owner = owners.get(board.id)
        node = owner if owner in running else random.choice(running)
        return node, [b for b, holder in owners.items() if holder is node]

    async def kill(self, boards: list[Board], board: Board) -> Fault | None:
        if (chosen := await self.victim(boards, board)) is None:
            return None
        node, owned = chosen
        self.live.remove(node)
        began = time.time()
        os.kill(node.process.pid, signal.SIGKILL)
        await asyncio.to_thread(node.process.wait)
        asyncio.get_running_loop().call_later(RESTART_AFTER_SECONDS, self._restart)
        return Fault("kill", began, began, node.node_id, owned)

    def _restart(self) -> None:
        self.restarting.append(asyncio.create_task(self._start_one()))

    async def _start_one(self) -> None:
        """Start a node as a supervisor would: again when it exits at start (Redis may be away just then)."""
        while True:
            try:
                self.live.extend(await self.cluster.start(1, **ENVIRON))
                return
            except AssertionError:
                await asyncio.sleep(1.0)

    async def restart_redis(self, boards: list[Board], board: Board) -> Fault:
        began = time.time()
        await self.redis.kill()
        await asyncio.sleep(REDIS_AWAY_SECONDS)
        await self.redis.start()
        return Fault("redis", began, time.time(), None, [b.id for b in boards])

    async def terminate_connections(self, boards: list[Board], board: Board) -> Fault:
        admin = await asyncpg.connect(self.database_url)
        try:
            began = time.time()
            await admin.fetchval(TERMINATE_ALL)
        finally:
            await admin.close()
        return Fault("postgres", began, began, None, [b.id for b in boards])

    async def stall(self, boards: list[Board], board: Board) -> Fault | None:
        if (chosen := await self.victim(boards, board)) is None:
            return None
        node, owned = chosen
        began = time.time()
        os.kill(node.process.pid, signal.SIGSTOP)
        self.stopped.add(node.node_id)
        try:
            await asyncio.sleep(STALL_SECONDS)
        finally:
            os.kill(node.process.pid, signal.SIGCONT)
            self.stopped.discard(node.node_id)
        return Fault("stall", began, time.time(), node.node_id, owned)

    async def faults_in_turn(self, boards: list[Board], count: int, every: float) -> None:
        """`count` faults, one every `every` seconds, the kinds in turn, each aimed at the next board."""
        act = {"kill": self.kill, "redis": self.restart_redis, "postgres": self.terminate_connections,
               "stall": self.stall}
        running: list[asyncio.Task[Fault | None]] = []
        loop = asyncio.get_running_loop()
        start = loop.time()
        for number in range(count):
            await asyncio.sleep(max(0.0, start + number * every - loop.time()))
            running.append(asyncio.create_task(act[KINDS[number % len(KINDS)]](boards, boards[number % len(boards)])))
        self.faults = [fault for fault in await asyncio.gather(*running) if fault is not None]


class DrillScreen:
    """A screen following one board: on one node until that node dies, then on another, resumed with `since`."""

    def __init__(self, drill: Drill, api: Api, stream: str) -> None:
        self.drill = drill
        self.api = api
        self.stream = stream
        self.received: list[Received] = []
        self.start: int | None = None  # the seq its first subscription answered
        self.last = 0
        self.resumes = 0
        self.dropped: list[tuple[float, str, str]] = []  # disconnected from a node not killed: when, which, why
        self.client: socketio.AsyncClient | None = None
        self.http: aiohttp.ClientSession | None = None
        self._moving: asyncio.Task[None] | None = None

    async def open(self, node: ClusterNode) -> None:
        if self.http is None:  # one for every connection of the screen, closed with it
            self.http = aiohttp.ClientSession()
        client = socketio.AsyncClient(reconnection=False, http_session=self.http)
        since = math.inf  # until its subscription is answered, what it receives is read from the log

        async def record(event: str, data: Any) -> None:
            if event != "notification.created" and isinstance(data, dict) and "seq" in data:
                self.received.append(Received(time.time(), self.stream, data["seq"], data["id"], node.node_id,
                                              since))
                self.last = data["seq"]

        async def lost(reason: str) -> None:
            if self.drill.stopping.is_set():
                return
            if any(up is node for up in self.drill.live):
                self.dropped.append((time.time(), node.node_id, reason))
            if self._moving is None:
                self._moving = asyncio.create_task(self._resume())

        client.on("*", record)
        client.on("disconnect", lost)
        headers = {"Host": self.api.host, "Cookie": f"authjs.session-token={self.api.session}"}
        await client.connect(node.url, headers=headers, transports=["websocket"], wait_timeout=SCREEN_CONNECT_SECONDS)
        self.client = client
        request: dict[str, Any] = {"room": self.stream}
        if self.start is not None:
            request["since"] = self.last
        ack = await client.call("subscribe", request, timeout=SCREEN_CONNECT_SECONDS)
        assert ack["ok"] is True, ack
        if self.start is None:
            self.start = self.last = int(ack["seq"])
        since = time.time()

    async def _resume(self) -> None:
        """Connect to another live node until one takes the screen."""
        while not self.drill.stopping.is_set():
            try:
                if self.client is not None:
                    await self.client.disconnect()
                await self.open(self.drill.next_node())
                self.resumes += 1
                break
            except (socketio.exceptions.SocketIOError, TimeoutError, aiohttp.ClientError, OSError):
                await asyncio.sleep(0.2)
        self._moving = None

    async def close(self) -> None:
        if self._moving is not None:
            await self._moving
        if self.client is not None:
            await self.client.disconnect()
        if self.http is not None:
            await self.http.close()


async def run_drill(database_url: str, pool: asyncpg.Pool, *, calm_seconds: float, faults: int,
                    every: float = 8.0, logs: Path | None = None) -> Report:
    """Start the cluster and its Redis, load it for `calm_seconds`, then through `faults` faults one `every`
    seconds (and two leases more), stop everything and return what was seen; the nodes' logs are copied into
    the directory `logs` when one is given."""
    redis_server = RedisProcess()
    await redis_server.start()
    cluster = Cluster(database_url, redis_server.url)
    drill = Drill(cluster, redis_server, database_url)
    try:
        drill.live = await cluster.start(NODES, **ENVIRON)
        report = await _load(drill, pool, calm_seconds, faults, every)
        report.errors = [line for node in cluster.nodes for line in node.log().splitlines()
                         if '"level":"error"' in line or '"status":500' in line]
        return report
    finally:
        drill.stopping.set()
        for node in cluster.nodes:  # never leave a stopped process behind
            if node.process.poll() is None:
                os.kill(node.process.pid, signal.SIGCONT)
        await asyncio.gather(*drill.restarting, return_exceptions=True)
        await asyncio.gather(*(screen.close() for screen in drill.screens), return_exceptions=True)
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
            for node in cluster.nodes:
                shutil.copyfile(node.log_path, logs / node.log_path.name)
        await cluster.stop()
        await redis_server.stop()


async def _load(drill: Drill, pool: asyncpg.Pool, calm_seconds: float, faults: int, every: float) -> Report:
    first = drill.live[0]
    org = await make_org(pool, first, plan="enterprise")
    boards = [await make_board(org, columns=[{"name": "Count", "type": "number"}]) for _ in range(BOARDS)]
    items = [(await boards[n % BOARDS].add_item(f"Counter {n}"))["id"] for n in range(WRITERS)]
    users = [(await add_user(pool, org, first, "admin"))[1] for _ in range(WRITERS)]
    streams = [f"board:{board.id}" for board in boards]
    for node in drill.live:  # on every node, a screen for every board
        for stream in streams:
            screen = DrillScreen(drill, org.owner, stream)
            await screen.open(node)
            drill.screens.append(screen)

    started = time.time()
    load = [asyncio.create_task(drill.writer(n, users[n], boards[n % BOARDS], items[n],
                                             boards[n % BOARDS].column("number")["id"]))
            for n in range(WRITERS)]
    try:
        await asyncio.sleep(calm_seconds)
        faults_began = time.time()
        await drill.faults_in_turn(boards, faults, every)
        await asyncio.sleep(2 * LEASE_SECONDS)  # the last fault's boards come back under load
    finally:
        drill.stopping.set()
        ended = time.time()
        await asyncio.gather(*load)
    await asyncio.gather(*drill.restarting)

    admin = await asyncpg.connect(drill.database_url)
    try:
        log: dict[str, list[tuple[int, str, float, str, int | None]]] = {}
        for stream in streams:
            rows = await admin.fetch("SELECT seq, id, extract(epoch FROM created_at)::float8 AS at, node_id, epoch"
                                     " FROM events WHERE stream = $1 ORDER BY seq", stream)
            log[stream] = [(r["seq"], r["id"], r["at"], r["node_id"], r["epoch"]) for r in rows]
        stored = Counter(await admin.fetchval("SELECT coalesce(array_agg(name), '{}') FROM items"
                                              " WHERE board_id = ANY($1) AND name LIKE 'w%'",
                                              [board.id for board in boards]))
    finally:
        await admin.close()
    await _settle(drill.screens, {stream: rows[-1][0] for stream, rows in log.items() if rows})
    metrics = {}
    for node in drill.live:
        async with node.session.get("/metrics", headers={"Host": "localhost"}) as response:
            metrics[node.name] = await response.text()
    return Report(started, faults_began, ended, drill.faults, drill.writes, drill.reads,
                  [screen.received for screen in drill.screens],
                  [{screen.stream: screen.start or 0} for screen in drill.screens],
                  [screen.resumes for screen in drill.screens],
                  [drop for screen in drill.screens for drop in screen.dropped], log,
                  stored, drill.acked_names, drill.unacked_names, metrics)


async def _settle(screens: list[DrillScreen], final: dict[str, int]) -> None:
    """Wait (bounded) until every screen received each board's last event."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        if all(screen.last >= final.get(screen.stream, 0) for screen in screens):
            return
        await asyncio.sleep(0.05)
