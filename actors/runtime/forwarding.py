"""Request and reply between nodes over Redis: each node listens on its own pub/sub channel
(`obeya:node:<node_id>`) for requests to it and for replies to its own requests, matched by a random
correlation id. The transport of forwarding (docs/forwarding.md): it moves bytes and ApiErrors; what the
bytes mean (an actor message, a query) is up to the handler.

At most once: a request whose reply is lost (or late) is answered with a 503 the caller may retry, with
an Idempotency-Key when the request was a write. A request that reaches no listener fails at once.

Every node started with `OBEYA_REDIS_URL` runs one (server/cluster.py)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

import msgspec
import redis.asyncio as redis
import structlog

from actors.runtime.db_errors import database_error
from actors.runtime.redis_errors import REDIS_AWAY, unavailable_without_redis
from actors.runtime.redis_subscription import RedisSubscription
from protocol import errors
from protocol.errors import ApiError, FieldError, InternalError, ServiceUnavailable, TooManyRequests

log = structlog.get_logger(__name__)

PREFIX = "obeya:node:"

# A request unanswered this long checks, and then again as often, that its node still listens: a node killed
# while it answered is found out this soon, rather than when the caller's whole timeout ran out.
LIVENESS_CHECK = 0.5

Handler = Callable[[bytes], Awaitable[bytes]]


class ActorCodec(Protocol):
    """How an actor type's messages and replies cross nodes (an actor type without one is never forwarded)."""

    def encode_message(self, message: Any) -> bytes: ...

    def decode_message(self, data: bytes) -> Any: ...

    def encode_reply(self, reply: Any) -> bytes: ...

    def decode_reply(self, data: bytes) -> Any: ...


class MsgspecCodec:
    """Messages and replies of msgspec-encodable types, decoded as `message_type` and `reply_type`."""

    def __init__(self, message_type: Any, reply_type: Any) -> None:
        self._messages = msgspec.msgpack.Decoder(message_type)
        self._replies = msgspec.msgpack.Decoder(reply_type)

    def encode_message(self, message: Any) -> bytes:
        return _encoder.encode(message)

    def decode_message(self, data: bytes) -> Any:
        return self._messages.decode(data)

    def encode_reply(self, reply: Any) -> bytes:
        return _encoder.encode(reply)

    def decode_reply(self, data: bytes) -> Any:
        return self._replies.decode(data)


class ForwardedCall(msgspec.Struct, frozen=True):
    """An `ask` (through the mailbox), a `query` (a pure read of committed state) or an `evict` (deactivate,
    the data changed outside the actor) for an actor."""

    op: Literal["ask", "query", "evict"]
    kind: str
    actor_id: str
    organization_id: str
    message: bytes


class NodeUnreachable(ServiceUnavailable):
    """Nobody listens on the target node's channel: the node is dead or stopping. Safe to retry."""


class NodeDiedAnswering(NodeUnreachable):
    """The node took the request and stopped listening before it answered: it may have run it."""


class Failure(msgspec.Struct, frozen=True):
    type: str
    code: str
    message: str
    details: list[FieldError] = []
    data: dict[str, Any] = {}
    retry_after: int | None = None


class Request(msgspec.Struct, frozen=True, tag="request"):
    id: str
    reply_to: str
    # Wall-clock seconds (nodes run NTP-synchronised clocks): past it the caller no longer waits.
    deadline: float
    body: bytes


class Reply(msgspec.Struct, frozen=True, tag="reply"):
    id: str
    body: bytes | None = None
    error: Failure | None = None


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Request | Reply)


class NodeInbox:
    """One node's end: `request(node, body)` asks another node; `handler(body)` answers requests to this one.

    `start()` subscribes before it returns, so a node is reachable as soon as it started; `stop()` fails
    the requests still waiting for a reply and stops answering.
    """

    def __init__(self, client: redis.Redis, node_id: str, handler: Handler, *, prefix: str = PREFIX) -> None:
        self.node_id = node_id
        self._client = client
        self._handler = handler
        self._prefix = prefix
        self._waiting: dict[str, asyncio.Future[bytes]] = {}
        self._handling: set[asyncio.Task[None]] = set()
        # After a lost connection it subscribes again by itself (actors/runtime/redis_subscription.py); a reply
        # published to this node until then is lost, so the requests waiting for one are failed, to be retried.
        self.subscription = RedisSubscription.alongside(client, self.channel, self._dispatch,
                                                        on_lost=self._replies_lost, on_resubscribed=self._replies_lost)

    @property
    def channel(self) -> str:
        return self._prefix + self.node_id

    async def start(self) -> None:
        # Confirmed by Redis before this returns: a request published on another connection before Redis ran
        # SUBSCRIBE would find nobody.
        await self.subscription.start()

    async def stop(self) -> None:
        # Unsubscribed, confirmed, first: a request sent after stop() returned is refused at once (no receiver),
        # rather than published to a connection Redis has not yet seen close.
        await self.subscription.stop()
        for task in list(self._handling):
            task.cancel()
        await asyncio.gather(*self._handling, return_exceptions=True)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ServiceUnavailable("this node is stopping; retry"))
        self._waiting.clear()

    def _replies_lost(self) -> None:
        """The inbox was (or just came back from being) unsubscribed: whatever answer was published to it
        meanwhile is gone, and the node asked may have run the request."""
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(NodeDiedAnswering("the answer was lost while Redis was away; retry"))

    async def request(self, node_id: str, body: bytes, *, timeout: float,
                      still_holds: Callable[[], Awaitable[bool]] | None = None) -> bytes:
        """Send `body` to `node_id`'s handler and return its answer; raise the ApiError it raised,
        NodeUnreachable when nobody listens there, ServiceUnavailable when no answer came in `timeout`.

        `still_holds`, asked with every liveness check, tells whether `node_id` still holds what the request
        is for (its lease in the directory): a stopped process keeps its connection, so it still listens,
        but once its lease lapsed another node may take over, and waiting longer for it serves nobody."""
        request_id = secrets.token_hex(12)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        try:
            request = Request(request_id, self.node_id, time.time() + timeout, body)
            channel = self._prefix + node_id
            with unavailable_without_redis("inbox.request_failed", node=self.node_id):  # not sent: safe to retry
                receivers = await self._client.publish(channel, _encoder.encode(request))
            if not receivers:
                raise NodeUnreachable("the node holding this resource is not answering; retry")
            try:
                async with asyncio.timeout(timeout):
                    while not (await asyncio.wait([future], timeout=LIVENESS_CHECK))[0]:
                        # Gone after taking the request, which it may have applied; unless its answer came in
                        # meanwhile (a node stopping answers its turns, then stops listening).
                        if not await node_listens(self._client, node_id, self._prefix) and not future.done():
                            raise NodeDiedAnswering("the node holding this resource stopped answering; retry")
                        if still_holds is not None and not await still_holds() and not future.done():
                            raise NodeDiedAnswering("the node holding this resource lost it while answering; "
                                                    "retry")
                    return future.result()
            except TimeoutError:
                raise ServiceUnavailable("the node holding this resource did not answer in time; retry") from None
        finally:
            self._waiting.pop(request_id, None)


    def _dispatch(self, data: bytes) -> None:
        try:
            wire = _decoder.decode(data)
        except msgspec.DecodeError:
            log.warning("inbox.undecodable", node=self.node_id)
            return
        if isinstance(wire, Reply):
            self._settle(wire)
        else:
            task = asyncio.create_task(self._answer(wire), name=f"inbox {self.node_id} answer")
            self._handling.add(task)
            task.add_done_callback(self._handling.discard)

    def _settle(self, reply: Reply) -> None:
        future = self._waiting.get(reply.id)
        if future is None or future.done():
            return  # its caller gave up: nobody to tell
        if reply.error is not None:
            future.set_exception(rebuild(reply.error))
        else:
            future.set_result(reply.body or b"")

    async def _answer(self, request: Request) -> None:
        left = request.deadline - time.time()
        if left <= 0:
            return  # the caller already answered its client with a 503
        try:
            async with asyncio.timeout(left):
                reply = Reply(request.id, body=await self._handler(request.body))
        except TimeoutError:
            return
        except ApiError as error:
            reply = Reply(request.id, error=describe(error))
        except Exception as failure:
            # A database that dropped the connection is a 503 to retry, as it is for a call made here.
            unavailable = database_error(failure)
            if unavailable is None:
                log.exception("inbox.handler_failed", node=self.node_id)
            else:
                log.warning("inbox.handler_unavailable", node=self.node_id, error=type(failure).__name__)
            reply = Reply(request.id, error=describe(unavailable or InternalError("internal error")))
        try:
            await self._client.publish(self._prefix + request.reply_to, _encoder.encode(reply))
        except REDIS_AWAY as exc:
            log.warning("inbox.reply_failed", node=self.node_id, error=repr(exc))


def describe(error: ApiError) -> Failure:
    retry_after = error.retry_after if isinstance(error, TooManyRequests | ServiceUnavailable) else None
    return Failure(type(error).__name__, error.code, error.message, error.details, error.data, retry_after)


def rebuild(failure: Failure) -> ApiError:
    """The ApiError a Failure describes, of the same class when this node knows it (by name), else of
    the class the protocol gives its code, else an internal error."""
    plain = _by_code().get(failure.code, InternalError)
    for cls in (_known_errors().get(failure.type, plain), plain):
        try:
            if issubclass(cls, TooManyRequests):
                return cls(failure.message, retry_after=failure.retry_after, details=failure.details,
                           data=failure.data)
            if issubclass(cls, ServiceUnavailable) and failure.retry_after is not None:
                return cls(failure.message, retry_after=failure.retry_after, details=failure.details,
                           data=failure.data)
            return cls(failure.message, details=failure.details, data=failure.data)
        except TypeError:
            continue  # a subclass whose constructor takes more than the base's: its plain form will do
    return InternalError(failure.message)


def _known_errors() -> dict[str, type[ApiError]]:
    known: dict[str, type[ApiError]] = {}
    pending: list[type[ApiError]] = [ApiError]
    while pending:
        cls = pending.pop()
        known.setdefault(cls.__name__, cls)
        pending.extend(cls.__subclasses__())
    return known


def _by_code() -> dict[str, type[ApiError]]:
    # The first class of protocol/errors.py with a code is its plain form (BadRequest, not ValidationFailed).
    found: dict[str, type[ApiError]] = {}
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, ApiError) and value is not ApiError:
            found.setdefault(value.code, value)
    return found


async def node_listens(client: redis.Redis, node_id: str, prefix: str = PREFIX) -> bool:
    """Whether the node `node_id` still runs: its inbox has a listener. A process that died (kill -9 too) loses
    its connection to Redis, and with it its subscription, at once; a stopped one keeps it. Taken to when Redis
    cannot tell, so that a node is never given up for Redis being away (a request's timeout still bounds a wait)."""
    try:
        [(_, listeners)] = await client.pubsub_numsub(prefix + node_id)
    except REDIS_AWAY as exc:
        log.warning("inbox.liveness_check_failed", node=node_id, error=repr(exc))
        return True
    return bool(listeners)
