"""Stall guard (run by hand or by CI on a quiet machine; not part of the test suite): drives `bench/wrk_load.py`'s
load against `obeya serve` for 60 s with the server's stall probe on (server/stall_probe.py) and fails, exit 1,
listing them, when the event loop stalled for more than 100 ms or wrk saw a request slower than 250 ms, with where
requests waited over 100 ms (a slow request with a free loop waits for something: the probe names it). See
bench/README.md "Stall guard".

    .venv/bin/python bench/stall_guard.py [--seconds 60] [--stall-ms 100]

The server and wrk are pinned to two cores as in wrk_load.py; a neighbour taking the server's core shows as
stalls too, so run it alone (under the bench lock)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import wrk_load  # noqa: E402
from bench._support import admin_database, run_bounded  # noqa: E402

# The workloads that share the run's seconds, one after the other.
WORKLOADS = ("items.list", "items.setValue", "kpis.setValue")
# Loop lateness the probe writes down (its lines), against the limit the guard fails on.
PROBE_MS = 20.0


async def guard(args: argparse.Namespace) -> int:
    per_workload = args.seconds / len(WORKLOADS)
    load = wrk_load.parse_args(["--workloads", ",".join(WORKLOADS), "--duration", f"{per_workload:g}"])
    load.server_core, load.client_core = args.server_core, args.client_core
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="obeya-stall-") as scratch:
        probe_log = Path(scratch) / "stalls.jsonl"
        # start_target hands its environment on to `obeya serve`.
        os.environ.update({"OBEYA_STALL_LOG": str(probe_log), "OBEYA_STALL_MS": f"{PROBE_MS:g}",
                           "OBEYA_STALL_WAIT_MS": f"{args.wait_ms:g}"})
        print(f"database server: {urlsplit(args.database_url).netloc if args.database_url else 'embedded'}; "
              f"{args.seconds:g} s of {', '.join(WORKLOADS)}; fails on a loop stall over {args.stall_ms:g} ms "
              f"or a request over {wrk_load.SLOW_MS:g} ms")
        with admin_database(args.database_url) as admin:
            async with contextlib.AsyncExitStack() as stack:
                target = await wrk_load.start_target("uvloop", admin, Path(scratch), load, stack)
                for workload in (w for w in target.workloads if not w.bare):
                    result = await wrk_load.run_wrk(target.server, workload, load)
                    print(f"  {workload.name:<15} {result.throughput:8.0f} req/s  p50 {result.p50_ms:6.2f} ms  "
                          f"p99 {result.p99_ms:7.2f} ms  max {result.max_ms:7.1f} ms  "
                          f"over {wrk_load.SLOW_MS:g} ms {result.slow}")
                    if result.slow:
                        failures.append(f"{workload.name}: {result.slow} requests over {wrk_load.SLOW_MS:g} ms "
                                        f"(slowest {result.max_ms:.0f} ms)")
        if not probe_log.exists():
            # The probe opens its file as it starts: without one it never ran, and no stall seen proves nothing.
            print(f"FAILED: the server's stall probe did not start (no {probe_log.name}: "
                  "OBEYA_STALL_LOG did not reach obeya serve)")
            return 1
        lines = [json.loads(line) for line in probe_log.read_text().splitlines()]
    stalls = [line for line in lines if "late_ms" in line]
    waits = Counter(line["waiting_in"] for line in lines if "waiting_in" in line)
    print(f"loop stalls over {PROBE_MS:g} ms: {len(stalls)}"
          + (f", longest {max(s['late_ms'] for s in stalls):.0f} ms" if stalls else "")
          + f"; requests waiting at one await over {args.wait_ms:g} ms: {sum(waits.values())}")
    for stall in stalls:
        if stall["late_ms"] > args.stall_ms:
            failures.append(f"loop stalled {stall['late_ms']:.0f} ms at {stall['at']:.3f} "
                            f"(garbage collection {stall['gc_ms']:.0f} ms of it: {stall['gc']})")
    if failures and waits:
        failures.append("where requests waited (times seen, innermost frames):\n    "
                        + "\n    ".join(f"{count} x {where}" for where, count in waits.most_common(5)))
    if failures:
        print("FAILED: stalls under load\n  " + "\n  ".join(failures))
        return 1
    print(f"passed: no loop stall over {args.stall_ms:g} ms, no request over {wrk_load.SLOW_MS:g} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("OBEYA_BENCH_DATABASE_URL"),
                        help="PostgreSQL server for the throwaway database (default: $OBEYA_BENCH_DATABASE_URL)")
    parser.add_argument("--seconds", type=float, default=60.0, help="of load, shared by the workloads")
    parser.add_argument("--stall-ms", type=float, default=100.0, help="fail on a loop stall longer than this")
    parser.add_argument("--wait-ms", type=float, default=100.0,
                        help="list where requests waited at one await longer than this, when failing")
    parser.add_argument("--server-core", type=int, default=0)
    parser.add_argument("--client-core", type=int, default=1)
    args = parser.parse_args(argv)
    if not wrk_load.ready_to_load(args):
        return 2
    return run_bounded(guard(args), wrk_load.SET_UP_SECONDS + args.seconds + 3 * (len(WORKLOADS) + 1))


if __name__ == "__main__":
    sys.exit(main())
