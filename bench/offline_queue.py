"""The shop-floor tablet's offline queue, drained after reconnect (run by hand; prints figures, asserts nothing
but that no write was lost or applied twice): in Debian's Chromium (Playwright, the browser tests' launch
arguments), a /tablet page is taken offline, N writes (items.create, a write that a second application would
show as a second item) are put in its IndexedDB queue through the page's own queue module, then the network
comes back; the figure is the time from the `online` event to the queue being empty. Baseline, in the same
run and page, measured first (after 50 warm-up writes): the same N writes sent online one after another with
api.js's `mutate` (what a page with no queue does). Then every item is read back through the API: each name
exactly once.

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/offline_queue.py [--writes 500]

It starts its own `obeya serve` on 127.0.0.1 pinned to core 0 in a fresh database it creates and drops; this
process and the browser share core 1. The machine has 2 noisy cores: compare the ratio, not the milliseconds."""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from pathlib import Path
from urllib.parse import quote

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._browser import browser_bench, signed_in_context  # noqa: E402
from bench._setup import SessionApi, new_project  # noqa: E402
from bench._support import run_bounded  # noqa: E402

DEADLINE_SECONDS = 600
WARM_UP = 50

# Queue N items.create offline (one IndexedDB transaction each, as the screen queues a write); answers ms taken.
ENQUEUE = """async ([board, group, count]) => {
  const queue = await import("/ui/screens/tablet/queue.js");
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    await queue.enqueue([queue.call("items.create", { boardId: board, groupId: group, name: `Queued ${n}` })]);
  }
  return performance.now() - started;
}"""

# Arm the clock: from the `online` event to the queue drained (sync.js onDrained).
ARM = """async () => {
  const sync = await import("/ui/screens/tablet/sync.js");
  window.__drain = new Promise((resolve) => {
    let online = null;
    window.addEventListener("online", () => { online = performance.now(); }, { once: true });
    sync.onDrained(() => resolve(performance.now() - online));
  });
}"""

# The same writes online, one after another, each waiting for its answer.
ONE_BY_ONE = """async ([board, group, count, prefix]) => {
  const { mutate } = await import("/ui/api.js");
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    await mutate("items.create", { boardId: board, groupId: group, name: `${prefix} ${n}` });
  }
  return performance.now() - started;
}"""


async def item_names(base: str, host: str, cookie: str, board: str) -> list[str]:
    names: list[str] = []
    cursor = None
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        while True:
            page_input = {"boardId": board, "limit": 200, **({"cursor": cursor} if cursor else {})}
            url = f"{base}/api/trpc/items.list?input={quote(json.dumps({'json': page_input}))}"
            async with session.get(url, headers={"Host": host, "Cookie": cookie}) as response:
                page = (await response.json())["result"]["data"]["json"]
            names += [item["name"] for item in page["items"]]
            cursor = page.get("nextCursor")
            if not cursor:
                return names


async def run(args: argparse.Namespace) -> int:
    async with browser_bench(args.database_url) as bench:
        fixture = bench.fixture
        project = await new_project(bench.base, fixture)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
            api = SessionApi(session, bench.base, fixture.host, fixture.cookie)
            board = await api.mutate("boards.create", {"projectId": project, "name": "Queue"})
        group = board["groups"][0]["id"]
        context = await signed_in_context(bench.browser, fixture, viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        await page.goto(f"{bench.origin}/tablet")
        await page.get_by_role("button", name="Queue").wait_for()
        writes = [board["id"], group, args.writes]
        # Warm the server and the page first, so neither phase pays for the other's first requests.
        await page.evaluate(ONE_BY_ONE, [board["id"], group, WARM_UP, "Warm-up"])
        baseline = await page.evaluate(ONE_BY_ONE, [*writes, "Direct"])
        await context.set_offline(True)
        enqueue = await page.evaluate(ENQUEUE, writes)
        await page.evaluate(ARM)
        await context.set_offline(False)
        drain = await page.evaluate("window.__drain")
        names = await item_names(bench.base, fixture.host, fixture.cookie, board["id"])
    counts = collections.Counter(names)
    expected = {f"{kind} {n}" for kind in ("Queued", "Direct") for n in range(args.writes)} | {
        f"Warm-up {n}" for n in range(WARM_UP)}
    doubled = sorted(name for name, count in counts.items() if count > 1)
    missing = sorted(expected - set(counts))
    print(f"offline queue, {args.writes} items.create (Chromium, IndexedDB, one request per write in order)")
    print(f"  queued offline:                 {enqueue:9.0f} ms  ({enqueue / args.writes:.2f} ms per write)")
    print(f"  drained after reconnect:        {drain:9.0f} ms  ({drain / args.writes:.2f} ms per write)")
    print(f"  baseline, sent online one by one: {baseline:7.0f} ms  ({baseline / args.writes:.2f} ms per write)")
    print(f"  ratio drain / baseline:         {drain / baseline:9.2f}")
    print(f"  items on the board: {len(names)} (expected {len(expected)}); applied twice: {len(doubled)}; "
          f"missing: {len(missing)}")
    return 0 if not doubled and not missing and len(names) == len(expected) else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"),
                        help="a PostgreSQL server to create the throwaway database in (default: an embedded one)")
    parser.add_argument("--writes", type=int, default=500, help="writes queued offline (and sent as the baseline)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run_bounded(run(parse_args(argv)), DEADLINE_SECONDS)


if __name__ == "__main__":
    raise SystemExit(main())
