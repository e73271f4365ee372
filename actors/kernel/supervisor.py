"""The node's background workers (sweepers, schedulers, senders) and how they are run: one supervisor.

`spawn(name, factory)` runs `factory()` in a task of its own. Whatever escapes a worker — a PostgreSQL
error, a dropped connection, a bug — is logged once with the worker's name, and the worker starts again
from `factory()` after a backoff on the node's clock (1 s, doubling up to 60 s; back to 1 s once a
restarted worker has completed a step). Nothing a worker raises is left unread, and no worker stops for
good before `stop()`, which cancels every worker and awaits its clean-up.

A cancellation can be lost: before Python 3.12, `asyncio.wait_for` returns its future's result instead of
raising when that future completes in the same loop turn as the cancel (aiosmtplib awaits every SMTP reply
so, asyncpg every pool checkout), and the worker carries on as if never stopped. So once stopping, a worker
that parks is stopped there, and `stop()` cancels again, every STOP_RECANCEL_SECONDS, whatever still runs.

A worker waits for its next step through `park(woken, waiting)`: `woken()` answers at once whether that
wait is already over (its wake event is set, its deadline has passed on the clock). `idle()` returns once
every worker is parked and none is woken: what a test awaits instead of sleeping. `actors/kernel/wake.py`
parks for the workers that wait there.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from actors.runtime.clock import Clock

log = structlog.get_logger("obeya.workers")

# The first restart comes soon (a dropped connection is usually back at once); a worker that keeps failing
# is retried once a minute at most, as python-socketio's Redis listener does.
FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 60.0
# Real time, not the node's clock: how long a stopping worker may take before it is cancelled again.
STOP_RECANCEL_SECONDS = 1.0


@dataclass(eq=False)
class _Worker:
    supervisor: Supervisor
    name: str
    factory: Callable[[], Awaitable[None]]
    task: asyncio.Task[None] | None = None
    woken: Callable[[], bool] | None = None  # set while parked
    restarts: int = 0
    stepped: bool = False  # parked at least once since its last (re)start

    def idle(self) -> bool:
        return self.woken is not None and not self.woken()


# Which worker the running task belongs to, so that `park` needs no handle threaded through every loop.
# A context key, not shared state: each worker task sets its own value, tasks it starts inherit it.
_CURRENT: contextvars.ContextVar[_Worker | None] = contextvars.ContextVar("obeya_worker", default=None)


class Supervisor:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._workers: dict[str, _Worker] = {}
        self._parked = asyncio.Event()  # set whenever a worker parks
        self._stopping = False

    def spawn(self, name: str, factory: Callable[[], Awaitable[None]]) -> None:
        """Run `factory()` as the worker `name` until `stop()`, starting it again whenever it fails."""
        if name in self._workers:
            raise ValueError(f"a worker named {name!r} is already running")
        if self._stopping:
            raise RuntimeError(f"worker {name!r} spawned after stop()")
        worker = _Worker(self, name, factory)
        self._workers[name] = worker
        worker.task = asyncio.create_task(self._supervise(worker), name=f"worker {name}")

    @property
    def names(self) -> list[str]:
        return sorted(self._workers)

    def restarts(self, name: str) -> int:
        """How many times the worker `name` failed (or returned) and was started again."""
        return self._workers[name].restarts

    async def idle(self) -> None:
        """Return once every worker is parked waiting for its next step and none of them is woken.
        A worker that is woken or working parks again when its step ends (or in its backoff when the
        step fails), and parking wakes this waiter to look again."""
        await asyncio.sleep(0)  # let what already arrived (a NOTIFY, a socket's data) wake its worker first
        while not all(worker.idle() for worker in self._workers.values()):
            self._parked.clear()
            await self._parked.wait()

    async def stop(self) -> None:
        """Cancel every worker and wait until each has finished its clean-up."""
        self._stopping = True
        workers = list(self._workers.values())
        running = {worker.task for worker in workers if worker.task is not None}
        while running:  # again and again: a worker may have lost its cancellation (see the module's docstring)
            for task in running:
                task.cancel()
            _, running = await asyncio.wait(running, timeout=STOP_RECANCEL_SECONDS)
        outcomes = await asyncio.gather(*(worker.task for worker in workers if worker.task is not None),
                                        return_exceptions=True)
        for worker, outcome in zip(workers, outcomes, strict=True):
            if isinstance(outcome, Exception):
                log.error("worker_stop_failed", worker=worker.name, error=repr(outcome))
        self._workers.clear()

    async def _supervise(self, worker: _Worker) -> None:
        _CURRENT.set(worker)
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            worker.stepped = False
            try:
                await worker.factory()
                log.error("worker_returned", worker=worker.name)  # a worker loops until cancelled
            except Exception as error:
                log.exception("worker_failed", worker=worker.name, error=repr(error), restart_in=backoff)
            if worker.stepped:
                backoff = FIRST_BACKOFF_SECONDS
            worker.restarts += 1
            await rest(self.clock, backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)


async def park(woken: Callable[[], bool], waiting: Awaitable[object]) -> None:
    """Await `waiting` as the current worker's wait for its next step; `woken()` says whether that wait is
    over already. Outside a supervised worker this only awaits."""
    worker = _CURRENT.get()
    if worker is None:
        await waiting
        return
    if worker.supervisor._stopping:  # its cancellation was lost on the way here: stop now
        if inspect.iscoroutine(waiting):
            waiting.close()
        raise asyncio.CancelledError
    worker.woken = woken
    worker.stepped = True
    worker.supervisor._parked.set()
    try:
        await waiting
    finally:
        worker.woken = None


async def rest(clock: Clock, seconds: float) -> None:
    """Sleep `seconds` of clock time, parked: woken once the clock has passed the deadline."""
    deadline = clock.monotonic() + seconds
    await park(lambda: clock.monotonic() >= deadline, clock.sleep(seconds))
