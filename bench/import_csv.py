"""CSV import benchmark (run by hand; prints figures, asserts nothing): a 10 MB file of about 100,000 rows imported
into one board through the four steps of docs/import.md, over HTTP like any client, while another client keeps
writing to the same board. See bench/README.md.

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/import_csv.py

It starts its own `obeya serve` on 127.0.0.1 pinned to core 0 (this process runs on core 1) in a fresh database
it creates and drops. Figures: each step's time, the import's rows/s, the server's peak RSS (VmHWM) and how much
the import added to it, and the latency of `items.setValue` on the same board before and during the import.
Baselines measured in the same run: the same rows created one `items.create` at a time (a sample, 8 at once) and
PostgreSQL's own `COPY` of the raw file into a plain table. Bounded to under 7 minutes."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._setup import SessionApi, create_org, new_project, sign_in  # noqa: E402
from bench._support import one_node_database, percentile, pin_client, run_bounded, running_server  # noqa: E402

DEADLINE_SECONDS = 420
MAX_BYTES = 10 * 1024 * 1024
STATUSES = ("Working on it", "Done", "Stuck")
# The concurrent writer's pause between two writes (closed loop, one connection).
WRITER_PAUSE_SECONDS = 0.02


def csv_file(rows: int, owner_email: str, target_bytes: int) -> bytes:
    """`rows` rows (name, status, owner, due date, cost, notes) padded with notes to about `target_bytes`."""
    rng = random.Random(7)
    header = "Name,Status,Owner,Due,Cost,Notes\r\n"
    base = [f"Inspection {n},{STATUSES[n % 3]},{owner_email},2026-{1 + n % 12:02d}-{1 + n % 28:02d},"
            f"{rng.randint(1, 99999) / 100}," for n in range(rows)]
    room = (target_bytes - len(header) - sum(len(line) + 2 for line in base)) // rows
    notes = "Check pump seals and belt tension and guard interlocks on line A before the shift starts. "
    pad = (notes * (room // len(notes) + 1))[:max(0, room)]
    return (header + "".join(f"{line}{pad}\r\n" for line in base)).encode()


def rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of process `pid` in KiB: resident now and its peak since it started."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            name, value = line.split(":", 1)
            fields[name] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


@dataclass
class Writer:
    """One client writing to the board in a closed loop; the latency of each write, in ms."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)

    async def run(self, api: SessionApi, item_id: str, column_id: str, stop: asyncio.Event) -> None:
        value = 0
        while not stop.is_set():
            value += 1
            started = time.perf_counter()
            try:
                await api.mutate("items.setValue", {"itemId": item_id, "columnId": column_id, "value": value})
                self.latencies.append((time.perf_counter() - started) * 1000)
            except RuntimeError as error:
                status = int(str(error).split()[2]) if str(error).split()[2].isdigit() else 0
                self.errors[status] = self.errors.get(status, 0) + 1
            await asyncio.sleep(WRITER_PAUSE_SECONDS)


async def timed(what: str, call: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = await call
    seconds = time.perf_counter() - started
    print(f"  {what}: {seconds:.2f} s")
    return result, seconds


async def upload(session: aiohttp.ClientSession, base: str, host: str, cookie: str, board_id: str,
                 data: bytes) -> dict[str, Any]:
    form = aiohttp.FormData()
    form.add_field("boardId", board_id)
    form.add_field("file", data, filename="plant.csv", content_type="text/csv")
    async with session.post(base + "/api/trpc/import.uploadCsv", data=form,
                            headers={"Host": host, "Cookie": cookie, "Origin": f"http://{host}"}) as response:
        reply = await response.json()
        if response.status != 200:
            raise RuntimeError(f"upload failed: {response.status} {reply}")
    return dict(reply["result"]["data"]["json"])


async def per_item_baseline(api: SessionApi, board: dict[str, Any], sample: int, concurrency: int) -> float:
    """Rows/s of the same rows made one `items.create` each (`concurrency` at once) on a board of their own."""
    columns = {c["name"]: c for c in board["columns"]}
    gate = asyncio.Semaphore(concurrency)
    group = board["groups"][0]["id"]

    async def one(n: int) -> None:
        async with gate:
            await api.mutate("items.create", {"boardId": board["id"], "groupId": group, "name": f"Inspection {n}",
                                              "values": {columns["Status"]["id"]: STATUSES[n % 3],
                                                         columns["Cost"]["id"]: n / 100,
                                                         columns["Due"]["id"]: "2026-01-01"}})

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(sample)))
    return sample / (time.perf_counter() - started)


async def copy_baseline(database_url: str, data: bytes) -> float:
    """Seconds PostgreSQL's COPY takes to load the raw file into a plain table (text columns, no checks)."""
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("CREATE TEMP TABLE raw_import (name text, status text, owner text, due text, cost text,"
                           " notes text)")
        started = time.perf_counter()
        await conn.copy_to_table("raw_import", source=io.BytesIO(data), format="csv", header=True)
        return time.perf_counter() - started
    finally:
        await conn.close()


async def run(args: argparse.Namespace) -> None:
    async with one_node_database(args.database_url) as (database_url, env, scratch):
        slug, email = create_org(env)
        data = csv_file(args.rows, email, min(args.bytes, MAX_BYTES))
        print(f"file: {len(data):,} bytes, {args.rows:,} rows")
        async with running_server(env, args.server_core, Path(scratch)) as server, \
                aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
            base = server.base_url
            fixture = await sign_in(base, slug, email)
            project = await new_project(base, fixture)
            api = SessionApi(session, base, fixture.host, fixture.cookie)
            columns = [{"name": "Status", "type": "status"}, {"name": "Owner", "type": "people"},
                       {"name": "Due", "type": "date"}, {"name": "Cost", "type": "number"},
                       {"name": "Notes", "type": "long_text"}]
            board = await api.mutate("boards.create", {"projectId": project, "name": "Import", "columns": columns})
            sample_board = await api.mutate("boards.create", {"projectId": project, "name": "Per item",
                                                              "columns": columns})
            by_name = {c["name"]: c["id"] for c in board["columns"]}
            target = await api.mutate("items.create", {"boardId": board["id"], "groupId": board["groups"][0]["id"],
                                                       "name": "Written during the import"})
            rss_before = rss_kib(server.pid)

            quiet, stop = Writer(), asyncio.Event()
            task = asyncio.create_task(quiet.run(api, target["id"], by_name["Cost"], stop))
            await asyncio.sleep(args.quiet_seconds)
            stop.set()
            await task

            print("import:")
            session_view, upload_s = await timed("upload (stream, UTF-8 check, scan, store)",
                                                 upload(session, base, fixture.host, fixture.cookie,
                                                        board["id"], data))
            mappings = [{"csvIndex": 0, "target": "item_name"},
                        *({"csvIndex": i, "target": "column", "columnId": by_name[name]}
                          for i, name in enumerate(("Status", "Owner", "Due", "Cost", "Notes"), 1))]
            await api.mutate("import.mapColumns", {"importId": session_view["importId"], "mappings": mappings})
            preview, preview_s = await timed("preview (every row parsed)", api.mutate(
                "import.preview", {"importId": session_view["importId"]}))
            busy, stop = Writer(), asyncio.Event()
            task = asyncio.create_task(busy.run(api, target["id"], by_name["Cost"], stop))
            result, execute_s = await timed("execute (batches through the board)", api.mutate(
                "import.execute", {"importId": session_view["importId"]}))
            stop.set()
            await task
            rss_after = rss_kib(server.pid)

            print("baselines:")
            per_item = await per_item_baseline(api, sample_board, args.sample, args.sample_concurrency)
            print(f"  items.create one row at a time ({args.sample:,} rows, {args.sample_concurrency} at once): "
                  f"{per_item:,.0f} rows/s")
        copy_s = await copy_baseline(database_url, data)
        print(f"  COPY of the raw file into a plain table: {copy_s:.2f} s ({args.rows / copy_s:,.0f} rows/s)")
    report(args, data, session_view, preview, result, upload_s, preview_s, execute_s, rss_before, rss_after,
           quiet, busy, per_item, copy_s)


def report(args: argparse.Namespace, data: bytes, session_view: dict[str, Any], preview: dict[str, Any],
           result: dict[str, Any], upload_s: float, preview_s: float, execute_s: float, rss_before: tuple[int, int],
           rss_after: tuple[int, int], quiet: Writer, busy: Writer, per_item: float, copy_s: float) -> None:
    total_s = upload_s + preview_s + execute_s
    created = result["itemsCreated"]
    rate = created / execute_s
    print("\nsummary")
    print(f"  rows: {session_view['totalRows']:,} in the file, {preview['validRows']:,} valid, {created:,} created, "
          f"{result['itemsSkipped']:,} skipped; server-side duration {result['duration']:,} ms")
    print(f"  time: upload {upload_s:.2f} s + preview {preview_s:.2f} s + execute {execute_s:.2f} s = {total_s:.2f} s")
    print(f"  rate: {rate:,.0f} rows/s (execute), {created / total_s:,.0f} rows/s (all four steps)")
    print(f"  server RSS: {rss_before[0] / 1024:.0f} MiB before the upload, {rss_after[0] / 1024:.0f} MiB after "
          f"(the board's actor holds every item); peak (VmHWM) {rss_after[1] / 1024:.0f} MiB, "
          f"{(rss_after[1] - rss_before[0]) / 1024:.0f} MiB above the RSS before the upload; file "
          f"{len(data) / 2**20:.1f} MiB")
    for name, writer in (("before the import", quiet), ("during execute", busy)):
        lat = sorted(writer.latencies)
        print(f"  items.setValue on the same board {name}: {len(lat)} writes, p50 {percentile(lat, 0.5):.1f} ms, "
              f"p99 {percentile(lat, 0.99):.1f} ms, max {max(lat, default=float('nan')):.1f} ms"
              + (f", errors {writer.errors}" if writer.errors else ""))
    print(f"  ratio to items.create one row at a time: {rate / per_item:.1f}x faster")
    print(f"  ratio to COPY of the raw file: execute takes {execute_s / copy_s:.1f}x COPY's time, "
          f"all four steps {total_s / copy_s:.1f}x")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--bytes", type=int, default=MAX_BYTES - 64 * 1024, help="the file's size, at most 10 MB")
    parser.add_argument("--sample", type=int, default=2_000, help="rows of the items.create baseline")
    parser.add_argument("--sample-concurrency", type=int, default=8)
    parser.add_argument("--quiet-seconds", type=float, default=3.0, help="writes measured before the import")
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.server_core = pin_client(args.server_core, args.client_core)
    print(f"database server: {urlsplit(args.database_url).netloc if args.database_url else 'embedded'}")
    return run_bounded(run(args), DEADLINE_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
