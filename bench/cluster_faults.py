"""Fault drill benchmark (run by hand; prints figures, asserts nothing): three nodes under steady keyed writes,
reads after every write and a screen per node and board, first without faults (the baseline), then with a fault
every 8 s, the four kinds in turn (a board's owner killed -9 and a node started five seconds later; Redis killed
and started again; every PostgreSQL connection terminated; a board's owner stopped with SIGSTOP for 8 s), lease
3 s. It prints what the clients saw: writes acknowledged within 5 s, latency with and without faults and their
ratio, refusals by status, stale reads, how soon each fault's boards accepted writes again, how late live events
reached the screens, and whether anything was lost, doubled, out of order or committed from two nodes under one
epoch. See bench/README.md.

    OBEYA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/cluster_faults.py

The drill is the cluster test's own (tests/cluster/fault_drill.py, which tests/cluster/test_fault_drill.py runs
with each fault once and asserts on): the figures here and the test's assertions are about the same run. The
nodes are `obeya serve` processes on 127.0.0.1 on a throwaway database (created and dropped) and a redis-server
of the drill's own on a free port; every process is stopped by its pid when the run ends."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import admin_database, fresh_database  # noqa: E402
from storage.pool import create_pool  # noqa: E402
from tests.cluster.fault_drill import run_drill  # noqa: E402


async def main(arguments: argparse.Namespace) -> None:
    with admin_database(os.environ.get("OBEYA_BENCH_DATABASE_URL")) as admin:
        async with fresh_database(admin) as url:
            pool = await create_pool(url, min_size=1, max_size=4)
            try:
                faults = max(1, round(arguments.minutes * 60 / arguments.every))
                print(f"{arguments.calm:.0f} s without faults, then {faults} faults one every {arguments.every:.0f} s",
                      flush=True)
                report = await run_drill(url, pool, calm_seconds=arguments.calm, faults=faults,
                                         every=arguments.every, logs=arguments.logs)
            finally:
                await pool.close()
    for line in await asyncio.to_thread(report.lines):
        print(line)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long faults are made (default 3)")
    parser.add_argument("--every", type=float, default=8.0, help="seconds between two faults (default 8)")
    parser.add_argument("--calm", type=float, default=20.0, help="seconds of load before the first fault, the "
                        "baseline (default 20)")
    parser.add_argument("--logs", type=Path, help="a directory to copy the nodes' logs into")
    asyncio.run(main(parser.parse_args()))
