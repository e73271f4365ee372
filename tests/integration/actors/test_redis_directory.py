"""RedisDirectory against a real Redis: several nodes' directories on one Redis agree on one owner per
actor, only the owner releases, a lease lapses unless renewed, renewal keeps it, a node that stops gives
its actors up, Redis away is a 503 (a release waits for the lease instead), and the actor runtime on two nodes
activates an actor on one node only. After Redis lost its data, the owners take their keys back and nobody
else claims for a lease; the heartbeat tells a stopped node from a running one."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest
import redis.asyncio as redis

from actors.runtime.clock import ManualClock
from actors.runtime.redis_directory import ALIVE_PREFIX, RENEWALS_PER_LEASE, RedisDirectory, node_beats
from actors.runtime.system import ActorSystem
from protocol.errors import ServiceUnavailable
from protocol.ids import new_id
from server.cluster import redis_client
from tests.integration.actors.conftest import until
from tests.integration.actors.ledger_actor import SCHEMA, Add, LedgerActor
from tests.redis_process import RedisProcess

ORG = "org_redisdirectorytests"
MakeDirectory = Callable[..., RedisDirectory]


@pytest.fixture
def namespace() -> str:
    # Each test has keys of its own: parallel workers and earlier runs share the Redis.
    return f"obeya:test:{secrets.token_hex(6)}:"


@pytest.fixture
def prefix(namespace: str) -> str:
    return namespace + "actor:"


@pytest.fixture
def since_key(namespace: str) -> str:
    return namespace + "directory:since"


@pytest.fixture
def alive_prefix(namespace: str) -> str:
    return namespace + "node-alive:"


@pytest.fixture
async def make_directory(redis_client: redis.Redis, prefix: str, since_key: str,
                         alive_prefix: str) -> AsyncIterator[MakeDirectory]:
    directories: list[RedisDirectory] = []

    def make(node_id: str, **options: Any) -> RedisDirectory:
        directory = RedisDirectory(redis_client, node_id, prefix=prefix, since_key=since_key,
                                   alive_prefix=alive_prefix, **options)
        directories.append(directory)
        return directory

    # As the nodes of a cluster do when they start (server/cluster.py): this Redis's directory has no grace.
    await make("node-starting").join()
    yield make
    for directory in directories:
        await directory.stop()


async def test_one_node_claims_an_actor_and_the_other_sees_the_owner(make_directory: MakeDirectory) -> None:
    a, b = make_directory("node-a"), make_directory("node-b")
    assert await a.locate("board:1") is None

    assert await a.claim("board:1")
    assert not await b.claim("board:1")

    assert await a.locate("board:1") == "node-a"
    assert await b.locate("board:1") == "node-a"
    # Claiming again what it holds is a yes for the owner, and still a no for the other node.
    assert await a.claim("board:1")
    assert not await b.claim("board:1")


async def test_only_the_owner_releases(make_directory: MakeDirectory) -> None:
    a, b = make_directory("node-a"), make_directory("node-b")
    assert await a.claim("board:1")

    await b.release("board:1")
    assert await b.locate("board:1") == "node-a"

    await a.release("board:1")
    assert await b.locate("board:1") is None
    assert await b.claim("board:1")
    assert await a.locate("board:1") == "node-b"


async def test_a_lease_lapses_unless_renewed_and_the_other_node_then_claims(
        make_directory: MakeDirectory) -> None:
    # Not started: nothing renews node A's claim, as if the node had died.
    a, b = make_directory("node-a", lease=0.3), make_directory("node-b", lease=0.3)
    assert await a.claim("board:1")
    assert not await b.claim("board:1")

    await until(lambda: _is_free(b, "board:1"))

    assert await b.claim("board:1")
    assert await a.locate("board:1") == "node-b"
    # Node A, back, learns it lost the actor, and its renewal leaves node B's lease alone.
    assert await a.renew() == ["board:1"]
    assert "board:1" not in a.held
    await a.stop()
    assert await b.locate("board:1") == "node-b"


async def test_renewal_keeps_the_claims_of_a_live_node(make_directory: MakeDirectory) -> None:
    # A lease long enough that a loaded machine's event loop stalls never lose it; waiting past two of
    # them still proves renewal, since without it both keys lapse after one.
    lease = 1.0
    a, b = make_directory("node-a", lease=lease), make_directory("node-b", lease=lease)
    assert await a.claim("board:1")
    assert await a.claim("board:2")
    claimed = time.monotonic()
    a.start()

    async def two_leases_renewed() -> bool:
        return time.monotonic() - claimed > 2 * lease and a.renewals >= 4
    await until(two_leases_renewed)

    assert await b.locate("board:1") == "node-a"
    assert await b.locate("board:2") == "node-a"
    assert not await b.claim("board:1")


async def test_a_node_is_told_when_its_claim_was_taken(make_directory: MakeDirectory,
                                                       redis_client: redis.Redis, prefix: str) -> None:
    lost: list[str] = []
    a = make_directory("node-a", lease=1.0, on_lost=lost.append)
    assert await a.claim("board:1")
    assert await a.claim("board:2")
    a.start()
    # Node A stalled past its lease and node B took board:1 meanwhile.
    await redis_client.set(prefix + "board:1", "node-b", px=10_000)

    async def told() -> bool:
        return lost == ["board:1"]
    await until(told)

    assert a.held == frozenset({"board:2"})
    await a.stop()
    assert await a.locate("board:1") == "node-b"
    assert await a.locate("board:2") is None


async def test_many_concurrent_claims_have_one_winner(make_directory: MakeDirectory) -> None:
    directories = [make_directory(f"node-{n}") for n in range(20)]

    for round_ in range(5):
        key = f"board:{round_}"
        won = await asyncio.gather(*(d.claim(key) for d in directories))

        assert sum(won) == 1
        winner = directories[won.index(True)].node_id
        assert {await d.locate(key) for d in directories} == {winner}


async def test_a_stopping_node_gives_up_every_actor_it_holds(make_directory: MakeDirectory) -> None:
    a, b = make_directory("node-a"), make_directory("node-b")
    keys = [f"board:{n}" for n in range(3)]
    for key in keys:
        assert await a.claim(key)
    a.start()

    await a.stop()

    assert [await b.locate(key) for key in keys] == [None, None, None]
    assert all([await b.claim(key) for key in keys])


async def test_while_redis_is_away_callers_are_asked_to_retry_and_a_release_waits_for_the_lease() -> None:
    away = redis.from_url("redis://127.0.0.1:1")  # nothing listens there: as when Redis restarts
    directory = RedisDirectory(away, "node-a")
    try:
        for call in (directory.locate, directory.claim, directory.lease_left):
            with pytest.raises(ServiceUnavailable):
                await call("board:1")
        # An activation leaving (idle, stopping, or failing its load after its claim) is not failed by it: the
        # claim, no longer renewed, lapses on its own.
        await directory.release("board:1")
    finally:
        await away.aclose()


async def test_a_redis_that_stopped_answering_is_a_503_within_the_clients_wait() -> None:
    """Redis paused or cut off: connections are taken, nothing comes back. A node's client gives up after its
    wait, where a command used to wait for TCP to give up (many minutes) with its caller's request."""
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # reads nothing, answers nothing

    paused = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = paused.sockets[0].getsockname()[1]
    client = redis_client(f"redis://127.0.0.1:{port}", wait=0.2)
    directory = RedisDirectory(client, "node-a")
    try:
        for call in (directory.locate, directory.claim):
            with pytest.raises(ServiceUnavailable):
                await asyncio.wait_for(call("board:1"), timeout=5)
    finally:
        await client.aclose()
        for writer in held:
            writer.close()
        paused.close()
        await paused.wait_closed()


async def test_after_a_redis_restart_one_command_fails_and_the_pool_is_renewed() -> None:
    """A node's client holds several idle connections when Redis restarts: the first command to use one fails
    (503 for its caller), and none after it does, where each stale connection used to fail its next command, one
    by one, long after Redis was back."""
    server = RedisProcess()
    await server.start()
    client = redis_client(server.url, max_connections=8)
    try:
        # Eight connections in the pool, each used once.
        await asyncio.gather(*(client.blpop([f"obeya:test:empty:{n}"], timeout=0.2) for n in range(8)))
        await server.kill()
        await server.start()
        with pytest.raises(redis.ConnectionError):
            await client.ping()
        answers = await asyncio.gather(*(client.ping() for _ in range(8)), return_exceptions=True)
        assert answers == [True] * 8, answers
    finally:
        await client.aclose()
        await server.stop()


class CuttableLink:
    """A TCP relay to Redis that a test can cut, as a network partition between one node and Redis does."""

    def __init__(self, redis_url: str) -> None:
        self._target = urlsplit(redis_url)
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return f"redis://127.0.0.1:{self._server.sockets[0].getsockname()[1]}{self._target.path}"

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self._target.hostname, self._target.port or 6379)
        self._writers += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)

    async def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()
        await self._server.wait_closed()


async def test_a_node_cut_off_from_redis_gives_up_its_claims_once_they_may_have_lapsed(
        make_directory: MakeDirectory, redis_url: str, prefix: str, since_key: str) -> None:
    link = CuttableLink(redis_url)
    client = redis_client(await link.start(), wait=0.2)
    lost: list[str] = []
    a = RedisDirectory(client, "node-a", lease=1.0, prefix=prefix, since_key=since_key, on_lost=lost.append)
    b = make_directory("node-b")
    try:
        assert await a.claim("board:1")
        a.start()
        await until(lambda: _true(a.renewals >= 1))
        cut_at = time.monotonic()
        await link.cut()  # A's renewals fail from now on; Redis lets the claim lapse

        await until(lambda: _true(lost == ["board:1"]), within=5.0)
        # Given up in the last renewal interval before the claim could lapse (a loaded machine may be late).
        assert 1.0 / 3 <= time.monotonic() - cut_at <= 2.0
        assert a.held == frozenset()
        await until(lambda: b.claim("board:1"))  # the other node takes it once Redis let it go
    finally:
        await a.stop(release=False)
        await client.aclose()


async def _true(value: bool) -> bool:
    return value


async def test_two_runtimes_activate_an_actor_on_one_node_only(make_directory: MakeDirectory,
                                                               pool: asyncpg.Pool) -> None:
    await pool.execute(SCHEMA)
    clock = ManualClock()
    a = ActorSystem(pool, clock=clock, directory=make_directory("node-a"))
    b = ActorSystem(pool, clock=clock, directory=make_directory("node-b"))
    actor_id = new_id("led")
    async with a, b:
        assert await a.ask(LedgerActor, actor_id, ORG, Add(5)) == 5
        assert await b.directory.locate(LedgerActor.key_for(actor_id)) == "node-a"

        # No forwarding yet: the other node refuses rather than activating a second copy.
        with pytest.raises(ServiceUnavailable):
            await b.ask(LedgerActor, actor_id, ORG, Add(1))

        # Deactivated on node A, the actor is free, and node B activates it with what A committed.
        await a.evict(LedgerActor, actor_id)
        assert await b.directory.locate(LedgerActor.key_for(actor_id)) is None
        assert await b.ask(LedgerActor, actor_id, ORG, Add(1)) == 6
        assert await a.directory.locate(LedgerActor.key_for(actor_id)) == "node-b"


async def _is_free(directory: RedisDirectory, key: str) -> bool:
    return await directory.locate(key) is None


async def test_a_node_that_lost_its_lease_deactivates_the_actor(make_directory: MakeDirectory,
                                                                redis_client: redis.Redis, prefix: str,
                                                                pool: asyncpg.Pool) -> None:
    await pool.execute(SCHEMA)
    clock = ManualClock()
    directory_a = make_directory("node-a", lease=0.3)
    a = ActorSystem(pool, clock=clock, directory=directory_a)
    directory_a.on_lost = a.lost
    b = ActorSystem(pool, clock=clock, directory=make_directory("node-b"))
    actor_id = new_id("led")
    key = LedgerActor.key_for(actor_id)
    async with a, b:
        assert await a.ask(LedgerActor, actor_id, ORG, Add(5)) == 5
        directory_a.start()
        # Node A stalled past its lease and node B took the actor meanwhile.
        await redis_client.set(prefix + key, "node-b", px=10_000)

        async def deactivated() -> bool:
            return a.activation(LedgerActor, actor_id) is None
        await until(deactivated)

        # Node A's exit left node B's entry alone, and node B serves the actor with what A committed.
        assert await a.directory.locate(key) == "node-b"
        assert await b.ask(LedgerActor, actor_id, ORG, Add(1)) == 6


async def _lose_data(client: redis.Redis, prefix: str, since_key: str) -> None:
    """What a Redis restarted without persistence is to this test's directory: every key gone, the marker too."""
    keys = [key async for key in client.scan_iter(match=prefix + "*")]
    await client.delete(since_key, *keys)


async def test_after_redis_lost_its_data_the_owner_takes_its_keys_back_on_its_next_renewal(
        make_directory: MakeDirectory, redis_client: redis.Redis, prefix: str, since_key: str) -> None:
    a, b = make_directory("node-a", lease=1.0), make_directory("node-b", lease=1.0)
    assert await a.claim("board:1")
    assert await a.claim("board:2")

    await _lose_data(redis_client, prefix, since_key)
    assert await b.locate("board:1") is None

    # Node A keeps serving both boards from memory: they are its own again, not lost.
    assert await a.renew() == []
    assert a.held == frozenset({"board:1", "board:2"})
    assert [await b.locate(key) for key in ("board:1", "board:2")] == ["node-a", "node-a"]
    assert await b.lease_left("board:1") > 0.5
    assert not await b.claim("board:1")


async def test_after_redis_lost_its_data_a_free_key_is_claimed_only_once_a_lease_went_by(
        make_directory: MakeDirectory, redis_client: redis.Redis, prefix: str, since_key: str) -> None:
    lease = 1.0
    a, b = make_directory("node-a", lease=lease), make_directory("node-b", lease=lease)
    assert await a.claim("board:1")
    await _lose_data(redis_client, prefix, since_key)
    lost_at = time.monotonic()

    # Asked before node A's next renewal, node B finds nobody holds board:1, and is not given it (nor board:2,
    # which nobody held: it cannot tell the two apart).
    assert not await b.claim("board:1")
    assert not await b.claim("board:2")
    assert await a.renew() == []
    assert not await b.claim("board:1")

    await until(lambda: b.claim("board:2"))
    assert time.monotonic() - lost_at >= lease - 0.01
    assert await a.locate("board:2") == "node-b"
    # Node A's claim, no longer renewed, lapses as any does, and then node B takes board:1 too.
    await until(lambda: b.claim("board:1"))
    assert await a.renew() == ["board:1"]


async def test_a_node_stopped_past_its_lease_does_not_take_back_a_key_redis_lost(
        make_directory: MakeDirectory, redis_client: redis.Redis, prefix: str, since_key: str) -> None:
    lease = 1.0
    a, b = make_directory("node-a", lease=lease), make_directory("node-b", lease=lease)
    assert await a.claim("board:1")
    # Node A stops (nothing renews): its claim lapses and node B takes the board.
    await until(lambda: b.claim("board:1"))
    await _lose_data(redis_client, prefix, since_key)
    assert not await b.claim("board:2")  # in the grace

    # Node A runs again: board:1, last confirmed more than a lease ago, is lost; node B holds it again.
    assert await a.renew() == ["board:1"]
    assert a.held == frozenset()
    assert await b.renew() == []
    assert await a.locate("board:1") == "node-b"


async def test_a_node_starting_on_a_fresh_redis_claims_at_once_and_one_starting_in_a_grace_keeps_it(
        make_directory: MakeDirectory, redis_client: redis.Redis, prefix: str, since_key: str) -> None:
    a = make_directory("node-a")
    await redis_client.delete(since_key)  # a fresh Redis
    await a.join()
    assert await a.claim("board:1")

    await _lose_data(redis_client, prefix, since_key)
    assert not await a.claim("board:2")  # the first script after the loss begins the grace
    b = make_directory("node-b")
    await b.join()
    assert not await b.claim("board:2")


async def test_a_node_beats_while_it_renews_and_stops_beating_a_lease_after_it_stopped(
        make_directory: MakeDirectory, redis_client: redis.Redis, alive_prefix: str) -> None:
    lease = 0.3
    a = make_directory("node-a", lease=lease)
    a.start()
    await until(lambda: _true(a.renewals >= 2 * RENEWALS_PER_LEASE))  # two leases of renewals
    assert await node_beats(redis_client, "node-a", lease, alive_prefix)

    await a.stop(release=False)  # as SIGSTOP: nothing beats any more
    stopped = time.monotonic()

    async def not_beating() -> bool:
        return not await node_beats(redis_client, "node-a", lease, alive_prefix)
    await until(not_beating)
    assert time.monotonic() - stopped <= lease + 1.0
    assert int((await redis_client.info("server"))["uptime_in_seconds"]) > lease


async def test_a_node_counts_as_beating_while_redis_cannot_tell() -> None:
    server = RedisProcess()
    await server.start()
    try:
        before = redis.from_url(server.url)
        await RedisDirectory(before, "node-a", lease=10.0).beat()
        await before.aclose()
        await server.kill()
        await server.start()  # back empty, up for less than a lease

        after = redis.from_url(server.url)
        try:
            assert not await after.exists(ALIVE_PREFIX + "node-a")
            assert await node_beats(after, "node-a", 10.0)
            await server.kill()  # away
            assert await node_beats(after, "node-a", 10.0)
        finally:
            await after.aclose()
    finally:
        await server.stop()
