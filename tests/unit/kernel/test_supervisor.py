"""The worker supervisor: a failing worker is logged and started again after a backoff on the node's clock,
`idle()` waits for every worker to park, `stop()` cancels and awaits every worker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from structlog.testing import capture_logs

from actors.kernel.supervisor import FIRST_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS, Supervisor, rest
from actors.kernel.wake import pause
from actors.runtime.clock import ManualClock


async def test_a_failing_worker_restarts_after_a_doubling_backoff_capped_on_the_clock() -> None:
    clock = ManualClock()
    workers = Supervisor(clock)
    starts: list[float] = []

    async def failing() -> None:
        starts.append(clock.monotonic())
        raise ConnectionError("database went away")

    with capture_logs() as logs:
        workers.spawn("flaky", failing)
        await workers.idle()
    assert starts == [0.0] and workers.restarts("flaky") == 1
    [failed] = [entry for entry in logs if entry["event"] == "worker_failed"]
    assert failed["worker"] == "flaky" and "database went away" in failed["error"]
    assert failed["restart_in"] == FIRST_BACKOFF_SECONDS
    waited = 0.0
    backoff = FIRST_BACKOFF_SECONDS
    for attempt in range(2, 10):
        clock.advance(backoff - 0.001)
        await workers.idle()
        assert len(starts) == attempt - 1  # not before its backoff has passed
        clock.advance(0.001)
        await workers.idle()
        waited += backoff
        assert starts[-1] == pytest.approx(waited) and len(starts) == attempt
        backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
    assert backoff == MAX_BACKOFF_SECONDS
    await workers.stop()


async def test_a_worker_that_completed_a_step_restarts_after_the_first_backoff_again() -> None:
    clock = ManualClock()
    workers = Supervisor(clock)
    runs: list[float] = []

    async def steps_then_fails() -> None:
        runs.append(clock.monotonic())
        if len(runs) % 2 == 0:
            await rest(clock, 10)  # a completed step
        raise OSError("connection reset")

    workers.spawn("sweeper", steps_then_fails)
    await workers.idle()
    clock.advance(FIRST_BACKOFF_SECONDS)  # run 2: steps, then fails
    await workers.idle()
    clock.advance(10)
    await workers.idle()
    clock.advance(FIRST_BACKOFF_SECONDS)  # not 2 s: the step reset the backoff
    await workers.idle()
    assert runs == [0.0, 1.0, 12.0]
    await workers.stop()


async def test_idle_waits_for_a_woken_worker_to_finish_its_step() -> None:
    clock = ManualClock()
    workers = Supervisor(clock)
    wake = asyncio.Event()
    steps: list[int] = []
    release = asyncio.Event()

    async def worker() -> None:
        while True:
            started = clock.monotonic()
            wake.clear()
            if steps:
                await release.wait()  # a step that takes a while
            steps.append(len(steps))
            await pause(clock, wake, 60, started)

    workers.spawn("worker", worker)
    await workers.idle()
    assert steps == [0]
    wake.set()
    idle = asyncio.create_task(workers.idle())
    for _ in range(5):
        await asyncio.sleep(0)
    assert not idle.done()  # woken, and its step is not over
    release.set()
    await idle
    assert steps == [0, 1]
    clock.advance(60)  # the poll interval wakes it too
    await workers.idle()
    assert steps == [0, 1, 2]
    await workers.stop()


async def test_stop_cancels_every_worker_and_awaits_its_clean_up() -> None:
    clock = ManualClock()
    workers = Supervisor(clock)
    cleaned: list[str] = []

    def looping(name: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            try:
                while True:
                    await rest(clock, 5)
            finally:
                await asyncio.sleep(0)  # clean-up may await
                cleaned.append(name)
        return run

    workers.spawn("a", looping("a"))
    workers.spawn("b", looping("b"))
    await workers.idle()
    await workers.stop()
    assert sorted(cleaned) == ["a", "b"]
    assert workers.names == []
    with pytest.raises(RuntimeError):
        workers.spawn("late", looping("late"))


async def test_two_workers_may_not_share_a_name() -> None:
    workers = Supervisor(ManualClock())

    async def idle_forever() -> None:
        await rest(workers.clock, 3600)

    workers.spawn("one", idle_forever)
    with pytest.raises(ValueError, match="one"):
        workers.spawn("one", idle_forever)
    await workers.stop()


def _lose_the_cancellation(workers: Supervisor, reply: asyncio.Future[str]) -> asyncio.Future[None]:
    """Start `stop()` so that the SMTP reply the worker awaits arrives in the same loop turn as its
    cancellation: Python 3.11's `asyncio.wait_for` then returns the reply and the cancellation is lost."""
    stopping = asyncio.ensure_future(workers.stop())
    asyncio.get_running_loop().call_soon(reply.set_result, "250 OK")
    return stopping


async def test_stop_ends_a_worker_that_lost_its_cancellation_when_it_parks() -> None:
    workers = Supervisor(ManualClock())
    reply: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    sending, after = asyncio.Event(), list[str]()

    async def mail_sender() -> None:
        sending.set()
        after.append(await asyncio.wait_for(reply, 30))  # as aiosmtplib reads a server's reply
        while True:
            await rest(workers.clock, 30)  # the sender's poll

    workers.spawn("mail-sender", mail_sender)
    await sending.wait()
    await asyncio.wait_for(_lose_the_cancellation(workers, reply), 10)
    assert after == ["250 OK"] and workers.names == []


async def test_stop_cancels_again_a_worker_that_lost_its_cancellation_in_the_middle_of_a_step() -> None:
    workers = Supervisor(ManualClock())
    reply: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    sending, after = asyncio.Event(), list[str]()

    async def mail_sender() -> None:
        sending.set()
        after.append(await asyncio.wait_for(reply, 30))
        await asyncio.Event().wait()  # the next e-mail of the claimed batch, to a server that does not answer

    workers.spawn("mail-sender", mail_sender)
    await sending.wait()
    await asyncio.wait_for(_lose_the_cancellation(workers, reply), 10)
    assert after == ["250 OK"] and workers.names == []
