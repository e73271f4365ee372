"""Restart benchmark (run by hand; prints figures, asserts nothing): how long a node killed with SIGKILL takes,
once started again, to answer requests: /healthz, and an `items.setValue` with an API key (a real request: its
board's actor activates from the database on the new process).

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/restart.py

One `obeya serve` on 127.0.0.1 with a throwaway database and Redis ($OBEYA_BENCH_REDIS_URL, default
redis://127.0.0.1:6379/0), pinned to core 0 while this process polls from core 1; restarted under the same node
id (a restarted pod keeps its name, so its own directory claims are its own). Each round: kill -9, start the same
command, poll every 5 ms. The clock starts just before the process is started again.

The tree's modules are compiled to bytecode first, as `pip install` does in the image (deploy/Dockerfile): with
PYTHONDONTWRITEBYTECODE=1 (set in the image and on the bench machine) a checkout without `__pycache__` compiles
every module of the tree again at each start, about 0.3 s of CPU. `--from-source` skips the step, to measure that
case (then delete the tree's `__pycache__` directories first)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._setup import bearer, create_org, new_board, new_keys, new_project, set_value_body, sign_in  # noqa: E402
from bench._support import (  # noqa: E402
    REPO,
    SERVE,
    Server,
    _launch,
    _stop,
    _wait_ready,
    admin_database,
    fresh_database,
    percentile,
    pin_client,
    run_bounded,
    verdict,
)

DEADLINE_SECONDS = 170
AIM_FIRST_ANSWER_SECONDS = 1.0
POLL_SECONDS = 0.005
# The packages of the tree (the image's `COPY` lines).
PACKAGES = ("server", "actors", "protocol", "storage", "web")


async def first_answer(session: aiohttp.ClientSession, url: str, *, headers: dict[str, str] | None = None,
                       body: bytes | None = None, started: float, limit: float = 20.0) -> float:
    """Seconds from `started` until `url` answers 200 (a GET, or a POST of `body`); NaN if not within `limit`."""
    while time.monotonic() - started < limit:
        with contextlib.suppress(aiohttp.ClientError):
            request = session.post(url, data=body, headers=headers) if body is not None \
                else session.get(url, headers=headers)
            async with request as response:
                await response.read()
                if response.status == 200:
                    return time.monotonic() - started
        await asyncio.sleep(POLL_SECONDS)
    return float("nan")


async def run(args: argparse.Namespace) -> int:
    core = pin_client(args.server_core, args.client_core)
    if not args.from_source:
        subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL)
    redis_url = os.environ.get("OBEYA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    with admin_database(os.environ.get("OBEYA_BENCH_DATABASE_URL")) as admin, \
            tempfile.TemporaryDirectory(prefix="obeya-restart-") as scratch:
        async with fresh_database(admin) as url:
            env = {**os.environ, "OBEYA_DATABASE_URL": url, "OBEYA_DATA_DIR": scratch, "OBEYA_REDIS_URL": redis_url,
                   "OBEYA_NODE_ID": f"bench-restart-{secrets.token_hex(3)}", "OBEYA_BCRYPT_ROUNDS": "4"}
            slug, email = create_org(env)
            log_dir = Path(scratch)
            server: Server = _launch(SERVE, env, core, log_dir / "server.log")
            try:
                await _wait_ready(server)
                fixture = await sign_in(server.base_url, slug, email)
                project = await new_project(server.base_url, fixture)
                board = await new_board(server.base_url, fixture, project, "Restart", 10)
                [key] = await new_keys([server.base_url], fixture, 1)
                health: list[float] = []
                writes: list[float] = []
                async with aiohttp.ClientSession() as session:
                    for number in range(args.rounds):
                        server.process.kill()
                        await asyncio.to_thread(server.process.wait, 5)
                        started = time.monotonic()
                        server = _launch(SERVE, env, core, log_dir / f"server{number}.log")
                        base = server.base_url
                        health.append(await first_answer(session, base + "/healthz", started=started))
                        body = set_value_body(board.items[number % len(board.items)], board.number_column, number)
                        writes.append(await first_answer(session, base + "/api/trpc/items.setValue",
                                                         headers=bearer(fixture, key), body=body,
                                                         started=started))
                        print(f"  round {number + 1}: /healthz after {health[-1]:.3f} s, "
                              f"first items.setValue acknowledged after {writes[-1]:.3f} s")
            finally:
                _stop([server.process])
    # A round that never answered is NaN: worst of all (max() would skip it unless it came first), and not sorted
    # among the others (NaN compares false both ways).
    unanswered = sum(math.isnan(seconds) for seconds in [*health, *writes])
    worst = float("inf") if unanswered else max(writes)
    how = "from source" if args.from_source else "bytecode compiled"
    print(f"\nrestart to first answer ({how}, {args.rounds} rounds): "
          f"/healthz median {percentile(sorted(s for s in health if not math.isnan(s)), 0.5):.3f} s, "
          f"items.setValue median {percentile(sorted(s for s in writes if not math.isnan(s)), 0.5):.3f} s, "
          + (f"{unanswered} polls never answered" if unanswered else f"worst {worst:.3f} s")
          + f"  (aim < {AIM_FIRST_ANSWER_SECONDS:g} s: {verdict(worst < AIM_FIRST_ANSWER_SECONDS)})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="kills and restarts")
    parser.add_argument("--from-source", action="store_true",
                        help="do not compile the tree first (see above)")
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    return run_bounded(run(parser.parse_args()), DEADLINE_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
