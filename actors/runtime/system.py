"""The node's actor system: routes `ask` to the one activation per actor id (creating it on first
message), runs the single idle sweeper, calls the publish hooks after commits, and stops cleanly."""

from __future__ import annotations

import asyncio
import functools
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

import asyncpg
import msgspec
import structlog

from actors.runtime.actor import Actor
from actors.runtime.bus import EventBus, Subscriber
from actors.runtime.clock import Clock, SystemClock
from actors.runtime.directory import Directory, LocalDirectory
from actors.runtime.forwarding import ActorCodec, ForwardedCall, NodeDiedAnswering, NodeInbox, NodeUnreachable
from actors.runtime.lifecycle import Activation, TurnObserver
from protocol.errors import InternalError, NotFound, ServiceUnavailable
from storage import events as event_log

log = structlog.get_logger(__name__)

# Owners remembered per node: an entry is a key and a node id, so 100,000 cost a few megabytes.
MAX_OWNERS_KNOWN = 100_000


def _no_answer_in_time(future: asyncio.Future[Any], actor_key: str) -> None:
    """The ask's deadline: a reply set before it wins (the caller gets what was decided, not a 503 for a change
    that was made); otherwise the caller is told to retry, and a message still queued is skipped by its turn."""
    if not future.done():
        log.warning("actor.ask_timed_out", actor=actor_key)
        future.set_exception(ServiceUnavailable("no answer in time; retry"))


class ActorMoved(ServiceUnavailable):
    """The node asked no longer holds the actor and another does (it moved): the call was not run."""

M = TypeVar("M")
S = TypeVar("S")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class RuntimeSettings:
    # One transaction per turn: 256 changes keep a group commit well under a few milliseconds of
    # statement time while still absorbing a burst from a whole tier meeting in one or two turns.
    max_batch: int = 256
    # A healthy actor drains a turn in milliseconds; a queue this deep means it is falling behind.
    mailbox_soft_limit: int = 512
    # Past this, callers get 429 rather than waiting seconds for a reply they will likely time out on.
    mailbox_hard_limit: int = 1024
    # Orleans' default collection age; boards are reopened all day, so reloading is the exception.
    idle_timeout: float = 15 * 60.0
    # The sweep granularity: an idle actor lives at most idle_timeout + sweep_interval.
    sweep_interval: float = 60.0
    # How long stop() lets running turns finish before cancelling them.
    stop_timeout: float = 10.0
    # How long a caller waits for a reply (or a reader for an activation) before it is told 503 "retry".
    # A message still queued when its caller gave up is dropped, never handled behind the caller's back.
    ask_timeout: float = 10.0
    # Active actors per node; past it the least recently used idle ones are deactivated (pinned ones,
    # which have live subscribers, last). A board holds its live items, so this bounds the node's memory.
    max_active: int = 10_000


class ActorSystem:
    def __init__(self, pool: asyncpg.Pool, *, clock: Clock | None = None, directory: Directory | None = None,
                 settings: RuntimeSettings | None = None, secret_key: str | None = None) -> None:
        self.pool = pool
        self._secret_key = secret_key  # given to every actor (Actor.secret_key)
        self.clock: Clock = clock or SystemClock()
        self.directory: Directory = directory or LocalDirectory()
        self.settings = settings or RuntimeSettings()
        # The activation that takes messages, per actor key; `_live` also holds those still stopping.
        self._activations: dict[str, Activation[Any, Any, Any]] = {}
        # Keys of accepting activations, least recently used first (the cap's eviction order).
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._live: set[Activation[Any, Any, Any]] = set()
        self._pins: Counter[str] = Counter()
        # Committed events go here; it is the node's bus (actors/kernel/node.py), so every subscriber sees them.
        self.bus = EventBus()
        self._sweeper: asyncio.Task[None] | None = None
        self._stopping = False
        # Told each turn's message count and its commit's seconds (None: nothing to commit); /metrics sets it.
        self.on_turn: TurnObserver | None = None
        # Told each forwarded ask or query: its op, its outcome and its seconds; /metrics sets it.
        self.on_forward: Callable[[str, str, float], None] | None = None
        # Set by `forward_through` on a node of a cluster; None on a single node (nothing is forwarded).
        self._inbox: NodeInbox | None = None
        self._forwardable: dict[str, type[Actor[Any, Any, Any]]] = {}
        # Where actors owned by other nodes were last found (actor key -> node id), least recently used first:
        # a call forwarded there skips the directory; `_forward` drops an entry that proves wrong.
        self._owners: OrderedDict[str, str] = OrderedDict()

    async def __aenter__(self) -> ActorSystem:
        self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="actor sweeper")

    async def stop(self) -> None:
        """Refuse new messages, let running turns finish, fail everything still queued (503)."""
        self._stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        activations = list(self._live)
        for activation in activations:
            activation.deactivate(ServiceUnavailable("node stopping; retry"))
        if not activations:
            return
        stopped = asyncio.ensure_future(asyncio.gather(*(a.stopped.wait() for a in activations)))
        timer = asyncio.ensure_future(self.clock.sleep(self.settings.stop_timeout))
        waiters: list[asyncio.Future[Any]] = [stopped, timer]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        timer.cancel()
        if not stopped.done():
            log.warning("actor.stop_timeout", running=sum(not a.stopped.is_set() for a in activations))
            for activation in activations:
                activation.cancel()
            await stopped

    def add_publish_hook(self, hook: Subscriber) -> None:
        """Call `hook(events)` after every commit that logged events, in its own task: the bus never
        waits for it (actors/runtime/bus.py); `await self.bus.drained()` waits until it has run."""
        self.bus.subscribe(f"publish hook {id(hook)}", hook, read=functools.partial(event_log.read, self.pool))

    def forward_through(self, inbox: NodeInbox, actor_types: list[type[Actor[Any, Any, Any]]]) -> None:
        """Forward asks and queries for actors another node owns through `inbox`, and answer those other
        nodes forward here (`inbox` must have been built with `self.handle_forwarded`). Only actor types
        with a `codec` are forwarded; docs/forwarding.md."""
        self._inbox = inbox
        self._forwardable = {t.kind: t for t in actor_types if _codec(t) is not None}

    async def ask(self, actor_type: type[Actor[Any, M, Any]], actor_id: str, organization_id: str,
                  message: M) -> Any:
        """Send `message` and wait for the reply; a reply means the change is durable.

        Raises the ApiError the actor decided, TooManyRequests when its mailbox is full,
        ServiceUnavailable when the node is stopping or the actor was deactivated under the caller.
        On a node of a cluster, a message for an actor another node owns goes to that node.
        """
        owner = await self._owner_elsewhere(actor_type, actor_id)
        if owner is not None:
            return await self._forward(owner, "ask", actor_type, actor_id, organization_id, message)
        # No await between finding the activation and posting to it (`_reply_of` posts before it awaits):
        # concurrent first messages to one id all land in the mailbox of the single activation created by
        # the first of them.
        activation = self._activation_for(actor_type, actor_id, organization_id)
        try:
            return await self._reply_of(activation, message)
        except ServiceUnavailable:
            # Another node won the claim between `locate` and this activation's claim: an activation that
            # never took an epoch ran no turn, so the message was not applied, and it goes to the winner.
            # Ask the directory even if a newer activation here is accepting: it is just as likely to lose.
            owner = (await self._owner_elsewhere(actor_type, actor_id, held_here=False) if activation.epoch == 0
                     else None)
            if owner is None:
                raise
            return await self._forward(owner, "ask", actor_type, actor_id, organization_id, message)

    async def query(self, actor_type: type[Actor[Any, M, Any]], actor_id: str, organization_id: str,
                    message: M) -> Any:
        """`actor_type.query(state, message)` on the actor's committed state, like `read`, but by a message
        rather than a function, so that it can be answered by the node that owns the actor."""
        owner = await self._owner_elsewhere(actor_type, actor_id)
        if owner is not None:
            return await self._forward(owner, "query", actor_type, actor_id, organization_id, message)
        try:
            return await self._query_here(actor_type, actor_id, organization_id, message)
        except ServiceUnavailable:
            # As in `ask`: another node won the claim this activation lost, and it answers instead.
            owner = await self._owner_elsewhere(actor_type, actor_id, held_here=False)
            if owner is None:
                raise
            return await self._forward(owner, "query", actor_type, actor_id, organization_id, message)

    async def handle_forwarded(self, body: bytes) -> bytes:
        """Answer an ask or query another node forwarded here (the inbox's handler). Never forwards again:
        when this node no longer owns the actor, the caller is told to retry and locates it afresh."""
        call = msgspec.msgpack.decode(body, type=ForwardedCall)
        actor_type = self._forwardable.get(call.kind)
        codec = _codec(actor_type) if actor_type is not None else None
        if actor_type is None or codec is None:
            # A node of another version during a rolling deploy: the cluster converges once all are upgraded.
            log.warning("forwarding.unknown_kind", kind=call.kind)
            raise ServiceUnavailable("this node cannot answer for that resource yet; retry")
        key = actor_type.key_for(call.actor_id)
        if call.op == "evict":
            await self._evict_here(key)  # nothing to do when the activation already left
            return b""
        if not self._accepting(key):
            owner = await self.directory.locate(key)
            if owner is not None and owner != self.directory.node_id:
                raise ActorMoved("this resource is moving between nodes; retry")
        try:
            message = codec.decode_message(call.message)
        except (InternalError, msgspec.DecodeError) as exc:  # a message of a newer version (or a bug): logged
            log.warning("forwarding.undecodable", kind=call.kind, error=repr(exc))
            raise ServiceUnavailable("this node cannot answer that request yet; retry") from None
        if call.op == "ask":
            reply = await self._ask_here(actor_type, call.actor_id, call.organization_id, message)
        else:
            reply = await self._query_here(actor_type, call.actor_id, call.organization_id, message)
        return codec.encode_reply(reply)

    async def _owner_elsewhere(self, actor_type: type[Actor[Any, Any, Any]], actor_id: str, *,
                               held_here: bool = True) -> str | None:
        """The other node that owns the actor, when this node is in a cluster and does not hold it (taken to
        hold it while it has an accepting activation, unless `held_here` is False, which also asks the
        directory afresh rather than trusting where the actor was last found)."""
        if self._inbox is None or actor_type.kind not in self._forwardable:
            return None
        key = actor_type.key_for(actor_id)
        if held_here:
            if self._accepting(key):
                return None  # the common case on the owner: no Redis round trip
            if (known := self._owners.get(key)) is not None:
                self._owners.move_to_end(key)
                return known  # the common case elsewhere: `_forward` finds out if it moved
        owner = await self.directory.locate(key)
        if owner is None or owner == self.directory.node_id:
            self._owners.pop(key, None)
            return None
        self._owners[key] = owner
        self._owners.move_to_end(key)
        if len(self._owners) > MAX_OWNERS_KNOWN:
            self._owners.popitem(last=False)
        return owner

    async def _forward(self, owner: str, op: Literal["ask", "query", "evict"],
                       actor_type: type[Actor[Any, Any, Any]], actor_id: str, organization_id: str,
                       message: Any) -> Any:
        """Send the call to `owner`. Where it was found from memory and no longer holds the actor (it moved, or
        that node stopped), ask the directory where it is now and send it there, or run it here, once."""
        key = actor_type.key_for(actor_id)
        remembered = self._owners.get(key) == owner
        try:
            return await self._send(owner, op, actor_type, actor_id, organization_id, message)
        except NodeDiedAnswering:
            self._owners.pop(key, None)
            raise  # it may have run the call: only the client may send it again (with its Idempotency-Key)
        except (ActorMoved, NodeUnreachable):
            self._owners.pop(key, None)
            if not remembered:
                raise
        # Neither refusal ran the call: the old owner refuses before asking its actor, and a node nobody
        # listens for never saw it.
        now_at = await self._owner_elsewhere(actor_type, actor_id, held_here=False)
        if now_at is not None:
            return await self._send(now_at, op, actor_type, actor_id, organization_id, message)
        if op == "ask":
            return await self._ask_here(actor_type, actor_id, organization_id, message)
        if op == "query":
            return await self._query_here(actor_type, actor_id, organization_id, message)
        return await self._evict_here(key)

    async def _send(self, owner: str, op: Literal["ask", "query", "evict"],
                    actor_type: type[Actor[Any, Any, Any]], actor_id: str, organization_id: str,
                    message: Any) -> Any:
        assert self._inbox is not None
        codec = _codec(actor_type)
        assert codec is not None
        body = b"" if op == "evict" else codec.encode_message(message)
        call = ForwardedCall(op, actor_type.kind, actor_id, organization_id, body)
        started = time.perf_counter()
        outcome = "answered"  # a reply, or a refusal the owner decided
        try:
            answer = await self._inbox.request(owner, msgspec.msgpack.encode(call), timeout=self.settings.ask_timeout,
                                               still_holds=lambda: self._holds(owner, actor_type.key_for(actor_id)))
        except NodeUnreachable as unreachable:
            outcome = "unreachable"
            # The owner is dead or stopping, and its claim holds until it lapses: come back once it did.
            left = await self.directory.lease_left(actor_type.key_for(actor_id))
            raise type(unreachable)(unreachable.message, retry_after=max(1, math.ceil(left))) from None
        except ServiceUnavailable:
            outcome = "unavailable"  # no answer in time, or the actor was moving on the owner
            raise
        finally:
            if self.on_forward is not None:
                self.on_forward(op, outcome, time.perf_counter() - started)
        return None if op == "evict" else codec.decode_reply(answer)

    async def _holds(self, node_id: str, key: str) -> bool:
        """Whether the directory still gives `key` to `node_id`; taken to when Redis cannot tell. A node stopped
        (SIGSTOP, a long pause) past its lease still listens on its inbox, but no longer owns the actor: its
        callers stop waiting for it, and the next call claims the actor under a new epoch."""
        try:
            return await self.directory.locate(key) == node_id
        except ServiceUnavailable:
            return True

    def _accepting(self, key: str) -> bool:
        current = self._activations.get(key)
        return current is not None and current.accepting

    async def _query_here(self, actor_type: type[Actor[Any, Any, Any]], actor_id: str, organization_id: str,
                          message: Any) -> Any:
        query: Callable[[Any, Any], Any] | None = getattr(actor_type, "query", None)
        if query is None:
            raise InternalError(f"{actor_type.kind} answers no queries")
        state = await self.read(actor_type, actor_id, organization_id, lambda state: state)
        return query(await actor_type.query_state(self.pool, organization_id, actor_id, state, message), message)

    async def _ask_here(self, actor_type: type[Actor[Any, M, Any]], actor_id: str, organization_id: str,
                        message: M) -> Any:
        return await self._reply_of(self._activation_for(actor_type, actor_id, organization_id), message)

    async def _reply_of(self, activation: Activation[Any, M, Any], message: M) -> Any:
        future = activation.post(message)
        # A timer on the reply itself, not `asyncio.timeout` around the await: that costs a Timeout object, a
        # task lookup and a reschedule per call (4 % of a durable write's CPU, bench/wrk_load.py --profile).
        timer = future.get_loop().call_later(self.settings.ask_timeout, _no_answer_in_time, future,
                                             activation.actor.key)
        try:
            return await future
        finally:
            timer.cancel()

    async def read(self, actor_type: type[Actor[S, Any, Any]], actor_id: str, organization_id: str,
                   fn: Callable[[S], R]) -> R:
        """Answer `fn(state)` from the actor's last committed state, outside its mailbox.

        Activates the actor if needed and waits for its load, but never for its queued writes: a read
        costs no mailbox slot and no writer time. Memory is replaced before a write's reply is sent, so
        a caller who got a reply to a write and then reads sees it. `fn` must be pure and quick.
        """
        activation = self._activation_for(actor_type, actor_id, organization_id)
        if not activation.ready.is_set():
            try:
                async with asyncio.timeout(self.settings.ask_timeout):
                    await activation.ready.wait()
            except TimeoutError:
                log.warning("actor.activation_timed_out", actor=activation.actor.key)
                raise ServiceUnavailable("not loaded in time; retry") from None
        if not activation.readable:
            raise activation.close_error
        activation.last_active = self.clock.monotonic()
        state: S = activation.state
        return fn(state)

    def activation(self, actor_type: type[Actor[Any, Any, Any]],
                   actor_id: str) -> Activation[Any, Any, Any] | None:
        """The current activation of an actor on this node, if any (for diagnostics and tests)."""
        return self._activations.get(actor_type.key_for(actor_id))

    def mailbox_depths(self) -> list[int]:
        """Messages queued for each accepting activation (for /metrics: its length is the active actor count)."""
        return [len(activation.mailbox) for activation in self._activations.values() if activation.accepting]

    def pin(self, actor_type: type[Actor[Any, Any, Any]], actor_id: str) -> None:
        """Keep the actor from idle deactivation (e.g. while it has live subscribers); pins nest."""
        self._pins[actor_type.key_for(actor_id)] += 1

    def unpin(self, actor_type: type[Actor[Any, Any, Any]], actor_id: str) -> None:
        key = actor_type.key_for(actor_id)
        self._pins[key] -= 1
        if self._pins[key] <= 0:
            del self._pins[key]

    async def evict(self, actor_type: type[Actor[Any, Any, Any]], actor_id: str) -> None:
        """Deactivate an actor whose data was changed or deleted outside it (e.g. a project deleted with
        its boards), on whichever node holds it, and wait until it stopped; its next message activates it
        afresh from the database."""
        owner = await self._owner_elsewhere(actor_type, actor_id)
        if owner is None:
            await self._evict_here(actor_type.key_for(actor_id))
            return
        try:
            await self._forward(owner, "evict", actor_type, actor_id, "", None)
        except NodeUnreachable:
            pass  # the owner died or stopped, and its activation with it: the next one loads from the database

    async def _evict_here(self, key: str) -> None:
        activation = self._activations.get(key)
        if activation is not None:
            activation.deactivate(ServiceUnavailable("reloaded; retry"))
            await activation.stopped.wait()

    def lost(self, key: str) -> None:
        """Another node took `key` (this node's lease lapsed; `RedisDirectory.on_lost`): deactivate the
        activation here, whose next commit would fail on its epoch anyway. Its queued callers get a 503 and
        retry; its release on exit leaves the new owner's entry alone (only an owner deletes)."""
        activation = self._activations.get(key)
        if activation is not None:
            activation.deactivate(ServiceUnavailable("this resource moved to another node; retry"))

    def sweep(self) -> int:
        """Deactivate every idle, unpinned actor with nothing queued; return how many."""
        deadline = self.clock.monotonic() - self.settings.idle_timeout
        idle = [a for key, a in self._activations.items()
                if a.last_active <= deadline and key not in self._pins and not a.busy and not len(a.mailbox)
                and a.accepting]
        for activation in idle:
            activation.deactivate(ServiceUnavailable("unloaded while idle; retry"))
        return len(idle)

    def _activation_for(self, actor_type: type[Actor[Any, M, Any]], actor_id: str,
                        organization_id: str) -> Activation[Any, M, Any]:
        if self._stopping:
            raise ServiceUnavailable("node is stopping; retry")
        key = actor_type.key_for(actor_id)
        current = self._activations.get(key)
        if current is not None and current.accepting:
            if current.actor.organization_id != organization_id:
                raise NotFound(f"{actor_type.kind} {actor_id} not found")
            self._recent.move_to_end(key)
            return current
        self._make_room()
        activation: Activation[Any, M, Any] = Activation(
            actor_type(actor_id, organization_id, self.clock, secret_key=self._secret_key), pool=self.pool,
            directory=self.directory,
            publish=self.bus.publish, on_exit=self._forget, on_turn=self._turned, now=self.clock.monotonic,
            max_batch=self.settings.max_batch, soft_limit=self.settings.mailbox_soft_limit,
            hard_limit=self.settings.mailbox_hard_limit,
            # A new activation waits for a deactivating one to finish, so there is one writer at a time.
            predecessor=current)
        self._activations[key] = activation
        self._recent[key] = None
        self._live.add(activation)
        activation.start()
        return activation

    def _make_room(self) -> None:
        """Before one more activation: deactivate least recently used idle ones down below `max_active`,
        unpinned before pinned; one still loading (a read may be waiting for it), with queued messages or
        with a running turn is never chosen."""
        excess = len(self._recent) - self.settings.max_active + 1
        if excess <= 0:
            return
        for pinned in (False, True):
            for key in list(self._recent):
                if excess <= 0:
                    return
                activation = self._activations.get(key)
                if activation is None or not activation.accepting:
                    self._recent.pop(key, None)  # already leaving: it no longer counts
                    excess -= 1
                    continue
                if ((key in self._pins) != pinned or not activation.ready.is_set() or activation.busy
                        or len(activation.mailbox)):
                    continue
                activation.deactivate(ServiceUnavailable("unloaded to make room; retry"))
                del self._recent[key]
                excess -= 1
        if excess > 0:
            log.warning("actor.over_capacity", active=len(self._recent), max_active=self.settings.max_active)

    def _turned(self, messages: int, commit_seconds: float | None) -> None:
        if self.on_turn is not None:
            self.on_turn(messages, commit_seconds)

    def _forget(self, activation: Activation[Any, Any, Any]) -> None:
        self._live.discard(activation)
        if self._activations.get(activation.actor.key) is activation:
            del self._activations[activation.actor.key]
            self._recent.pop(activation.actor.key, None)

    async def _sweep_forever(self) -> None:
        # Orleans sweeps in time buckets; one pass over a dict is as cheap at the actor counts one
        # node holds (thousands), and keeps one sweeper task per node.
        while True:
            await self.clock.sleep(self.settings.sweep_interval)
            swept = self.sweep()
            if swept:
                log.debug("actor.swept", count=swept)


def _codec(actor_type: type[Actor[Any, Any, Any]]) -> ActorCodec | None:
    codec: ActorCodec | None = getattr(actor_type, "codec", None)
    return codec
