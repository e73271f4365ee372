"""ActorSystem routing across nodes, in one process, on a real Redis and PostgreSQL: each node has its own
RedisDirectory, NodeInbox and ActorSystem. A message for an actor another node owns is applied by the
owner; a query answered by the owner sees every acknowledged write from any node; concurrent first
messages from two nodes make one activation; a stopped owner hands the actor over at once, a dead one
once its lease lapses, under a new epoch, with nothing acknowledged lost; evicting an actor whose owner died
needs nothing of it."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

import asyncpg
import msgspec
import pytest
import redis.asyncio as redis

from actors.runtime.clock import ManualClock
from actors.runtime.forwarding import ForwardedCall, MsgspecCodec, NodeInbox, NodeUnreachable
from actors.runtime.redis_directory import RedisDirectory
from actors.runtime.system import ActorSystem
from protocol.errors import BadRequest, ServiceUnavailable
from protocol.ids import new_id
from tests.integration.actors.conftest import until
from tests.integration.actors.ledger_actor import PROBES, SCHEMA, Add, Get, Ledger, LedgerActor

ORG = "org_clusterroutingtest0"


class ForwardedLedger(LedgerActor):
    """The test ledger with what forwarding needs: a codec and a query."""

    codec: ClassVar[MsgspecCodec] = MsgspecCodec(Add | Get, int)

    @staticmethod
    def query(state: Ledger, message: Get) -> int:
        return state.total

    @staticmethod
    def call_key(message: Add | Get) -> str | None:
        return message.once if isinstance(message, Add) else None


class CountingDirectory(RedisDirectory):
    """Counts how often the node asked where an actor lives."""

    locates = 0

    async def locate(self, key: str) -> str | None:
        self.locates += 1
        return await super().locate(key)


@dataclass
class Node:
    node_id: str
    directory: CountingDirectory
    inbox: NodeInbox
    system: ActorSystem
    running: bool = True

    async def add(self, actor_id: str, amount: int) -> int:
        total: int = await self.system.ask(ForwardedLedger, actor_id, ORG, Add(amount))
        return total

    async def total(self, actor_id: str) -> int:
        total: int = await self.system.query(ForwardedLedger, actor_id, ORG, Get())
        return total

    async def stop(self) -> None:
        """Stop as on SIGTERM: drain the mailboxes, release the leases, close the inbox."""
        if self.running:
            self.running = False
            await self.system.stop()
            await self.directory.stop()
            await self.inbox.stop()
        else:
            await self.system.stop()

    async def die(self) -> None:
        """Stop as a killed process: the inbox goes silent and the leases stay until they lapse."""
        self.running = False
        await self.inbox.stop()
        await self.directory.stop(release=False)


MakeNode = Callable[..., Awaitable[Node]]




@pytest.fixture
async def make_node(redis_client: redis.Redis, pool: asyncpg.Pool) -> AsyncIterator[MakeNode]:
    await pool.execute(SCHEMA)
    prefix = f"obeya:test:{secrets.token_hex(6)}:"
    clock = ManualClock()
    nodes: list[Node] = []

    async def make(node_id: str, *, lease: float = 10.0) -> Node:
        directory = CountingDirectory(redis_client, node_id, lease=lease, prefix=prefix + "actor:",
                                      since_key=prefix + "since")
        await directory.join()
        system = ActorSystem(pool, clock=clock, directory=directory)
        inbox = NodeInbox(redis_client, node_id, system.handle_forwarded, prefix=prefix + "node:")
        system.forward_through(inbox, [ForwardedLedger])
        directory.on_lost = system.lost
        system.start()
        directory.start()
        await inbox.start()
        node = Node(node_id, directory, inbox, system)
        nodes.append(node)
        return node

    yield make
    for node in nodes:
        await node.stop()


async def epoch_of(pool: asyncpg.Pool, actor_id: str) -> int | None:
    epoch: int | None = await pool.fetchval("SELECT epoch FROM actor_epochs WHERE actor_key = $1",
                                            ForwardedLedger.key_for(actor_id))
    return epoch


async def test_writes_on_any_node_are_applied_by_the_owner_and_read_on_every_node(
        make_node: MakeNode, pool: asyncpg.Pool) -> None:
    a, b, c = await make_node("node-a"), await make_node("node-b"), await make_node("node-c")
    actor_id = new_id("led")

    assert await a.add(actor_id, 5) == 5
    assert [await node.add(actor_id, 1) for node in (b, c, b, c)] == [6, 7, 8, 9]

    # Every node reads every acknowledged write, wherever it was made.
    assert [await node.total(actor_id) for node in (a, b, c)] == [9, 9, 9]
    assert b.system.activation(ForwardedLedger, actor_id) is None
    assert c.system.activation(ForwardedLedger, actor_id) is None
    assert PROBES[actor_id].loads == 1
    assert await epoch_of(pool, actor_id) == 1


async def test_refusals_decided_by_the_owner_reach_the_caller_on_another_node(make_node: MakeNode) -> None:
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5

    with pytest.raises(BadRequest, match="amount must be positive"):
        await b.add(actor_id, 0)
    assert await b.total(actor_id) == 5


async def test_concurrent_first_messages_from_two_nodes_make_one_activation(make_node: MakeNode,
                                                                           pool: asyncpg.Pool) -> None:
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")

    replies = await asyncio.gather(*(node.add(actor_id, 1) for _ in range(20) for node in (a, b)))

    assert sorted(replies) == list(range(1, 41))
    assert PROBES[actor_id].loads == 1
    assert await epoch_of(pool, actor_id) == 1
    assert [await node.total(actor_id) for node in (a, b)] == [40, 40]


async def test_concurrent_first_reads_from_two_nodes_are_all_answered_by_one_activation(
        make_node: MakeNode, pool: asyncpg.Pool) -> None:
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")

    totals = await asyncio.gather(*(node.total(actor_id) for _ in range(10) for node in (a, b)))

    assert totals == [0] * 20  # the node that lost the claim asked the winner instead of answering 503
    assert PROBES[actor_id].loads == 1
    assert await epoch_of(pool, actor_id) == 1


async def test_a_stopped_owner_hands_its_actors_over_at_once(make_node: MakeNode, pool: asyncpg.Pool) -> None:
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5
    assert await b.add(actor_id, 1) == 6

    await a.stop()

    assert await b.add(actor_id, 1) == 7
    assert await epoch_of(pool, actor_id) == 2
    assert b.system.activation(ForwardedLedger, actor_id) is not None


async def test_a_dead_owner_is_refused_at_once_and_replaced_when_its_lease_lapses(
        make_node: MakeNode, pool: asyncpg.Pool) -> None:
    # Renewed every 0.5 s, so at least a second is left when node A dies: node B's first ask meets it.
    a, b = await make_node("node-a", lease=1.5), await make_node("node-b", lease=1.5)
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5
    assert await b.add(actor_id, 1) == 6

    await a.die()

    # Until the lease lapses, node B answers 503 at once instead of waiting for the ask timeout, telling the
    # caller to come back once the lease ran out.
    with pytest.raises(NodeUnreachable) as refused:
        await asyncio.wait_for(b.add(actor_id, 1), timeout=5)
    assert refused.value.retry_after in (1, 2)

    async def served_by_b() -> bool:
        try:
            return await b.add(actor_id, 1) == 7
        except NodeUnreachable:
            return False
    await until(served_by_b)

    # Every acknowledged write is there, under a new epoch.
    assert await b.total(actor_id) == 7
    assert await epoch_of(pool, actor_id) == 2


async def test_a_call_applied_by_a_dead_owner_is_answered_from_its_kept_reply_on_the_next(
        make_node: MakeNode, pool: asyncpg.Pool) -> None:
    a, b = await make_node("node-a", lease=1.0), await make_node("node-b", lease=1.0)
    actor_id = new_id("led")
    assert await a.system.ask(ForwardedLedger, actor_id, ORG, Add(5, once="call-1")) == 5
    # The same call again (its first reply was lost on the way): answered, not applied again.
    assert await b.system.ask(ForwardedLedger, actor_id, ORG, Add(5, once="call-1")) == 5

    await a.die()

    async def answered_by_b() -> bool:
        try:
            return await b.system.ask(ForwardedLedger, actor_id, ORG, Add(5, once="call-1")) == 5
        except NodeUnreachable:
            return False
    await until(answered_by_b)
    assert await epoch_of(pool, actor_id) == 2  # by a new activation on B, from what A kept
    assert await b.total(actor_id) == 5
    assert await b.system.ask(ForwardedLedger, actor_id, ORG, Add(1, once="call-2")) == 6


async def test_a_node_that_found_the_owner_forwards_without_asking_the_directory_again(make_node: MakeNode) -> None:
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5
    assert await b.add(actor_id, 1) == 6
    asked = b.directory.locates

    assert [await b.add(actor_id, 1) for _ in range(5)] == [7, 8, 9, 10, 11]
    assert await b.total(actor_id) == 11
    assert b.directory.locates == asked


async def test_a_remembered_owner_that_no_longer_holds_the_actor_sends_the_call_on_to_the_new_one(
        make_node: MakeNode, pool: asyncpg.Pool) -> None:
    a, b, c = await make_node("node-a"), await make_node("node-b"), await make_node("node-c")
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5
    assert await b.add(actor_id, 1) == 6  # B remembers A
    await a.system.evict(ForwardedLedger, actor_id)  # A lets it go (as when idle) ...
    assert await c.add(actor_id, 1) == 7  # ... and C takes it

    assert await b.add(actor_id, 1) == 8  # A says it moved: B finds C and sends it there, no 503
    assert await b.total(actor_id) == 8
    assert c.system.activation(ForwardedLedger, actor_id) is not None
    assert await epoch_of(pool, actor_id) == 2


async def test_evicting_an_actor_whose_owner_died_is_done_at_once(make_node: MakeNode) -> None:
    """Its data changed outside it (a project deleted with its boards, already committed) after its owner died:
    no activation is left to evict, so the call that changed it answers rather than a 503 for what it did."""
    a, b = await make_node("node-a"), await make_node("node-b")
    actor_id = new_id("led")
    assert await a.add(actor_id, 5) == 5

    await a.die()

    await asyncio.wait_for(b.system.evict(ForwardedLedger, actor_id), timeout=5)


async def test_a_call_a_node_cannot_read_is_a_503_to_retry_not_a_500(make_node: MakeNode) -> None:
    """As from a node of another version during a rolling deploy: an actor kind or a message it does not know."""
    a, _ = await make_node("node-a"), await make_node("node-b")
    for call in (ForwardedCall("ask", "kind-of-a-later-version", "led_1", ORG, b""),
                 ForwardedCall("ask", ForwardedLedger.kind, "led_1", ORG, b"not a message")):
        with pytest.raises(ServiceUnavailable) as refused:
            await a.inbox.request("node-b", msgspec.msgpack.encode(call), timeout=5)
        assert type(refused.value) is ServiceUnavailable and "retry" in refused.value.message
