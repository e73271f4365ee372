"""The four faults a plant will see, each once, under load (tests/cluster/fault_drill.py): a board's owner killed
and replaced, Redis restarted, every PostgreSQL connection terminated, a board's owner stopped for longer than
two leases. Nothing acknowledged is lost or applied twice, no read after an acknowledged write is stale, every
screen receives every event once and in order, live (at most a Redis reconnect late) and without subscribing
again unless its node died or stalled; no answer is a 5xx other than 503 and no node logs an error; at least 99 %
of the writes are acknowledged within 5 s, and every fault's boards accept writes again within two leases."""

from __future__ import annotations

import asyncio

import asyncpg

from actors.runtime.redis_subscription import MAX_BACKOFF_SECONDS
from tests.cluster.fault_drill import KINDS, LEASE_SECONDS, Report, run_drill

# A reconnect's worth: Redis's listeners try again at most every MAX_BACKOFF_SECONDS; a second more for the
# catch-up read and two shared cores.
LIVE_WITHIN_SECONDS = MAX_BACKOFF_SECONDS + 1.0
# The first write a fault's boards acknowledge is measured from the fault: the lease's rest, the activation and
# a Retry-After's wait on two shared cores.
RECOVERY_SLACK_SECONDS = 1.0


def judge(report: Report) -> None:
    """The assertions (pure computation over every write, read and event: run off the event loop)."""
    summary = "\n".join(report.lines())
    assert sorted(fault.kind for fault in report.faults) == sorted(KINDS), summary
    assert report.acked_names and not report.lost(), (report.lost(), summary)
    assert not report.doubled(), (report.doubled(), summary)
    assert not report.given_up(), summary
    assert not report.stale_reads(), summary
    assert report.server_errors() == 0 and not report.errors, summary
    assert not report.fenced_epochs_from_two_nodes(), summary
    assert not report.stream_faults(), (report.stream_faults(), summary)
    assert not report.unexplained_drops(), summary
    assert max(report.live_delays()) <= LIVE_WITHIN_SECONDS, summary
    assert report.answered_within(report.writes) >= 0.99, summary
    for fault, seconds in report.recoveries():
        assert seconds is not None and seconds <= 2 * LEASE_SECONDS + RECOVERY_SLACK_SECONDS, (fault, summary)


async def test_each_fault_once_under_load_loses_nothing_and_recovers_within_two_leases(
        database_url: str, pool: asyncpg.Pool) -> None:
    report = await run_drill(database_url, pool, calm_seconds=3.0, faults=len(KINDS))
    await asyncio.to_thread(judge, report)
