"""Reads outside the mailbox, the ask timeout, the cap on active actors and each actor's own log context,
on the runtime's small ledger actor against real PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import asyncpg
import pytest
import structlog
from structlog.testing import LogCapture

from actors.runtime.clock import ManualClock
from actors.runtime.system import ActorSystem, RuntimeSettings
from protocol.errors import ServiceUnavailable, TooManyRequests
from protocol.ids import new_id
from tests.integration.actors.ledger_actor import PROBES, SCHEMA, Add, Ledger, LedgerActor, stored

ORG = "org_actorreadstests000"
Build = Callable[..., Awaitable[ActorSystem]]


@pytest.fixture
async def make_system(pool: asyncpg.Pool) -> AsyncIterator[Build]:
    await pool.execute(SCHEMA)
    systems: list[ActorSystem] = []

    async def build(**settings: Any) -> ActorSystem:
        system = ActorSystem(pool, clock=ManualClock(), settings=RuntimeSettings(**settings))
        system.start()
        systems.append(system)
        return system

    yield build
    for system in systems:
        await system.stop()


def total(state: Ledger) -> int:
    return state.total


async def test_a_read_answers_from_committed_state_while_a_write_is_being_committed(make_system: Build) -> None:
    system = await make_system()
    actor_id = new_id("led")
    assert await system.ask(LedgerActor, actor_id, ORG, Add(5)) == 5
    probe = PROBES[actor_id]
    probe.entered.clear()
    probe.gate = asyncio.Event()
    write = asyncio.ensure_future(system.ask(LedgerActor, actor_id, ORG, Add(7)))
    await probe.entered.wait()

    assert await system.read(LedgerActor, actor_id, ORG, total) == 5  # not blocked by the running turn

    probe.gate.set()
    assert await write == 12
    assert await system.read(LedgerActor, actor_id, ORG, total) == 12  # read-your-writes


async def test_a_read_activates_the_actor_and_takes_no_mailbox_slot(make_system: Build) -> None:
    system = await make_system(mailbox_soft_limit=1, mailbox_hard_limit=1)
    actor_id = new_id("led")
    assert await system.read(LedgerActor, actor_id, ORG, total) == 0
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    first = asyncio.ensure_future(system.ask(LedgerActor, actor_id, ORG, Add(1)))
    await probe.entered.wait()
    queued = asyncio.ensure_future(system.ask(LedgerActor, actor_id, ORG, Add(2)))
    await asyncio.sleep(0)
    with pytest.raises(TooManyRequests):
        await system.ask(LedgerActor, actor_id, ORG, Add(3))

    assert await system.read(LedgerActor, actor_id, ORG, total) == 0

    probe.gate.set()
    assert (await first, await queued) == (1, 3)
    assert PROBES[actor_id].loads == 1


async def test_an_ask_that_times_out_is_503_and_its_queued_message_is_never_applied(make_system: Build,
                                                                                  pool: asyncpg.Pool) -> None:
    system = await make_system(ask_timeout=0.05)
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    running = asyncio.ensure_future(system.ask(LedgerActor, actor_id, ORG, Add(1)))
    await probe.entered.wait()

    with pytest.raises(ServiceUnavailable, match="retry"):
        await system.ask(LedgerActor, actor_id, ORG, Add(100))  # queued behind the blocked commit
    with pytest.raises(ServiceUnavailable, match="retry"):
        await running  # its commit is still under way: the caller is told to retry, the turn finishes

    probe.gate.set()
    system.settings = replace(system.settings, ask_timeout=10.0)  # the rest is not about timing out
    assert await system.ask(LedgerActor, actor_id, ORG, Add(10)) == 11
    assert (await stored(pool, actor_id)).entries == (1, 10)


async def test_past_the_cap_the_least_recently_used_unpinned_actor_goes_first(make_system: Build) -> None:
    system = await make_system(max_active=3)
    a, b, c, d, e = (new_id("led") for _ in range(5))
    for actor_id in (a, b, c):
        await system.ask(LedgerActor, actor_id, ORG, Add(1))
    system.pin(LedgerActor, a)  # a is the least recently used, but has live subscribers
    leaving = system.activation(LedgerActor, b)
    assert leaving is not None

    await system.ask(LedgerActor, d, ORG, Add(1))
    await leaving.stopped.wait()

    assert {x for x in (a, b, c, d) if system.activation(LedgerActor, x) is not None} == {a, c, d}
    system.pin(LedgerActor, c)
    system.pin(LedgerActor, d)
    oldest = system.activation(LedgerActor, a)
    assert oldest is not None

    await system.ask(LedgerActor, e, ORG, Add(1))  # every one pinned: the least recently used still goes
    await oldest.stopped.wait()

    assert {x for x in (a, c, d, e) if system.activation(LedgerActor, x) is not None} == {c, d, e}
    assert await system.ask(LedgerActor, b, ORG, Add(1)) == 2  # a deactivated actor comes back from the database


async def test_an_actor_logs_with_its_own_key_not_the_request_that_activated_it(make_system: Build) -> None:
    system = await make_system()
    actor_id = new_id("led")
    capture = LogCapture()
    saved = structlog.get_config()
    structlog.configure(processors=[structlog.contextvars.merge_contextvars, capture])
    try:
        for request_id in ("req-first", "req-second"):
            structlog.contextvars.clear_contextvars()
            structlog.contextvars.bind_contextvars(request_id=request_id)
            probe = PROBES[actor_id]
            probe.gate = None
            await system.ask(LedgerActor, actor_id, ORG, Add(1))
        await system.stop()
    finally:
        structlog.contextvars.clear_contextvars()
        structlog.configure(**saved)

    lines = [entry for entry in capture.entries if entry["event"].startswith("actor.")]
    assert {entry["event"] for entry in lines} >= {"actor.activated", "actor.deactivated"}
    assert all(entry.get("actor") == LedgerActor.key_for(actor_id) for entry in lines)
    assert not any("request_id" in entry for entry in lines)


async def test_the_cap_never_deactivates_an_actor_a_read_is_waiting_to_load(make_system: Build) -> None:
    system = await make_system(max_active=1)
    first, second = new_id("led"), new_id("led")

    # Both reads activate at once: the second's room-making must not evict the first while it loads.
    totals = await asyncio.gather(system.read(LedgerActor, first, ORG, total),
                                  system.read(LedgerActor, second, ORG, total))

    assert totals == [0, 0]


async def test_a_reply_that_comes_as_the_ask_times_out_is_returned_not_503(make_system: Build) -> None:
    system = await make_system()
    actor_id = new_id("led")
    assert await system.ask(LedgerActor, actor_id, ORG, Add(1)) == 1
    activation = system.activation(LedgerActor, actor_id)
    assert activation is not None
    loop = asyncio.get_running_loop()

    def answered_at_the_deadline(message: Any) -> asyncio.Future[Any]:
        # The turn replies in the same loop pass in which the caller's timeout fires.
        future: asyncio.Future[Any] = loop.create_future()
        loop.call_soon(future.set_result, 2)
        return future

    activation.post = answered_at_the_deadline  # type: ignore[method-assign]
    system.settings = replace(system.settings, ask_timeout=0.0)

    assert await system.ask(LedgerActor, actor_id, ORG, Add(1)) == 2
