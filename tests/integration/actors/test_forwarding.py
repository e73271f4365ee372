"""NodeInbox against a real Redis: a request reaches the other node's handler and its answer (or its
ApiError) comes back to the caller; a node nobody listens for fails at once, and Redis away is a 503 too (never
a 500); no answer in time is a 503; replies find their own callers under concurrency; and, with the Redis
directory, a write sent to a node that does not own an actor is applied by the owner and read back there."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import msgspec
import pytest
import redis.asyncio as redis

from actors.runtime.clock import ManualClock
from actors.runtime.forwarding import Handler, NodeDiedAnswering, NodeInbox, NodeUnreachable
from actors.runtime.redis_directory import RedisDirectory
from actors.runtime.system import ActorSystem
from protocol.errors import FieldError, InternalError, NotFound, ServiceUnavailable, TooManyRequests, ValidationFailed
from protocol.ids import new_id
from tests.integration.actors.conftest import until
from tests.integration.actors.ledger_actor import SCHEMA, Add, LedgerActor
from tests.redis_process import RedisProcess

ORG = "org_forwardingtests0000"
MakeInbox = Callable[[str, Handler], NodeInbox]



@pytest.fixture
def prefix() -> str:
    return f"obeya:test:{secrets.token_hex(6)}:"


@pytest.fixture
async def inboxes(redis_client: redis.Redis, prefix: str) -> AsyncIterator[list[NodeInbox]]:
    started: list[NodeInbox] = []
    yield started
    for inbox in started:
        await inbox.stop()


async def start(inboxes: list[NodeInbox], redis_client: redis.Redis, prefix: str, node_id: str,
                handler: Handler) -> NodeInbox:
    inbox = NodeInbox(redis_client, node_id, handler, prefix=prefix + "node:")
    await inbox.start()
    inboxes.append(inbox)
    return inbox


async def unused(body: bytes) -> bytes:
    raise AssertionError("this node should get no requests")


async def test_a_request_is_answered_by_the_other_node(inboxes: list[NodeInbox], redis_client: redis.Redis,
                                                       prefix: str) -> None:
    async def shout(body: bytes) -> bytes:
        return body.upper() + b" from b"

    a = await start(inboxes, redis_client, prefix, "node-a", unused)
    await start(inboxes, redis_client, prefix, "node-b", shout)

    assert await a.request("node-b", b"hello", timeout=5) == b"HELLO from b"


async def test_errors_decided_on_the_other_node_reach_the_caller_as_themselves(
        inboxes: list[NodeInbox], redis_client: redis.Redis, prefix: str) -> None:
    refusals: dict[bytes, Exception] = {
        b"missing": NotFound("board not found", data={"boardId": "brd_1"}),
        b"invalid": ValidationFailed.of("name", "must not be empty"),
        b"busy": TooManyRequests("too many requests", retry_after=3),
        b"bug": RuntimeError("a secret internal detail"),
        # The answering node's connection to PostgreSQL was terminated while it read: retry, as for a local call.
        b"dropped": asyncpg.AdminShutdownError("terminating connection due to administrator command"),
    }

    async def refuse(body: bytes) -> bytes:
        raise refusals[body]

    a = await start(inboxes, redis_client, prefix, "node-a", unused)
    await start(inboxes, redis_client, prefix, "node-b", refuse)

    with pytest.raises(NotFound) as missing:
        await a.request("node-b", b"missing", timeout=5)
    assert (missing.value.message, missing.value.data) == ("board not found", {"boardId": "brd_1"})

    with pytest.raises(ValidationFailed) as invalid:
        await a.request("node-b", b"invalid", timeout=5)
    assert invalid.value.details == [FieldError("name", "must not be empty")]

    with pytest.raises(TooManyRequests) as busy:
        await a.request("node-b", b"busy", timeout=5)
    assert busy.value.retry_after == 3

    with pytest.raises(InternalError) as bug:
        await a.request("node-b", b"bug", timeout=5)
    assert "secret" not in bug.value.message

    with pytest.raises(ServiceUnavailable) as dropped:
        await a.request("node-b", b"dropped", timeout=5)
    assert dropped.value.code == "SERVICE_UNAVAILABLE"


async def test_a_node_nobody_listens_for_fails_at_once(inboxes: list[NodeInbox], redis_client: redis.Redis,
                                                       prefix: str) -> None:
    a = await start(inboxes, redis_client, prefix, "node-a", unused)
    b = await start(inboxes, redis_client, prefix, "node-b", unused)
    await b.stop()

    # A timeout far beyond the test's: the refusal must not wait for it.
    with pytest.raises(NodeUnreachable) as unreachable:
        await asyncio.wait_for(a.request("node-b", b"hello", timeout=3600), timeout=5)
    assert "node-b" not in unreachable.value.message
    with pytest.raises(NodeUnreachable):
        await asyncio.wait_for(a.request("node-never-started", b"hello", timeout=3600), timeout=5)


async def test_a_request_while_redis_is_away_is_a_503_to_retry(prefix: str) -> None:
    away = redis.from_url("redis://127.0.0.1:1")  # nothing listens there: as when Redis restarts
    try:
        inbox = NodeInbox(away, "node-a", unused, prefix=prefix + "node:")
        with pytest.raises(ServiceUnavailable) as refused:
            await asyncio.wait_for(inbox.request("node-b", b"hello", timeout=3600), timeout=5)
    finally:
        await away.aclose()
    assert not isinstance(refused.value, NodeUnreachable)  # not sent, rather than sent to nobody
    assert refused.value.retry_after == 1 and "127.0.0.1" not in refused.value.message


async def test_a_node_that_dies_while_answering_is_found_out_long_before_the_timeout(
        inboxes: list[NodeInbox], redis_client: redis.Redis, prefix: str) -> None:
    arrived = asyncio.Event()

    async def stuck(body: bytes) -> bytes:
        arrived.set()
        await asyncio.Event().wait()  # never answers: its node dies first
        return b""

    a = await start(inboxes, redis_client, prefix, "node-a", unused)
    b = await start(inboxes, redis_client, prefix, "node-b", stuck)
    asked = asyncio.create_task(a.request("node-b", b"hello", timeout=3600))
    await asyncio.wait_for(arrived.wait(), timeout=5)
    await b.stop()  # its subscription ends, as when the process is killed

    with pytest.raises(NodeUnreachable):
        await asyncio.wait_for(asked, timeout=5)


async def test_a_request_whose_answer_redis_may_have_dropped_fails_at_once_to_be_retried(prefix: str) -> None:
    """Redis restarts while a request waits for its answer: an answer published while the asking node was not
    subscribed is gone for good, so the request is a 503 to retry as soon as the subscription drops, not after its
    timeout; and the inbox, subscribed again once Redis is back, asks and answers as before."""
    server = RedisProcess()
    await server.start()
    client = redis.from_url(server.url)
    arrived, release = asyncio.Event(), asyncio.Event()

    async def held(body: bytes) -> bytes:
        arrived.set()
        await release.wait()
        return body

    a = NodeInbox(client, "node-a", unused, prefix=prefix + "node:")
    b = NodeInbox(client, "node-b", held, prefix=prefix + "node:")
    try:
        await a.start()
        await b.start()
        asked = asyncio.create_task(a.request("node-b", b"first", timeout=3600))
        await asyncio.wait_for(arrived.wait(), timeout=5)
        await server.kill()
        with pytest.raises(NodeDiedAnswering) as lost:
            await asyncio.wait_for(asked, timeout=5)
        assert lost.value.retry_after == 1

        release.set()
        await server.start()

        async def both_back() -> bool:
            return a.subscription.resubscribed == b.subscription.resubscribed == 1

        await until(both_back)
        assert await asyncio.wait_for(a.request("node-b", b"again", timeout=3600), timeout=5) == b"again"
    finally:
        release.set()
        await a.stop()
        await b.stop()
        await client.aclose()
        await server.stop()


class HeldLivenessChecks(redis.Redis):
    """A client whose liveness checks (PUBSUB NUMSUB) wait until the test lets them through."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.checking, self.let_through = asyncio.Event(), asyncio.Event()

    async def pubsub_numsub(self, *args: Any, **kwargs: Any) -> Any:
        self.checking.set()
        await self.let_through.wait()
        return await super().pubsub_numsub(*args, **kwargs)


async def test_an_answer_that_came_while_its_node_was_checked_is_returned_though_the_node_left(
        inboxes: list[NodeInbox], redis_client: redis.Redis, redis_url: str, prefix: str) -> None:
    """The node answered and then stopped (SIGTERM: its turns finish, its inbox closes last) while the caller was
    asking Redis whether it still listens: the caller has the answer of a request that was applied, not a 503."""
    release = asyncio.Event()

    async def slow(body: bytes) -> bytes:
        await release.wait()
        return b"applied"

    held = HeldLivenessChecks.from_url(redis_url)
    a = NodeInbox(held, "node-a", unused, prefix=prefix + "node:")
    replies = redis_client.pubsub()
    try:
        await a.start()
        await replies.subscribe(a.channel)
        b = await start(inboxes, redis_client, prefix, "node-b", slow)
        asked = asyncio.create_task(a.request("node-b", b"hello", timeout=3600))
        await asyncio.wait_for(held.checking.wait(), timeout=5)  # unanswered for a while: is node-b alive?
        release.set()

        async def replied() -> bool:
            message = await replies.get_message(ignore_subscribe_messages=True, timeout=0.1)
            return message is not None

        await until(replied)  # node-b's answer is on its way to node-a...
        await b.stop()  # ...and node-b no longer listens when node-a hears back from Redis
        held.let_through.set()

        assert await asyncio.wait_for(asked, timeout=5) == b"applied"
    finally:
        await replies.aclose()
        await a.stop()
        await held.aclose()


async def test_no_answer_in_time_is_a_503_and_the_late_answer_is_dropped(
        inboxes: list[NodeInbox], redis_client: redis.Redis, prefix: str) -> None:
    arrived, release = asyncio.Event(), asyncio.Event()

    async def slow(body: bytes) -> bytes:
        arrived.set()
        await release.wait()
        return b"late"

    async def quick(body: bytes) -> bytes:
        return b"quick"

    a = await start(inboxes, redis_client, prefix, "node-a", unused)
    await start(inboxes, redis_client, prefix, "node-b", slow)
    await start(inboxes, redis_client, prefix, "node-c", quick)

    with pytest.raises(ServiceUnavailable) as late:
        await a.request("node-b", b"hello", timeout=0.3)
    assert arrived.is_set()
    assert "node-b" not in late.value.message
    release.set()
    # The caller is still fine afterwards, and its next request gets its own answer.
    assert await a.request("node-c", b"hello", timeout=5) == b"quick"


async def test_concurrent_requests_each_get_their_own_answer(inboxes: list[NodeInbox], redis_client: redis.Redis,
                                                             prefix: str) -> None:
    async def echo(node: str) -> Handler:
        async def handler(body: bytes) -> bytes:
            # Answer out of order: a later request may be answered first.
            await asyncio.sleep(0)
            return node.encode() + b":" + body
        return handler

    a = await start(inboxes, redis_client, prefix, "node-a", await echo("a"))
    b = await start(inboxes, redis_client, prefix, "node-b", await echo("b"))

    answers = await asyncio.gather(*(a.request("node-b", str(n).encode(), timeout=5) for n in range(100)),
                                   *(b.request("node-a", str(n).encode(), timeout=5) for n in range(100)))

    assert answers == [f"b:{n}".encode() for n in range(100)] + [f"a:{n}".encode() for n in range(100)]


async def test_a_write_sent_to_another_node_is_applied_by_the_owner(
        inboxes: list[NodeInbox], redis_client: redis.Redis, prefix: str, pool: asyncpg.Pool) -> None:
    """The shape forwarding will take in the runtime (docs/forwarding.md), with a test codec."""
    await pool.execute(SCHEMA)
    clock = ManualClock()
    directories = {node: RedisDirectory(redis_client, node, prefix=prefix + "actor:", since_key=prefix + "since")
                   for node in ("node-a", "node-b")}
    for directory in directories.values():
        await directory.join()
    systems = {node: ActorSystem(pool, clock=clock, directory=directories[node]) for node in directories}
    actor_id = new_id("led")

    def owner_side(node: str) -> Handler:
        async def handler(body: bytes) -> bytes:
            message = msgspec.msgpack.decode(body, type=Add)
            reply: Any = await systems[node].ask(LedgerActor, actor_id, ORG, message)
            return msgspec.msgpack.encode(reply)
        return handler

    nodes = {node: await start(inboxes, redis_client, prefix, node, owner_side(node)) for node in directories}

    async def add(node: str, amount: int) -> int:
        owner = await directories[node].locate(LedgerActor.key_for(actor_id))
        if owner is None or owner == node:
            total: int = await systems[node].ask(LedgerActor, actor_id, ORG, Add(amount))
            return total
        answer = await nodes[node].request(owner, msgspec.msgpack.encode(Add(amount)), timeout=5)
        return int(msgspec.msgpack.decode(answer))

    async with systems["node-a"], systems["node-b"]:
        try:
            assert await add("node-a", 5) == 5
            # Node B owns nothing: its writes go to node A, in order, and node A's memory has them all.
            assert [await add("node-b", 1) for _ in range(3)] == [6, 7, 8]
            assert await systems["node-a"].read(LedgerActor, actor_id, ORG, lambda state: state.total) == 8
            assert systems["node-b"].activation(LedgerActor, actor_id) is None
        finally:
            for directory in directories.values():
                await directory.stop()
