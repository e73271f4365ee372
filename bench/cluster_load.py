"""Cluster benchmark (run by hand; prints figures, asserts nothing): what forwarding `items.setValue` to the node
that owns the board costs next to serving it on the owner, requests per second with 1, 2 and 3 nodes, and how long
a board refuses writes after its owner is killed with SIGKILL; each figure next to a baseline measured in the same
run (a local setValue, 1 node, the lease). See bench/README.md for what each figure means.

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/cluster_load.py

The nodes are `obeya serve` processes on 127.0.0.1 sharing a throwaway database (created and dropped) and one
Redis ($OBEYA_BENCH_REDIS_URL, default redis://127.0.0.1:6379/0), all pinned to core 0 while this process runs
on core 1; every one is stopped by its pid when the run ends. Bounded to under 3 minutes."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._setup import (  # noqa: E402
    BoardFixture,
    Fixture,
    bearer,
    create_org,
    new_board,
    new_keys,
    new_project,
    random_set_value,
    set_value_body,
    sign_in,
    warm_keys,
)
from bench._support import (  # noqa: E402
    Cluster,
    ClusterNode,
    CpuWindow,
    LoadResult,
    admin_database,
    closed_loop,
    cluster,
    cpu_ms,
    fresh_database,
    ms,
    percentile,
    pin_client,
    print_http,
    redis_unreachable,
    run_bounded,
    verdict,
)

# The whole run must stay under 3 minutes; it takes about 60 s.
DEADLINE_SECONDS = 175
# The aims, printed next to the measured figures.
AIM_FORWARD_P50_MS = 1.0
AIM_FORWARD_P99_MS = 3.0
AIM_RECOVERY_LEASES = 2.0
# The server's defaults (server/config.py): the lease, printed next to the shorter one the run uses, and how
# long a forwarded ask waits for its answer, which bounds a recovery round.
DEFAULT_LEASE_SECONDS = 10
ASK_TIMEOUT_SECONDS = 10
SET_VALUE = "/api/trpc/items.setValue"
# Acknowledged writes every writer makes before its board's owner is killed: the round starts from steady state.
ACKS_BEFORE_KILL = 3


async def until(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether `condition` came true within `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


# -- forwarding overhead -----------------------------------------------------------------------------

@dataclass
class Forwarding:
    local: list[float]        # ms, sorted
    forwarded: list[float]    # ms, sorted
    differences: list[float]  # forwarded minus local, pair by pair, ms, sorted
    errors: dict[str, int]    # "local 503" -> count, over the measured pairs


async def forwarding(nodes: Cluster, owner: ClusterNode, other: ClusterNode, fixture: Fixture, project: str,
                     args: argparse.Namespace) -> Forwarding:
    """Pairs of setValue on a board `owner` holds, one through `owner` and one through `other`, one request at a
    time (latency, not queueing), in alternating order so that drift in the machine's load hits both alike."""
    board = await new_board(owner.base_url, fixture, project, "Forwarding", args.items)
    held_by = await nodes.owner(f"board:{board.id}")
    if held_by is not owner:
        raise RuntimeError(f"the board created through {owner.name} is held by "
                           f"{held_by.name if held_by else 'no node'}")
    headers = bearer(fixture, fixture.keys[0])
    rng = random.Random(3)
    result = Forwarding([], [], [], {})
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:

        async def one(node: ClusterNode, value: int) -> tuple[int, float]:
            body = set_value_body(rng.choice(board.items), board.number_column, value)
            started = time.perf_counter()
            async with session.post(node.base_url + SET_VALUE, headers=headers, data=body) as response:
                await response.read()
            return response.status, (time.perf_counter() - started) * 1000

        for n in range(args.forward_warmup + args.requests):
            pair = (owner, other) if n % 2 == 0 else (other, owner)
            # Unique values: setting the value an item already has changes nothing and would commit nothing.
            answers = {node.name: await one(node, 2 * n + position) for position, node in enumerate(pair)}
            if n < args.forward_warmup:
                continue
            (local_status, local), (forwarded_status, forwarded) = answers[owner.name], answers[other.name]
            for label, status in (("local", local_status), ("forwarded", forwarded_status)):
                if status != 200:
                    result.errors[f"{label} {status}"] = result.errors.get(f"{label} {status}", 0) + 1
            if local_status == 200:
                result.local.append(local)
            if forwarded_status == 200:
                result.forwarded.append(forwarded)
            if local_status == forwarded_status == 200:
                result.differences.append(forwarded - local)
    for values in (result.local, result.forwarded, result.differences):
        values.sort()
    return result


def print_forwarding(result: Forwarding, owner: ClusterNode, other: ClusterNode, args: argparse.Namespace) -> None:
    print(f"forwarding: items.setValue on a board {owner.name} owns, {args.requests} through {owner.name} (local) "
          f"and {args.requests} through {other.name} (forwarded over Redis), interleaved, one at a time, after "
          f"{args.forward_warmup} pairs of warm-up")
    for label, values in (("local", result.local), ("forwarded", result.forwarded)):
        print(f"  {label:<17} p50 {ms(values, 0.5)}   p99 {ms(values, 0.99)}   max {ms(values, 1.0)}   "
              f"({len(values)} answers 200)")
    print(f"  forwarded - local p50 {percentile(result.forwarded, 0.5) - percentile(result.local, 0.5):7.2f} ms   "
          f"p99 {percentile(result.forwarded, 0.99) - percentile(result.local, 0.99):7.2f} ms   "
          "(difference of the percentiles)")
    print(f"  pair by pair      p50 {ms(result.differences, 0.5)}   p99 {ms(result.differences, 0.99)}   "
          "(percentiles of forwarded minus local within each pair)")
    errors = ", ".join(f"{label}: {n}" for label, n in sorted(result.errors.items()))
    print(f"  non-200 answers   {errors or 'none'}")


# -- throughput --------------------------------------------------------------------------------------

@dataclass
class Throughput:
    nodes: int
    result: LoadResult
    cpu: CpuWindow
    owners: dict[str, int]  # boards per owning node
    forwarded: float        # share of the requests sent to a node other than their board's owner


async def throughput(nodes: Cluster, fixture: Fixture, project: str, args: argparse.Namespace) -> Throughput:
    """Closed-loop setValue over every live node, on boards of their own created round-robin through the nodes
    (so that their owners are spread), each connection always to the same node."""
    live = nodes.live
    boards = [await new_board(live[n % len(live)].base_url, fixture, project, f"{len(live)} nodes, board {n + 1}",
                              args.items) for n in range(args.boards)]
    owners = [await nodes.owner(f"board:{board.id}") for board in boards]
    spread = Counter(owner.name if owner else "none" for owner in owners)
    headers = [bearer(fixture, fixture.keys[w % len(fixture.keys)]) for w in range(args.connections)]
    rng = random.Random(7)
    sent = [0, 0]  # forwarded, all

    def request(worker: int) -> tuple[str, str, dict[str, str], bytes]:
        index = rng.randrange(len(boards))
        sent[0] += owners[index] is not live[worker % len(live)]
        sent[1] += 1
        return "POST", SET_VALUE, headers[worker], random_set_value(boards[index], rng)

    cpu = CpuWindow(tuple(node.pid for node in live))
    result = await closed_loop([node.base_url for node in live], request, connections=args.connections,
                               warmup=args.warmup, duration=args.duration, on_window=cpu.mark)
    return Throughput(len(live), result, cpu, spread, sent[0] / max(1, sent[1]))


def print_throughput(run: Throughput, baseline: Throughput, args: argparse.Namespace) -> None:
    owners = ", ".join(f"{name} {count}" for name, count in sorted(run.owners.items()))
    print_http(f"throughput, {run.nodes} node{'s' if run.nodes > 1 else ''}: {args.connections} connections spread "
               f"over the nodes, {args.boards} boards (owners: {owners}), {run.forwarded:.0%} of requests forwarded",
               run.result, run.cpu)
    if run is not baseline:
        cpu = ratio(cpu_ms(run.cpu, len(run.result.ok)), cpu_ms(baseline.cpu, len(baseline.result.ok)))
        print(f"  against 1 node    {ratio(run.result.throughput, baseline.result.throughput):.2f} x the "
              f"throughput, {cpu:.2f} x the server CPU per answer")


# -- recovery after kill -9 --------------------------------------------------------------------------

@dataclass
class Writer:
    """Sets its own item's number to 1, 2, 3... through one node, one write at a time with a pause between. A
    refused write (503, 429, no connection) is sent again under the same Idempotency-Key once its Retry-After
    has passed, as a client should."""

    item: str
    column: str
    headers: dict[str, str]
    base_url: str = ""
    value: int = 0
    in_flight: float | None = None  # when the request now waiting for its answer was sent
    acks: list[tuple[float, float]] = field(default_factory=list)  # (request sent, answer 200 read)
    refusals: list[tuple[float, int, float]] = field(default_factory=list)  # (when, status, Retry-After)
    failed: dict[int, int] = field(default_factory=dict)  # other statuses: given up, not retried

    async def run(self, session: aiohttp.ClientSession, pause: float, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.value += 1
            body = set_value_body(self.item, self.column, self.value)
            headers = {**self.headers, "Idempotency-Key": secrets.token_hex(8)}
            while True:
                sent = self.in_flight = time.monotonic()
                try:
                    async with session.post(self.base_url + SET_VALUE, headers=headers, data=body) as response:
                        await response.read()
                        status, retry_after = response.status, response.headers.get("Retry-After")
                except aiohttp.ClientError:
                    status, retry_after = 0, None
                self.in_flight = None
                if status == 200:
                    self.acks.append((sent, time.monotonic()))
                    break
                if status not in (0, 429, 503):
                    self.failed[status] = self.failed.get(status, 0) + 1
                    break
                wait = float(retry_after) if retry_after else pause
                self.refusals.append((time.monotonic(), status, wait))
                await asyncio.sleep(wait)
            await asyncio.sleep(pause)

    def acks_after(self, moment: float) -> list[float]:
        """When each write sent after `moment` was acknowledged."""
        return [acked for sent, acked in self.acks if sent > moment]


@dataclass
class Round:
    killed: str
    lease_left: float  # seconds the killed node's claim still had to run at the kill
    in_flight: int     # writers waiting for an answer at the kill
    first: float       # kill -> first write sent after it acknowledged, seconds (NaN: none within the limit)
    all_back: float    # kill -> every writer acknowledged again, seconds (NaN: not within the limit)
    retry_after: list[float]  # the Retry-After values of the refusals after the kill
    new_owner: str
    failed: dict[int, int]


async def recovery_round(nodes: Cluster, board: BoardFixture, writers: list[Writer],
                         args: argparse.Namespace) -> Round | str:
    """Writers through every other node keep writing to `board` while its owner is killed: the round, or why
    it could not be run."""
    key = f"board:{board.id}"
    owner = await nodes.owner(key)
    if owner is None or owner not in nodes.live:
        return "the board has no live owner in the directory"
    survivors = [node for node in nodes.live if node is not owner]
    for number, writer in enumerate(writers):
        writer.base_url = survivors[number % len(survivors)].base_url
        writer.acks.clear()
        writer.refusals.clear()
        writer.failed.clear()
    stop = asyncio.Event()
    killed_at = float("inf")
    lease_left, in_flight = 0.0, 0
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        tasks = [asyncio.create_task(writer.run(session, args.pause, stop)) for writer in writers]
        try:
            if not await until(lambda: all(len(w.acks) >= ACKS_BEFORE_KILL for w in writers), 10.0):
                answers = sorted({status for w in writers for _, status, _ in w.refusals} | set(statuses(writers)))
                return f"writes through the other nodes were not acknowledged before the kill (answers {answers})"
            lease_left = await nodes.lease_left(key)
            in_flight = sum(writer.in_flight is not None for writer in writers)
            killed_at = time.monotonic()
            await nodes.kill(owner)
            # Past this the dead node's claim has lapsed, a refused write has waited its Retry-After, and a write
            # sent to it just before the kill has waited at most its ask timeout: the round has failed.
            limit = 2 * args.lease + ASK_TIMEOUT_SECONDS + 5
            await until(lambda: all(w.acks_after(killed_at) for w in writers), limit)
        finally:
            stop.set()
            _, pending = await asyncio.wait(tasks, timeout=ASK_TIMEOUT_SECONDS + 2)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
    firsts = [min(acks) - killed_at for w in writers if (acks := w.acks_after(killed_at))]
    new_owner = await nodes.owner(key)
    return Round(owner.name, lease_left, in_flight, min(firsts, default=float("nan")),
                 max(firsts) if len(firsts) == len(writers) else float("nan"),
                 sorted(wait for w in writers for when, _, wait in w.refusals if when > killed_at),
                 new_owner.name if new_owner else "none", statuses(writers))


def statuses(writers: list[Writer]) -> dict[int, int]:
    """Answers the writers gave up on (neither 200 nor a refusal to retry), by status."""
    counts: dict[int, int] = {}
    for writer in writers:
        for status, count in writer.failed.items():
            counts[status] = counts.get(status, 0) + count
    return counts


async def recovery(nodes: Cluster, fixture: Fixture, project: str, args: argparse.Namespace) -> list[Round]:
    """Rounds of kill -9 on the owner of one busy board, a replacement node started between rounds."""
    creator = nodes.live[0]
    board = await new_board(creator.base_url, fixture, project, "Recovery", args.writers)
    writers = [Writer(item, board.number_column, bearer(fixture, fixture.keys[n % len(fixture.keys)]))
               for n, item in enumerate(board.items)]
    rounds: list[Round] = []
    for number in range(args.rounds):
        if number:
            replacement = await nodes.start()
            await warm_keys([replacement.base_url], fixture, fixture.keys)
        outcome = await recovery_round(nodes, board, writers, args)
        if isinstance(outcome, str):
            print(f"  round {number + 1}: {outcome}; no further rounds")
            break
        rounds.append(outcome)
        waits = sorted(set(outcome.retry_after))
        print(f"  round {number + 1}: killed {outcome.killed} (its claim had {outcome.lease_left:.2f} s left; "
              f"{outcome.in_flight} of {len(writers)} writers waiting for an answer): first write acknowledged "
              f"after {outcome.first:.2f} s, every writer after {outcome.all_back:.2f} s; "
              f"{len(outcome.retry_after)} refusals (Retry-After {', '.join(f'{w:g}' for w in waits) or '-'} s); "
              f"now held by {outcome.new_owner}" + (f"; gave up on {outcome.failed}" if outcome.failed else ""))
    return rounds


# -- run ---------------------------------------------------------------------------------------------

def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline else float("nan")


async def run(args: argparse.Namespace) -> int:
    unreachable = await redis_unreachable(args.redis_url)
    if unreachable:
        print(f"no Redis at {args.redis_url} ({unreachable}): start one or set OBEYA_BENCH_REDIS_URL")
        return 2
    admin_url = args.database_url
    print(f"database server: {urlsplit(admin_url).netloc if admin_url else 'embedded (pgserver, temporary)'}; "
          f"Redis: {urlsplit(args.redis_url).netloc}")
    with admin_database(admin_url) as admin, tempfile.TemporaryDirectory(prefix="obeya-bench-") as scratch:
        async with fresh_database(admin) as database_url:
            env = {**os.environ, "OBEYA_DATABASE_URL": database_url, "OBEYA_DATA_DIR": scratch,
                   "OBEYA_REDIS_URL": args.redis_url, "OBEYA_ACTOR_LEASE": str(args.lease),
                   # Keys are verified with bcrypt once per node and minute (the credential cache); the lowest
                   # cost keeps warming 32 keys on every new node, and each minute's re-verification, quick.
                   "OBEYA_BCRYPT_ROUNDS": "4"}
            slug, email = create_org(env)
            async with cluster(env, args.node_core, Path(scratch)) as nodes:
                await measure(nodes, slug, email, args)
    return 0


async def measure(nodes: Cluster, slug: str, email: str, args: argparse.Namespace) -> None:
    began = time.monotonic()
    first = await nodes.start()
    fixture = await sign_in(first.base_url, slug, email)
    project = await new_project(first.base_url, fixture)
    fixture.keys = await new_keys([first.base_url], fixture, args.keys)
    print(f"{os.cpu_count()} cores: every node is pinned to core {args.node_core}, the load generator to core "
          f"{args.client_core}, PostgreSQL and Redis are not pinned. More nodes share the same core, so the "
          "throughput figures show what forwarding and more processes cost, not what more machines would add.")
    print(f"actor lease {args.lease:g} s (default {DEFAULT_LEASE_SECONDS} s); "
          f"set-up {time.monotonic() - began:.1f} s\n")

    one = await throughput(nodes, fixture, project, args)
    print_throughput(one, one, args)
    second = await nodes.start()
    await warm_keys([second.base_url], fixture, fixture.keys)
    print()
    forwarded = await forwarding(nodes, first, second, fixture, project, args)
    print_forwarding(forwarded, first, second, args)
    print()
    two = await throughput(nodes, fixture, project, args)
    print_throughput(two, one, args)
    third = await nodes.start()
    await warm_keys([third.base_url], fixture, fixture.keys)
    print()
    three = await throughput(nodes, fixture, project, args)
    print_throughput(three, one, args)

    print(f"\nrecovery after kill -9: {args.writers} writers through the other nodes, each setting its own item "
          f"one write at a time ({args.pause * 1000:g} ms apart), retrying refused writes after their Retry-After")
    rounds = await recovery(nodes, fixture, project, args)
    summary(forwarded, [one, two, three], rounds, args)


def summary(forwarded: Forwarding, runs: list[Throughput], rounds: list[Round], args: argparse.Namespace) -> None:
    def row(label: str, measured: str, baseline: str, times: float, aim: str) -> None:
        print(f"  {label:<34}{measured:>12}  {baseline:>20}  {times:6.2f}   {aim}")

    print(f"\nsummary{'measured':>41}  {'baseline (same run)':>20}  {'ratio':>6}   aim")
    for fraction, aim in ((0.5, AIM_FORWARD_P50_MS), (0.99, AIM_FORWARD_P99_MS)):
        local, there = percentile(forwarded.local, fraction), percentile(forwarded.forwarded, fraction)
        name = f"p{fraction * 100:g}"
        row(f"forwarded - local setValue {name}", f"{there - local:+.2f} ms", f"local {name} {local:.2f} ms",
            ratio(there, local), f"< {aim:g} ms  {verdict(there - local < aim)}")
    for run in runs[1:]:
        row(f"throughput, {run.nodes} nodes", f"{run.result.throughput:.0f} req/s",
            f"1 node {runs[0].result.throughput:.0f} req/s", ratio(run.result.throughput, runs[0].result.throughput),
            "(every node on the same core)")
    first = max((r.first for r in rounds), default=float("nan"))
    row(f"recovery after kill -9, worst of {len(rounds)}", f"{first:.2f} s", f"lease {args.lease:g} s",
        ratio(first, args.lease), f"< {AIM_RECOVERY_LEASES:g} x lease  "
                                  f"{verdict(first < AIM_RECOVERY_LEASES * args.lease)}")
    every = max((r.all_back for r in rounds), default=float("nan"))
    row(f"every writer back, worst of {len(rounds)}", f"{every:.2f} s", f"lease {args.lease:g} s",
        ratio(every, args.lease), "(writes in flight at the kill included)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"),
                        help="PostgreSQL server to create the throwaway database in (default: "
                             "$OBEYA_BENCH_DATABASE_URL; unset: an embedded PostgreSQL in a temporary directory)")
    parser.add_argument("--redis-url", default=os.environ.get("OBEYA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0"),
                        help="Redis the nodes share (default: $OBEYA_BENCH_REDIS_URL or redis://127.0.0.1:6379/0)")
    parser.add_argument("--connections", type=int, default=64, help="throughput: closed-loop connections in all")
    parser.add_argument("--boards", type=int, default=6, help="throughput: boards per configuration")
    parser.add_argument("--items", type=int, default=20, help="items per board")
    parser.add_argument("--keys", type=int, default=32, help="API keys spread over the connections")
    parser.add_argument("--warmup", type=float, default=2.0, help="throughput: seconds before measuring")
    parser.add_argument("--duration", type=float, default=8.0, help="throughput: seconds measured")
    parser.add_argument("--requests", type=int, default=500, help="forwarding: measured requests each way")
    parser.add_argument("--forward-warmup", type=int, default=50, help="forwarding: pairs before measuring")
    parser.add_argument("--lease", type=float, default=3.0, help="OBEYA_ACTOR_LEASE of the nodes, seconds")
    parser.add_argument("--rounds", type=int, default=3, help="recovery: owners killed")
    parser.add_argument("--writers", type=int, default=6, help="recovery: writers, one item each")
    parser.add_argument("--pause", type=float, default=0.02, help="recovery: seconds between a writer's writes")
    parser.add_argument("--node-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.node_core = pin_client(args.node_core, args.client_core)
    return run_bounded(run(args), DEADLINE_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
