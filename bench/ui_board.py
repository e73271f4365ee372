"""Board screen in a browser benchmark (run by hand; prints figures, asserts nothing): what the front end adds on
top of the API it speaks, measured in Debian's Chromium (Playwright, the browser tests' launch arguments) with the
Performance API, next to a baseline taken in the same run:

1. a 200-item board: navigation start to interactive (the board's items all read, the table drawn and its first
   cell focusable), median and p95 over --runs page loads; baseline: the same data read with fetch() alone from
   an idle page of the same origin;
2. a 10,000-item board (made with the CSV import procedures, docs/import.md): time to first interactive and to
   all items loaded (baseline: every page of items.list fetched alone), then a scroll from top to bottom with the
   mouse wheel: long tasks ('longtask' PerformanceObserver), the longest, and frames (budget: no long task over
   50 ms while scrolling);
3. edit-to-other-browser latency: pages A and B (two browser contexts) on the 200-item board; A sets a number
   through its cell editor; from the arrival of A's items.setValue reply to B showing the
   value (a MutationObserver in B), both as performance.timeOrigin + now (A's from its Resource Timing entry);
   p50/p95/p99 over --edits edits;
   baseline: the same write over the API with a python-socketio client listening, reply to event;
4. JavaScript shipped per screen (scripts/ui_budget.py).

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/ui_board.py [--quick]

It starts its own `obeya serve` on 127.0.0.1 pinned to core 0 in a fresh database it creates and drops; this
process and the browser share core 1. The machine has 2 noisy cores: compare the ratios, not the milliseconds."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import socketio
from playwright.async_api import Browser, BrowserContext, Page

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._browser import browser_bench, signed_in_context  # noqa: E402
from bench._setup import (  # noqa: E402
    BoardFixture,
    Fixture,
    SessionApi,
    bearer,
    new_board,
    new_keys,
    new_project,
    set_value_body,
)
from bench._support import percentile, run_bounded  # noqa: E402
from bench.import_csv import upload  # noqa: E402
from scripts import ui_budget  # noqa: E402

DEADLINE_SECONDS = 600
LONG_TASK_BUDGET_MS = 50

# Installed in every page before its scripts run: long tasks, the moments the board became interactive and
# finished loading, and (when asked) when a value appeared in an item's row.
PROBE = """(() => {
  const bench = window.__bench = { longTasks: [], watch: null };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: "longtask", buffered: true });
  const check = () => {
    const table = document.querySelector("table.grid");
    if (table && !bench.interactive) {
      const cell = table.querySelector("tbody .cell__button");
      if (cell) {
        const before = document.activeElement;
        cell.focus();
        if (document.activeElement === cell) bench.interactive = performance.now();
        if (before instanceof HTMLElement) before.focus(); else cell.blur();
      }
    }
    if (bench.interactive && !bench.loaded && !document.querySelector("p.loading")) {
      bench.loaded = performance.now();
      bench.rowCount = Number(table.getAttribute("aria-rowcount"));
    }
    const watch = bench.watch;
    if (watch && !watch.seen) {
      const row = [...document.querySelectorAll("tr.row--item")]
        .find((tr) => tr.querySelector("a.row__name")?.textContent === watch.item);
      if (row?.textContent.includes(watch.text)) watch.seen = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
})();"""

# When the reply of the page's last items.setValue was in, by the network stack's clock (Resource Timing), not
# when the page's busy main thread got round to it.
WRITE_REPLIED = """() => {
  const writes = performance.getEntriesByType("resource").filter((entry) => entry.name.includes("items.setValue"));
  return performance.timeOrigin + writes[writes.length - 1].responseEnd;
}"""

# The board's data read with fetch() alone, as the screen reads it (session, then board and items at once).
FETCH_ONLY = """async ([board, allPages]) => {
  const enc = (value) => encodeURIComponent(JSON.stringify(value));
  const get = (url) => fetch(url, { headers: { Accept: "application/json" } }).then((reply) => reply.json());
  const started = performance.now();
  await get(`/api/trpc/auth.me,organizations.get?batch=1&input=${enc({ 0: { json: {} }, 1: { json: {} } })}`);
  const items = async () => {
    let cursor = null;
    do {
      const input = { boardId: board, limit: 200, ...(cursor ? { cursor } : {}) };
      const page = await get(`/api/trpc/items.list?input=${enc({ json: input })}`);
      cursor = allPages ? page.result.data.json.nextCursor : null;
    } while (cursor);
  };
  await Promise.all([items(), get(`/api/trpc/boards.get,organizations.members.list?batch=1&input=${
    enc({ 0: { json: { id: board } }, 1: { json: { limit: 200 } } })}`)]);
  return performance.now() - started;
}"""


def figures(values: list[float]) -> str:
    values = sorted(values)
    return (f"median {statistics.median(values):8.1f}   p95 {percentile(values, 0.95):8.1f}   "
            f"(n={len(values)})")


async def board_context(browser: Browser, fixture: Fixture) -> BrowserContext:
    context = await signed_in_context(browser, fixture, locale="en-GB", timezone_id="Europe/Berlin",
                                      viewport={"width": 1280, "height": 800})
    await context.add_init_script(PROBE)
    return context


async def open_board(context: BrowserContext, origin: str, board_id: str, timeout_s: float) -> tuple[Page, Any]:
    """A page on the board, once all its items are loaded: (page, its __bench record)."""
    page = await context.new_page()
    await page.goto(f"{origin}/boards/{board_id}")
    await page.wait_for_function("() => window.__bench.loaded !== undefined", timeout=timeout_s * 1000, polling=50)
    return page, await page.evaluate("window.__bench")


async def time_to_interactive(context: BrowserContext, origin: str, board: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        page, bench = await open_board(context, origin, board, 30)
        times.append(bench["interactive"])
        await page.close()
    return times


async def fetch_only(context: BrowserContext, origin: str, board: str, runs: int, all_pages: bool) -> list[float]:
    page = await context.new_page()
    await page.goto(f"{origin}/healthz")  # an idle page of the organization's origin (its cookie is sent)
    times = [await page.evaluate(FETCH_ONLY, [board, all_pages]) for _ in range(runs)]
    await page.close()
    return times


async def scroll_phase(page: Page, step: int) -> dict[str, Any]:
    """Scroll the board's table from top to bottom with the mouse wheel; long tasks and frames meanwhile."""
    box = page.locator(".board-table")
    await box.hover()
    await page.evaluate("""() => {
      const bench = window.__bench;
      bench.scroll = { start: performance.now(), frames: [] };
      const frame = (now) => {
        if (!bench.scroll.end) { bench.scroll.frames.push(now); requestAnimationFrame(frame); }
      };
      requestAnimationFrame(frame);
    }""")
    steps = 0
    at_end = ("() => { const box = document.querySelector('.board-table'); "
              "return box.scrollTop + box.clientHeight >= box.scrollHeight - 2; }")
    while True:
        for _ in range(10):
            await page.mouse.wheel(0, step)
            steps += 1
        if await page.evaluate(at_end):
            break
    await page.wait_for_timeout(300)  # the last frames of the scroll
    result: dict[str, Any] = await page.evaluate("""() => {
      const bench = window.__bench, scroll = bench.scroll;
      scroll.end = performance.now();
      const tasks = bench.longTasks.filter(([start]) => start >= scroll.start);
      const gaps = scroll.frames.slice(1).map((at, index) => at - scroll.frames[index]);
      const last = [...document.querySelectorAll("a.row__name")].map((link) => link.textContent).pop();
      return { seconds: (scroll.end - scroll.start) / 1000, tasks, frames: scroll.frames.length,
               longestFrame: Math.max(0, ...gaps), slowFrames: gaps.filter((gap) => gap > 50).length, last };
    }""")
    result["steps"] = steps
    return result


async def edit_latency(context_a: BrowserContext, context_b: BrowserContext, origin: str, board: BoardFixture,
                       edits: int) -> list[float]:
    """A sets the Count of one of its first items through the cell editor; B sees it: ms per edit."""
    page_a, _ = await open_board(context_a, origin, board.id, 30)
    page_b, _ = await open_board(context_b, origin, board.id, 30)
    names = (await page_a.locator("a.row__name").all_inner_texts())[:5]
    latencies = []
    for n in range(edits):
        item, value = names[n % len(names)], 700 + n
        await page_b.evaluate("([item, text]) => { window.__bench.watch = { item, text, seen: null }; }",
                              [item, str(value)])
        await page_a.get_by_role("button", name=re.compile(rf"^Edit Count of {re.escape(item)}:")).click()
        dialog = page_a.get_by_role("dialog")
        await dialog.get_by_label("Count").fill(str(value))
        await dialog.get_by_role("button", name="Save", exact=True).click()
        await page_b.wait_for_function("() => window.__bench.watch.seen !== null", timeout=10_000, polling="raf")
        await dialog.wait_for(state="hidden")
        replied = await page_a.evaluate(WRITE_REPLIED)
        seen = await page_b.evaluate("window.__bench.watch.seen")
        latencies.append(seen - replied)
    await page_a.close()
    await page_b.close()
    return latencies


async def api_latency(base: str, fixture: Fixture, board: BoardFixture, edits: int) -> list[float]:
    """The same write over the API (an API key), a python-socketio client on the board's room: reply to event."""
    [key] = await new_keys([base], fixture, 1)
    arrivals: dict[float, float] = {}
    client = socketio.AsyncClient(reconnection=False)

    async def updated(payload: Any) -> None:
        for change in payload["data"].get("changes", {}).values():
            if isinstance(change.get("new"), (int, float)):
                arrivals.setdefault(float(change["new"]), time.monotonic())

    client.on("item.updated", updated)
    await client.connect(base, headers={"Host": fixture.host}, auth={"token": key}, transports=["websocket"])
    reply = await client.call("subscribe", {"room": f"board:{board.id}"}, timeout=10)
    assert reply.get("ok"), reply
    latencies = []
    async with aiohttp.ClientSession() as session:
        for n in range(edits):
            value = 5000.0 + n
            async with session.post(f"{base}/api/trpc/items.setValue", headers=bearer(fixture, key),
                                    data=set_value_body(board.items[n % 5], board.number_column, value)) as response:
                await response.read()
                replied = time.monotonic()
                assert response.status == 200, await response.text()
            while value not in arrivals:
                await asyncio.sleep(0.0005)
            latencies.append((arrivals[value] - replied) * 1000)
    await client.disconnect()
    return latencies


async def large_board(base: str, fixture: Fixture, project: str, size: int) -> str:
    """A board of `size` items made with the CSV import procedures (docs/import.md)."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        api = SessionApi(session, base, fixture.host, fixture.cookie)
        board = await api.mutate("boards.create", {"projectId": project, "name": f"{size} items", "columns": [
            {"name": "Status", "type": "status"}, {"name": "Count", "type": "number"}]})
        data = ("Name,Count\n" + "".join(f"Imported item {n},{n}\n" for n in range(size))).encode()
        made = await upload(session, base, fixture.host, f"{fixture.cookie}", board["id"], data)
        count = next(column["id"] for column in board["columns"] if column["name"] == "Count")
        await api.mutate("import.mapColumns", {"importId": made["importId"], "mappings": [
            {"csvIndex": 0, "target": "item_name"}, {"csvIndex": 1, "target": "column", "columnId": count}]})
        result = await api.mutate("import.execute", {"importId": made["importId"]})
        if result["itemsCreated"] != size:
            raise RuntimeError(f"the import created {result['itemsCreated']} items of {size}")
    return str(board["id"])


async def run(args: argparse.Namespace) -> None:
    async with browser_bench(args.database_url) as bench:
        base, fixture, origin = bench.base, bench.fixture, bench.origin
        project = await new_project(base, fixture)
        small = await new_board(base, fixture, project, "200 items", 200)
        started = time.monotonic()
        large = await large_board(base, fixture, project, args.large)
        print(f"setup: a {args.large:,}-item board imported in {time.monotonic() - started:.1f} s")
        context = await board_context(bench.browser, fixture)
        await time_to_interactive(context, origin, small.id, 1)  # modules into the cache: a return visit
        tti = await time_to_interactive(context, origin, small.id, args.runs)
        data = await fetch_only(context, origin, small.id, args.runs, all_pages=False)

        page, loaded = await open_board(context, origin, large, 120)
        scroll = await scroll_phase(page, args.step)
        load_tasks = [duration for start, duration in loaded["longTasks"] if start < loaded["loaded"]]
        await page.close()
        large_data = await fetch_only(context, origin, large, max(1, args.runs // 5), all_pages=True)

        other = await board_context(bench.browser, fixture)
        browser_edits = await edit_latency(context, other, origin, small, args.edits)
        await bench.browser.close()  # the API baseline runs without a browser beside it
        api_edits = await api_latency(base, fixture, small, args.edits)
    report(args, tti, data, loaded, load_tasks, large_data, scroll, browser_edits, api_edits)


def report(args: argparse.Namespace, tti: list[float], data: list[float], bench: dict[str, Any],
           load_tasks: list[float], large_data: list[float], scroll: dict[str, Any], browser_edits: list[float],
           api_edits: list[float]) -> None:
    print("\nThe machine has 2 noisy cores (the server on one, this process and Chromium on the other): compare the "
          "ratios, not the milliseconds.\n")
    print(f"1. {SMALL_NAME}: navigation start to interactive, ms")
    print(f"   board screen         {figures(tti)}")
    print(f"   fetch() alone        {figures(data)}")
    print(f"   ratio (median)       {statistics.median(tti) / statistics.median(data):8.1f}x\n")

    print(f"2. {args.large:,}-item board")
    print(f"   first interactive    {bench['interactive']:8.0f} ms;  all items loaded {bench['loaded']:8.0f} ms "
          f"(table rows {bench['rowCount']:,})")
    print(f"   fetch() alone, every page of items  {figures(large_data)}")
    print(f"   ratio (all loaded / fetch median)   {bench['loaded'] / statistics.median(large_data):8.1f}x")
    print(f"   long tasks while loading: {len(load_tasks)}, longest {max(load_tasks, default=0):.0f} ms")
    tasks = [duration for _, duration in scroll["tasks"]]
    verdict = "met" if max(tasks, default=0) <= LONG_TASK_BUDGET_MS else "NOT met"
    print(f"   scroll top to bottom: {scroll['steps']} wheel steps of {args.step} px in {scroll['seconds']:.1f} s, "
          f"last row drawn: {scroll['last']}")
    print(f"   long tasks while scrolling: {len(tasks)}, longest {max(tasks, default=0):.0f} ms "
          f"(budget: none over {LONG_TASK_BUDGET_MS} ms: {verdict})")
    print(f"   frames: {scroll['frames']} ({scroll['frames'] / scroll['seconds']:.0f}/s), longest frame "
          f"{scroll['longestFrame']:.0f} ms, {scroll['slowFrames']} frames over 50 ms\n")

    print(f"3. edit in page A to page B showing it, ms ({args.edits} edits)")
    browser_edits, api_edits = sorted(browser_edits), sorted(api_edits)
    for name, values in (("browser A -> browser B", browser_edits), ("API -> python-socketio", api_edits)):
        print(f"   {name:24} min {values[0]:7.1f}   p50 {percentile(values, 0.5):7.1f}   "
              f"p95 {percentile(values, 0.95):7.1f}   p99 {percentile(values, 0.99):7.1f}")
    print("   (A's and B's clocks are two renderer processes' timeOrigin + now, which disagree here by up to about\n"
          "   15 ms: a minimum below zero is that skew, and the browser figures are good to that much)")
    print(f"   ratio (p50)              {percentile(browser_edits, 0.5) / percentile(api_edits, 0.5):7.1f}x\n")

    print("4. JavaScript per screen")
    ui_budget_table()


SMALL_NAME = "200-item board"


def ui_budget_table() -> None:
    shell = ui_budget.compressed(ui_budget.static_graph(ui_budget.STATIC / "app.js"))
    print(f"   {'screen':40} {'KB (gzip -9, shell included)':>30}")
    print(f"   {'(shell alone)':40} {shell / 1024:30.1f}")
    for name, size in sorted(ui_budget.sizes().items()):
        print(f"   {name:40} {size / 1024:30.1f}")
    print(f"   budget per screen: {ui_budget.BUDGET_BYTES / 1024:.0f} KB")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"),
                        help="a PostgreSQL server to create the throwaway database in (default: an embedded one)")
    parser.add_argument("--quick", action="store_true", help="fewer runs and edits, a 2,000-item large board")
    parser.add_argument("--runs", type=int, default=20, help="page loads of the 200-item board")
    parser.add_argument("--large", type=int, default=10_000, help="items of the large board")
    parser.add_argument("--step", type=int, default=1200, help="pixels per mouse wheel step")
    parser.add_argument("--edits", type=int, default=50, help="edits for the latency figures")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.large, args.edits = 5, 2_000, 10
    return args


def main(argv: list[str] | None = None) -> int:
    return run_bounded(run(parse_args(argv)), DEADLINE_SECONDS)


if __name__ == "__main__":
    raise SystemExit(main())
