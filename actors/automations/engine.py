"""The automation engine of a node: turns triggers into durable jobs and runs them.

Jobs come from board events two ways, as webhook deliveries do: at once from the node's event bus (only
events of boards with enabled rules: those are cached, so a board without rules costs nothing), and by a
sweep of the event log past a global watermark every `SWEEP_SECONDS`, which catches events committed while
no engine ran (a restart) or on a node whose rule cache was stale. Both meet on the job's unique key, so an
event makes one job per rule. runNow, the scheduler (automation_schedule.py) and the inbound webhook route
make jobs directly.

Due jobs are claimed with SKIP LOCKED and a lease, so with several nodes each job runs on one; a node that
dies mid-run leaves its jobs to run again when the lease ends (a run is at least once). A claimed batch runs
board by board in the order the jobs were made, boards side by side; the next batch waits for the slowest
board (a call_webhook may take its 10 s timeout).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta

import asyncpg
import structlog

from actors.automations.run import INTERRUPTED, Run, completed_parent, trigger_matches
from actors.automations.schedule import schedule_due
from actors.delivery.outbound_http import open_session
from actors.kernel.invalidation import RulesChanged
from actors.kernel.node import Node
from actors.kernel.wake import BusNotes, pause, woken_by_notify
from storage import automation_jobs as jobs
from storage import automations as repo
from storage.events import StoredEvent

log = structlog.get_logger("obeya.automations")

RETENTION = timedelta(days=30)
DONE_JOBS_KEPT = timedelta(days=1)
LEASE = timedelta(minutes=5)
BATCH = 20
# Clock seconds between looks for due jobs (without a wake-up), log sweeps, schedule checks and purges.
POLL_SECONDS = 1.0
SWEEP_SECONDS = 30.0
SCHEDULE_SECONDS = 60.0
PURGE_SECONDS = 3600.0
SWEEP_OVERLAP = timedelta(minutes=5)
# Board events the bus brought and the next step has not fanned out yet. Past this many the engine stops
# noting them and sweeps the event log at its next step instead (the sweep makes the jobs of every event).
MAX_PENDING = 10_000
# Board event name -> the trigger types it may fire.
TRIGGERED_BY = {"item.created": {"item.created"}, "item.moved": {"item.moved"},
                "item.updated": {"value.changed", "subitems.completed"}, "form.submitted": {"form.submitted"},
                "kpi.target_breached": {"kpi.threshold_breach"}}


async def enabled_rules(node: Node, org_id: str, board_id: str) -> list[asyncpg.Record]:
    """A board's enabled rules, cached (`node.rules`) so that events of a board without rules cost no query.
    A rule changed on this node is seen at once (`forget_rules`), one changed on another node within
    `RULES_SECONDS` (the log sweep makes the jobs a stale cache let pass)."""
    return await node.rules.get((org_id, board_id), lambda: repo.enabled_for_board(node.pool, org_id, board_id))


def forget_rules(node: Node, org_id: str, board_id: str) -> None:
    node.invalidate(RulesChanged(org_id, board_id))


class AutomationEngine:
    def __init__(self, node: Node) -> None:
        self.node = node
        self._notes: BusNotes[StoredEvent] = BusNotes(MAX_PENDING)
        self.wake = asyncio.Event()
        # Whether jobs may be waiting: a step only looks (a statement) when some were made or announced, or
        # once per poll interval (leases run out, another node's jobs), not on every board event.
        self._jobs_waiting = True

    def _jobs_announced(self) -> None:
        self._jobs_waiting = True
        self.wake.set()

    def on_events(self, events: Sequence[StoredEvent]) -> None:
        """Bus subscriber: note the board events that may trigger a rule and wake the worker (no I/O here).
        Events of a board whose cached rules cannot fire on them are passed over without waking anyone."""
        fresh = []
        for event in events:
            if event.name not in TRIGGERED_BY or not event.stream.startswith("board:"):
                continue
            known, rules = self.node.rules.peek((event.organization_id, event.stream.removeprefix("board:")))
            if known and not any(rule["trigger"]["type"] in TRIGGERED_BY[event.name] for rule in rules or ()):
                continue
            fresh.append(event)
        if fresh:
            self._notes.add(fresh)
            self.wake.set()

    async def _fan_out(self) -> None:
        events = self._notes.take()
        wanted = []
        for event in events:
            rules = await enabled_rules(self.node, event.organization_id, event.stream.removeprefix("board:"))
            if any(rule["trigger"]["type"] in TRIGGERED_BY[event.name] for rule in rules):
                wanted.append(event.id)
        if wanted and await jobs.fan_out(self.node.pool, wanted, self.node.clock.now()):
            self._jobs_waiting = True

    async def sweep(self) -> None:
        async with self.node.pool.acquire() as conn, conn.transaction():
            if await jobs.sweep(conn, self.node.clock.now(), SWEEP_OVERLAP):
                self._jobs_waiting = True

    async def run_due(self) -> int:
        """Claim a batch of due jobs and run it; how many were claimed."""
        now = self.node.clock.now()
        claimed = await jobs.claim_due(self.node.pool, now, now + LEASE, BATCH)
        by_board: dict[str, list[asyncpg.Record]] = {}
        for job in claimed:
            by_board.setdefault(job["board_id"], []).append(job)
        # Every board's run is awaited before a failure is raised: none is left running unwatched.
        outcomes = await asyncio.gather(*(self._run_in_order(board_jobs) for board_jobs in by_board.values()),
                                        return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return len(claimed)

    async def _run_in_order(self, board_jobs: list[asyncpg.Record]) -> None:
        for job in board_jobs:
            try:
                await self.run_job(job)
            except INTERRUPTED as error:  # left to run again when its lease ends
                log.warning("automation_job_interrupted", job=job["id"], error=repr(error))
            except Exception:  # a fault of ours outside the actions: logged once, not retried every lease
                log.exception("automation_job_failed", job=job["id"], automation=job["automation_id"])
                await jobs.finish(self.node.pool, job["id"])

    async def run_job(self, job: asyncpg.Record) -> None:
        """Run one job, or finish it without a record when it no longer applies: the rule was deleted or
        disabled (runNow runs disabled rules too), its trigger changed since, or the event does not meet the
        trigger's config (which the fan-out does not check)."""
        rule = await repo.get_any(self.node.pool, job["automation_id"])
        item_id = job["item_id"]
        if rule is None or not (rule["enabled"] or job["trigger_type"] == "manual"):
            rule = None
        elif job["event"] is not None:
            data = job["event"]["data"]
            if rule["trigger"]["type"] != job["trigger_type"]:
                rule = None
            elif rule["trigger"]["type"] == "subitems.completed":
                item_id = await completed_parent(self.node, rule["board_id"], data)
                rule = rule if item_id is not None else None
            elif not trigger_matches(rule["trigger"], data):
                rule = None
        if rule is None:
            await jobs.finish(self.node.pool, job["id"])
            return
        await Run(self.node, self.session, rule, job, item_id).execute()

    async def purge(self) -> None:
        """Execution records are kept 30 days, done jobs a day."""
        now = self.node.clock.now()
        await repo.purge_executions(self.node.pool, now - RETENTION)
        await jobs.purge_done(self.node.pool, now - DONE_JOBS_KEPT)

    async def schedule(self) -> None:
        if await schedule_due(self.node):
            self._jobs_waiting = True

    async def poll(self) -> None:
        self._jobs_waiting = True

    async def run(self) -> None:
        clock = self.node.clock
        self.session = open_session(self.node)
        self.node.bus.subscribe("automations", self.on_events, read=self.node.events.read)
        periodic = {"poll": (POLL_SECONDS, self.poll), "sweep": (SWEEP_SECONDS, self.sweep),
                    "schedule": (SCHEDULE_SECONDS, self.schedule), "purge": (PURGE_SECONDS, self.purge)}
        last: dict[str, float] = {}
        try:
            async with woken_by_notify(self.node.pool, jobs.WAKE_CHANNEL, self._jobs_announced):
                while True:
                    step_started = clock.monotonic()
                    self.wake.clear()
                    if self._notes.take_overflow():
                        last.pop("sweep", None)
                    for name, (every, work) in periodic.items():
                        if name not in last or step_started - last[name] >= every:
                            await work()
                            last[name] = step_started
                    if self._notes.items:
                        await self._fan_out()
                    while self._jobs_waiting:
                        self._jobs_waiting = False  # an announcement during the run sets it again
                        if await self.run_due() == BATCH:
                            self._jobs_waiting = True
                    await pause(clock, self.wake, POLL_SECONDS, step_started)
        finally:
            self.node.bus.unsubscribe("automations")
            await self.session.close()


async def run_automations(node: Node) -> None:
    """The node's automation engine, a worker (node.workers) for as long as the app serves: a failed step (a
    database outage, a bug) is logged by the supervisor, which starts the engine again after its backoff."""
    await AutomationEngine(node).run()
