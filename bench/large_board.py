"""Large board benchmark (run by hand; prints figures, asserts nothing): what a board of 10,000 items costs
next to one of 200 in the same run: activation (the board actor's load query and row building, timed in this
process against the server's database, and the first request after a restart, which activates it), the
memory its state holds, and `items.setValue` and `items.list` (first page) served over HTTP. See
bench/README.md.

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/large_board.py

It starts its own `obeya serve` on 127.0.0.1 pinned to core 0 (this process runs on core 1) in a fresh
database it creates and drops. The large board gets 200 items through the API and the rest as copies of one
of them written straight into `items` (10,000 creates through the API would take minutes); the server is then
restarted so that both boards activate from the database. Bounded to under 3 minutes."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from urllib.parse import quote, urlsplit

import aiohttp
import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from actors.board.actor import BoardActor  # noqa: E402
from bench._setup import (  # noqa: E402
    BoardFixture,
    Fixture,
    bearer,
    create_org,
    new_board,
    new_keys,
    new_project,
    set_value_body,
    sign_in,
)
from bench._support import (  # noqa: E402
    CpuWindow,
    closed_loop,
    cpu_ms,
    one_node_database,
    percentile,
    pin_client,
    profiling,
    run_bounded,
    running_server,
)

DEADLINE_SECONDS = 175
SMALL = 200
# The aims.
TARGET_ACTIVATION_MS = 300.0
TARGET_MEMORY_MB = 50.0
TARGET_SET_VALUE_SHARE = 0.8  # the large board's setValue throughput within 80 % of the small one's


async def grow(database_url: str, board: BoardFixture, size: int) -> None:
    """Copies of the board's first item, straight into the database, until it has `size` live items."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            next_number = await conn.fetchval("SELECT next_number FROM boards WHERE id = $1", board.id)
            added = size - len(board.items)
            await conn.execute(
                """INSERT INTO items (id, organization_id, board_id, group_id, parent_id, name, description, position,
                                      "values", number, version, created_by, created_at, updated_at)
                   SELECT 'itm_large' || n, organization_id, board_id, group_id, NULL, 'Copy ' || n, description,
                          position + n, "values", $3::bigint + n - 1, 1, created_by, created_at, updated_at
                   FROM items, generate_series(1, $2::int) AS n WHERE id = $1""",
                board.items[0], added, next_number)
            await conn.execute("UPDATE boards SET next_number = $2 WHERE id = $1", board.id, next_number + added)
    finally:
        await conn.close()
    board.items.extend(f"itm_large{n}" for n in range(1, size - len(board.items) + 1))


async def load_figures(database_url: str, org_id: str, board_id: str, rounds: int) -> tuple[float, float, int]:
    """The actor's load of the board, in this process: median milliseconds, MB its state holds, live items."""
    conn = await asyncpg.connect(database_url)
    try:
        actor = BoardActor(board_id, org_id, None)  # type: ignore[arg-type]  # load needs no runtime
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            await actor.load(conn)
            times.append((time.perf_counter() - started) * 1000)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        state = await actor.load(conn)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        return statistics.median(times), held / 1e6, len(state.items)
    finally:
        await conn.close()


async def first_answer(base: str, fixture: Fixture, board: BoardFixture) -> float:
    """Milliseconds of the first `items.list` of a board after a restart: its actor activates for it."""
    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        async with session.get(base + list_path(board), headers=bearer(fixture, fixture.keys[0])) as response:
            await response.read()
            if response.status != 200:
                raise RuntimeError(f"items.list answered {response.status}")
        return (time.perf_counter() - started) * 1000


async def touch_every_item(base: str, fixture: Fixture, board: BoardFixture, connections: int) -> float:
    """Set each item's number once (`connections` at a time); seconds taken. The node learns which board each
    item is on at its first request (one query, then cached: actors/board/routing.py), so a random item of a
    10,000-item board would otherwise mostly cost that query within a short phase: a warm-up effect, not
    the steady cost the phase measures."""
    gate = asyncio.Semaphore(connections)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections)) as session:
        async def one(index: int, item: str) -> None:
            async with gate, session.post(base + "/api/trpc/items.setValue", data=set_value_body(
                    item, board.number_column, index), headers=bearer(fixture, fixture.keys[index % len(fixture.keys)])
                    ) as response:
                await response.read()

        started = time.perf_counter()
        await asyncio.gather(*(one(index, item) for index, item in enumerate(board.items)))
    return time.perf_counter() - started


def list_path(board: BoardFixture) -> str:
    return "/api/trpc/items.list?input=" + quote(json.dumps({"json": {"boardId": board.id}}))


async def http_phase(base: str, fixture: Fixture, server_pid: int, board: BoardFixture, what: str,
                     args: argparse.Namespace) -> tuple[float, float, float]:
    """Closed loop of `what` (setValue or list) on one board: answers/s, p99 ms, server CPU ms per answer."""
    headers = [bearer(fixture, fixture.keys[w % len(fixture.keys)]) for w in range(args.connections)]
    rng = random.Random(5)

    def request(worker: int) -> tuple[str, str, dict[str, str], bytes | None]:
        if what == "list":
            return "GET", list_path(board), headers[worker], None
        body = set_value_body(rng.choice(board.items), board.number_column, round(rng.uniform(0, 1000), 2))
        return "POST", "/api/trpc/items.setValue", headers[worker], body

    cpu = CpuWindow((server_pid,))
    load = asyncio.create_task(closed_loop([base], request, connections=args.connections, warmup=args.warmup,
                                           duration=args.duration, on_window=cpu.mark))
    await asyncio.sleep(args.warmup)
    out = Path(args.profile) / f"{what}_{len(board.items)}.txt" if args.profile else None
    async with profiling(server_pid if out else None, out, args.duration, "raw"):
        result = await load
    if result.errors:
        print(f"  WARNING: {what} on {len(board.items)} items: errors {result.errors}")
    return result.throughput, percentile(result.latencies_ms(), 0.99), cpu_ms(cpu, len(result.ok))


async def run(args: argparse.Namespace) -> None:
    async with one_node_database(args.database_url) as (database_url, env, scratch):
        slug, email = create_org(env)
        async with running_server(env, args.server_core, Path(scratch)) as server:
            fixture = await sign_in(server.base_url, slug, email)
            project = await new_project(server.base_url, fixture)
            small = await new_board(server.base_url, fixture, project, "Small board", SMALL)
            large = await new_board(server.base_url, fixture, project, "Large board", SMALL)
        await grow(database_url, large, args.items)
        conn = await asyncpg.connect(database_url)
        org_id = await conn.fetchval("SELECT organization_id FROM boards WHERE id = $1", large.id)
        await conn.close()
        loads = {len(b.items): await load_figures(database_url, org_id, b.id, args.rounds) for b in (small, large)}
        async with running_server(env, args.server_core, Path(scratch)) as server:
            fixture.keys = await new_keys([server.base_url], fixture, args.keys)
            first = {len(b.items): await first_answer(server.base_url, fixture, b) for b in (small, large)}
            for board in (small, large):
                seconds = await touch_every_item(server.base_url, fixture, board, args.connections)
                print(f"warm-up: each of the {len(board.items):,} items set once in {seconds:.1f} s")
            figures = {}
            for what in ("setValue", "list"):
                for board in (small, large):
                    figures[what, len(board.items)] = await http_phase(server.base_url, fixture, server.pid,
                                                                       board, what, args)
    report(loads, first, figures, args)


def report(loads: dict[int, tuple[float, float, int]], first: dict[int, float],
           figures: dict[tuple[str, int], tuple[float, float, float]], args: argparse.Namespace) -> None:
    sizes = sorted(loads)
    print(f"{'':34}" + "".join(f"{size:>14,} items" for size in sizes) + "      ratio")
    load_ms = [loads[s][0] for s in sizes]
    print(f"{'load (query + rows), median ms':34}" + "".join(f"{v:20.1f}" for v in load_ms)
          + f"{load_ms[1] / load_ms[0]:11.1f}")
    print(f"{'state held, MB (tracemalloc)':34}" + "".join(f"{loads[s][1]:20.1f}" for s in sizes))
    print(f"{'first items.list after restart, ms':34}" + "".join(f"{first[s]:20.1f}" for s in sizes))
    for what in ("setValue", "list"):
        rates = [figures[what, s][0] for s in sizes]
        print(f"{what + ' answers/s':34}" + "".join(f"{v:20.0f}" for v in rates) + f"{rates[1] / rates[0]:11.2f}")
        print(f"{what + ' p99 ms':34}" + "".join(f"{figures[what, s][1]:20.1f}" for s in sizes))
        cpu = [figures[what, s][2] for s in sizes]
        print(f"{what + ' server CPU ms per answer':34}" + "".join(f"{v:20.2f}" for v in cpu)
              + f"{cpu[1] / cpu[0]:11.2f}")
    large = sizes[-1]
    print(f"\naims: activation {first[large]:.0f} ms (< {TARGET_ACTIVATION_MS:g}), state {loads[large][1]:.1f} MB "
          f"(< {TARGET_MEMORY_MB:g}), setValue at {large:,} items / at {sizes[0]} items "
          f"{figures['setValue', large][0] / figures['setValue', sizes[0]][0]:.2f} (>= {TARGET_SET_VALUE_SHARE})")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"))
    parser.add_argument("--items", type=int, default=10_000, help="items of the large board")
    parser.add_argument("--rounds", type=int, default=5, help="loads timed per board")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--keys", type=int, default=16)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--profile", metavar="DIR", help="py-spy (collapsed stacks) of the server per HTTP phase")
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    args.server_core = pin_client(args.server_core, args.client_core)
    print(f"database server: {urlsplit(args.database_url).netloc if args.database_url else 'embedded'}")
    return run_bounded(run(args), DEADLINE_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
