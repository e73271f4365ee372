"""The actor runtime against real PostgreSQL: one activation per id, order, backpressure, group commit,
failed commits, fencing by epoch, idle deactivation on a manual clock, and a clean stop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from actors.runtime.clock import ManualClock
from actors.runtime.lifecycle import ActivationState
from actors.runtime.system import ActorSystem, RuntimeSettings
from protocol.errors import BadRequest, Conflict, ServiceUnavailable, TooManyRequests
from protocol.ids import new_id
from storage import events as event_log
from storage.epochs import StaleEpoch
from storage.events import StoredEvent
from storage.pool import create_pool
from tests.integration.actors.ledger_actor import PROBES, SCHEMA, Add, Get, Ledger, LedgerActor, stored

ORG = "org_actorruntimetests0"
Build = Callable[..., Awaitable[ActorSystem]]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def make_system(pool: asyncpg.Pool, clock: ManualClock) -> AsyncIterator[Build]:
    await pool.execute(SCHEMA)
    systems: list[ActorSystem] = []

    async def build(**settings: Any) -> ActorSystem:
        system = ActorSystem(pool, clock=clock, settings=RuntimeSettings(**settings))
        system.start()
        systems.append(system)
        return system

    yield build
    for system in systems:
        await system.stop()


async def ask_add(system: ActorSystem, actor_id: str, amount: int) -> int:
    reply: int = await system.ask(LedgerActor, actor_id, ORG, Add(amount))
    return reply


async def epoch_of(pool: asyncpg.Pool, actor_id: str) -> int | None:
    epoch: int | None = await pool.fetchval("SELECT epoch FROM actor_epochs WHERE actor_key = $1",
                                            LedgerActor.key_for(actor_id))
    return epoch


async def logged(pool: asyncpg.Pool, actor_id: str) -> list[StoredEvent]:
    return await event_log.read(pool, ORG, LedgerActor.key_for(actor_id), since=0, limit=10_000)


async def until_posted() -> None:
    """Let tasks that were just created run up to their first real wait (asks post synchronously)."""
    await asyncio.sleep(0)


async def test_concurrent_first_messages_make_exactly_one_activation(make_system: Build,
                                                                     pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")

    replies = await asyncio.gather(*(ask_add(system, actor_id, 1) for _ in range(50)))

    assert sorted(replies) == list(range(1, 51))
    assert PROBES[actor_id].loads == 1
    assert await epoch_of(pool, actor_id) == 1
    assert (await stored(pool, actor_id)).total == 50


async def test_messages_from_one_sender_are_applied_in_send_order(make_system: Build,
                                                                  pool: asyncpg.Pool) -> None:
    # A small batch makes the 100 messages span many turns, so order must hold across turns too.
    system = await make_system(max_batch=7)
    actor_id = new_id("led")

    replies = await asyncio.gather(*(ask_add(system, actor_id, amount) for amount in range(1, 101)))

    expected = tuple(range(1, 101))
    assert replies == [sum(expected[:n]) for n in range(1, 101)]
    state = await system.ask(LedgerActor, actor_id, ORG, Get())
    assert state.entries == expected
    assert (await stored(pool, actor_id)).entries == expected
    events = await logged(pool, actor_id)
    assert [event.seq for event in events] == list(range(1, 101))
    assert tuple(event.payload["amount"] for event in events) == expected
    assert PROBES[actor_id].commits >= 100 // 7


async def test_full_mailbox_answers_too_many_requests(make_system: Build, pool: asyncpg.Pool) -> None:
    system = await make_system(mailbox_soft_limit=3, mailbox_hard_limit=5)
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    first = asyncio.ensure_future(ask_add(system, actor_id, 1))
    await probe.entered.wait()
    queued = [asyncio.ensure_future(ask_add(system, actor_id, 1)) for _ in range(5)]
    await until_posted()

    with pytest.raises(TooManyRequests):
        await ask_add(system, actor_id, 1)

    probe.gate.set()
    assert await first == 1
    assert sorted(await asyncio.gather(*queued)) == [2, 3, 4, 5, 6]
    assert (await stored(pool, actor_id)).total == 6


async def test_rejected_message_changes_nothing_and_the_rest_of_the_turn_commits(
        make_system: Build, pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")

    results = await asyncio.gather(ask_add(system, actor_id, 2), ask_add(system, actor_id, -1),
                                   ask_add(system, actor_id, 3), return_exceptions=True)

    assert results[0] == 2 and results[2] == 5
    assert isinstance(results[1], BadRequest)
    assert (await stored(pool, actor_id)).entries == (2, 3)
    assert len(await logged(pool, actor_id)) == 2


async def test_a_refusal_is_answered_only_once_the_changes_decided_before_it_are_durable(
        make_system: Build, pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    # Both land in the first turn (the activation loads before it takes them); its commit is held.
    added = asyncio.ensure_future(ask_add(system, actor_id, 2))
    refused = asyncio.ensure_future(ask_add(system, actor_id, -1))
    await probe.entered.wait()

    assert not refused.done(), "a refusal decided against an uncommitted change must wait for the commit"

    probe.gate.set()
    assert await added == 2
    with pytest.raises(BadRequest):
        await refused
    assert (await stored(pool, actor_id)).entries == (2,)


async def test_failed_commit_fails_every_message_of_the_turn_and_memory_equals_database(
        make_system: Build, pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    published: list[StoredEvent] = []
    system.add_publish_hook(published.extend)
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    first = asyncio.ensure_future(ask_add(system, actor_id, 5))
    await probe.entered.wait()
    # Queued behind the held commit, these three are decided in one turn; 2,000,000 breaks the total's CHECK.
    turn = [asyncio.ensure_future(ask_add(system, actor_id, amount)) for amount in (1, 2_000_000, 1)]
    await until_posted()

    probe.gate.set()
    assert await first == 5
    results = await asyncio.gather(*turn, return_exceptions=True)

    assert all(isinstance(result, Conflict) for result in results), results
    assert probe.loads == 2, "the actor reloads its state after a failed commit"
    activation = system.activation(LedgerActor, actor_id)
    assert activation is not None
    assert activation.state == await stored(pool, actor_id) == Ledger(total=5, entries=(5,))
    assert [event.seq for event in await logged(pool, actor_id)] == [1]
    await system.bus.drained()
    assert [event.seq for event in published] == [1]
    assert await ask_add(system, actor_id, 1) == 6


async def test_stale_epoch_cannot_commit(make_system: Build, pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    assert await ask_add(system, actor_id, 1) == 1
    activation = system.activation(LedgerActor, actor_id)
    assert activation is not None and activation.epoch == 1
    # Another node activated the same actor behind this one's back.
    await pool.execute("UPDATE actor_epochs SET epoch = epoch + 1 WHERE actor_key = $1",
                       LedgerActor.key_for(actor_id))

    with pytest.raises(StaleEpoch):
        await ask_add(system, actor_id, 2)

    assert await stored(pool, actor_id) == Ledger(total=1, entries=(1,))
    assert len(await logged(pool, actor_id)) == 1
    await asyncio.wait_for(activation.stopped.wait(), 1)
    assert activation.status is ActivationState.INVALID
    assert await ask_add(system, actor_id, 3) == 4, "a new activation loads what is stored"
    assert await epoch_of(pool, actor_id) == 3


async def test_concurrent_writes_to_one_actor_are_group_committed(make_system: Build,
                                                                  pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    await ask_add(system, actor_id, 1)
    commits_before = PROBES[actor_id].commits

    replies = await asyncio.gather(*(ask_add(system, actor_id, 1) for _ in range(200)))

    assert sorted(replies) == list(range(2, 202))
    assert PROBES[actor_id].commits - commits_before <= 20
    assert (await stored(pool, actor_id)).total == 201
    assert [event.seq for event in await logged(pool, actor_id)] == list(range(1, 202))


async def test_committed_events_are_published_after_the_commit(make_system: Build,
                                                                 pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    seen: list[tuple[list[int], list[int]]] = []

    async def hook(events: list[StoredEvent]) -> None:
        # Read from another connection: only committed rows are visible there.
        seen.append(([event.seq for event in events], [event.seq for event in await logged(pool, actor_id)]))

    system.add_publish_hook(hook)
    await asyncio.gather(ask_add(system, actor_id, 4), ask_add(system, actor_id, 5))
    await system.ask(LedgerActor, actor_id, ORG, Get())
    await system.bus.drained()

    assert [published for published, _ in seen] in ([[1, 2]], [[1], [2]])
    # The bus does not hold the next turn for the hook, so a later commit may already be visible too.
    assert all(set(published) <= set(visible) for published, visible in seen)


async def test_idle_actor_is_deactivated_by_the_sweeper(make_system: Build, clock: ManualClock,
                                                        pool: asyncpg.Pool) -> None:
    system = await make_system(idle_timeout=60.0, sweep_interval=10.0)
    actor_id = new_id("led")
    await ask_add(system, actor_id, 1)
    activation = system.activation(LedgerActor, actor_id)
    assert activation is not None and activation.status is ActivationState.VALID

    clock.advance(59)
    assert system.sweep() == 0
    assert activation.status is ActivationState.VALID

    await asyncio.wait_for(clock.until_sleeping(), 1)
    clock.advance(10)  # the sweeper's next pass, one sweep interval later, finds it idle
    await asyncio.wait_for(activation.stopped.wait(), 1)

    assert activation.status.value == "invalid"
    assert system.activation(LedgerActor, actor_id) is None
    assert await system.directory.locate(LedgerActor.key_for(actor_id)) is None
    assert await ask_add(system, actor_id, 1) == 2
    assert PROBES[actor_id].loads == 2
    assert await epoch_of(pool, actor_id) == 2


async def test_pinned_actor_outlives_its_idle_timeout(make_system: Build, clock: ManualClock) -> None:
    system = await make_system(idle_timeout=60.0, sweep_interval=1000.0)
    actor_id = new_id("led")
    await ask_add(system, actor_id, 1)
    system.pin(LedgerActor, actor_id)

    clock.advance(120)
    assert system.sweep() == 0

    system.unpin(LedgerActor, actor_id)
    assert system.sweep() == 1


async def test_stop_finishes_the_running_turn_and_fails_queued_messages(make_system: Build,
                                                                        pool: asyncpg.Pool) -> None:
    system = await make_system()
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()
    first = asyncio.ensure_future(ask_add(system, actor_id, 1))
    await probe.entered.wait()
    queued = [asyncio.ensure_future(ask_add(system, actor_id, 1)) for _ in range(3)]
    await until_posted()

    stopping = asyncio.ensure_future(system.stop())
    await until_posted()
    probe.gate.set()
    await stopping

    assert await first == 1
    results = await asyncio.gather(*queued, return_exceptions=True)
    assert all(isinstance(result, ServiceUnavailable) for result in results), results
    assert (await stored(pool, actor_id)).total == 1
    with pytest.raises(ServiceUnavailable):
        await ask_add(system, actor_id, 1)


async def test_stop_abandons_a_stuck_turn_after_its_timeout(make_system: Build, clock: ManualClock) -> None:
    system = await make_system(stop_timeout=5.0)
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()  # never set: the commit hangs
    stuck = asyncio.ensure_future(ask_add(system, actor_id, 1))
    await probe.entered.wait()

    stopping = asyncio.ensure_future(system.stop())
    await asyncio.wait_for(clock.until_sleeping(), 1)  # stop's own timer; the sweeper is cancelled
    clock.advance(5)
    await asyncio.wait_for(stopping, 1)

    with pytest.raises(ServiceUnavailable):
        await stuck


async def test_an_actor_is_not_reachable_from_another_organization(make_system: Build) -> None:
    system = await make_system()
    actor_id = new_id("led")
    await ask_add(system, actor_id, 1)

    with pytest.raises(Exception) as raised:
        await system.ask(LedgerActor, actor_id, "org_someoneelse0000000", Get())
    assert getattr(raised.value, "code", None) == "NOT_FOUND"


async def test_a_turn_is_fenced_with_its_begin_and_appends_its_events_in_one_statement(
        database_url: str, clock: ManualClock) -> None:
    """A turn's commit costs no round trip for its epoch check (sent with BEGIN) and one for its events."""
    statements: list[str] = []

    def log_query(record: Any) -> None:
        statements.append(record.query)

    async def log_queries(conn: asyncpg.Connection) -> None:
        conn.add_query_logger(log_query)  # on every checkout: a set, so added once per connection

    logged_pool = await create_pool(database_url, min_size=1, max_size=2, setup=log_queries)
    system = ActorSystem(logged_pool, clock=clock, settings=RuntimeSettings())
    system.start()
    try:
        await logged_pool.execute(SCHEMA)
        actor_id = new_id("led")
        await ask_add(system, actor_id, 1)  # activates
        statements.clear()
        await ask_add(system, actor_id, 2)
    finally:
        await system.stop()
        await logged_pool.close()

    assert statements[0] == f"BEGIN; SELECT actor_fence('{LedgerActor.key_for(actor_id)}', 1)"
    assert statements[-1] == "COMMIT"
    assert not any("actor_epochs" in statement for statement in statements)
    assert sum("INSERT INTO events" in statement for statement in statements) == 1


async def test_an_abandoned_turn_rolls_back_and_releases_its_epoch_row(make_system: Build, clock: ManualClock,
                                                                       pool: asyncpg.Pool) -> None:
    """A turn cancelled inside its fenced transaction (storage/epochs.py `fenced`) leaves no transaction open: its
    connection goes back to the pool rolled back, and the epoch row it locked is free for the next activation."""
    system = await make_system(stop_timeout=5.0)
    actor_id = new_id("led")
    probe = PROBES[actor_id]
    probe.gate = asyncio.Event()  # never set: the turn waits inside its transaction
    stuck = asyncio.ensure_future(ask_add(system, actor_id, 1))
    await probe.entered.wait()
    stopping = asyncio.ensure_future(system.stop())
    await asyncio.wait_for(clock.until_sleeping(), 1)
    clock.advance(5)
    await asyncio.wait_for(stopping, 1)
    with pytest.raises(ServiceUnavailable):
        await stuck

    probe.gate = None
    assert await asyncio.wait_for(ask_add(await make_system(), actor_id, 2), 5) == 2
    assert await epoch_of(pool, actor_id) == 2
    assert (await stored(pool, actor_id)).entries == (2,)
    assert not await pool.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                   " AND state LIKE 'idle in transaction%'")
