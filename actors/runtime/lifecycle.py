"""One activation of one actor: its states (Orleans: creating, activating, valid, deactivating, invalid),
activation (claim, new epoch, load), the turn loop with group commit, and deactivation."""

from __future__ import annotations

import asyncio
import contextvars
import enum
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic

import asyncpg
import structlog

from actors.runtime.actor import Actor, C, Decision, Event, M, S
from actors.runtime.db_errors import as_api_error
from actors.runtime.directory import Directory
from actors.runtime.forwarding import ActorCodec
from actors.runtime.mailbox import Envelope, Mailbox
from protocol.errors import ApiError, InternalError, ServiceUnavailable
from storage import actor_replies
from storage.epochs import StaleEpoch, commit_fenced, fenced, take_epoch
from storage.events import Pending, StoredEvent, Writer, add_events, append_all, in_order
from storage.turn_statement import TurnStatement

log = structlog.get_logger(__name__)

Publish = Callable[[list[StoredEvent]], Awaitable[None]]
# Told after each turn: how many messages it handled, and how long its commit took (None: nothing committed).
TurnObserver = Callable[[int, float | None], None]


class ActivationState(enum.Enum):
    CREATING = "creating"
    ACTIVATING = "activating"
    VALID = "valid"
    DEACTIVATING = "deactivating"
    INVALID = "invalid"


class Activation(Generic[S, M, C]):
    """Runs one actor instance: messages go in through `post`, one turn at a time, never reentrant."""

    def __init__(self, actor: Actor[S, M, C], *, pool: asyncpg.Pool, directory: Directory,
                 publish: Publish, on_exit: Callable[[Activation[Any, Any, Any]], None],
                 now: Callable[[], float], max_batch: int, soft_limit: int, hard_limit: int,
                 predecessor: Activation[Any, Any, Any] | None = None,
                 on_turn: TurnObserver | None = None) -> None:
        self.actor = actor
        self.status = ActivationState.CREATING
        self.epoch = 0
        self.mailbox = Mailbox(actor.key, soft_limit=soft_limit, hard_limit=hard_limit)
        self.stopped = asyncio.Event()
        # Set once the activation loaded its state (or gave up): readers wait on it, not on the mailbox.
        self.ready = asyncio.Event()
        self.last_active = now()
        self.busy = False
        self._pool = pool
        self._directory = directory
        self._publish = publish
        self._on_exit = on_exit
        self._now = now
        self._max_batch = max_batch
        self._predecessor = predecessor
        self._on_turn = on_turn
        # How replies are kept for calls made under an Idempotency-Key (none kept for a type without a codec).
        self._codec: ActorCodec | None = getattr(type(actor), "codec", None)
        self._state: S | None = None
        self._close_error: ApiError | None = None
        self._in_flight: list[Envelope] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def state(self) -> S:
        """The committed in-memory state (equal to the database between turns)."""
        if self._state is None:
            raise RuntimeError(f"actor {self.actor.key} has no state before activation")
        return self._state

    @property
    def readable(self) -> bool:
        """Whether `state` is the committed state: loaded, and not dropped by a failed reload."""
        return self.status is ActivationState.VALID and self._state is not None

    @property
    def close_error(self) -> ApiError:
        return self._close_error or ServiceUnavailable("stopped; retry")

    @property
    def accepting(self) -> bool:
        return self.status in (ActivationState.CREATING, ActivationState.ACTIVATING, ActivationState.VALID)

    def start(self) -> None:
        # A fresh context: the task would otherwise inherit the log context (request id, user) of
        # whichever request happened to activate it, and carry it for every later caller's message.
        context = contextvars.Context()
        context.run(structlog.contextvars.bind_contextvars, actor=self.actor.key)
        self._task = asyncio.create_task(self._run(), name=f"actor {self.actor.key}", context=context)
        self._task.add_done_callback(self._finish)

    def post(self, message: M) -> asyncio.Future[Any]:
        """Queue `message`; the future gets the reply or an ApiError. Raises TooManyRequests when full."""
        envelope = self.mailbox.put(message)
        self.last_active = self._now()
        return envelope.future

    def deactivate(self, error: ApiError) -> None:
        """Finish the running turn, then fail what is still queued with `error` and exit."""
        if self.status in (ActivationState.DEACTIVATING, ActivationState.INVALID):
            return
        self.status = ActivationState.DEACTIVATING
        self._close_error = error
        self.mailbox.wake()

    def cancel(self) -> None:
        """Abandon the running turn (its callers get ServiceUnavailable); `stopped` is set once it exited."""
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        try:
            if self._predecessor is not None:
                await self._predecessor.stopped.wait()
            if self.status is not ActivationState.CREATING:
                return
            self.status = ActivationState.ACTIVATING
            try:
                await self._activate()
            except Exception as exc:
                log.warning("actor.activation_failed", actor=self.actor.key, error=repr(exc))
                self._close_error = as_api_error(exc)
                return
            if self.status is ActivationState.ACTIVATING:
                self.status = ActivationState.VALID
            self.ready.set()
            while self.status is ActivationState.VALID:
                batch = self.mailbox.take(self._max_batch)
                if batch:
                    await self._turn(batch)
                else:
                    await self.mailbox.wait()
        finally:
            await self._exit()

    async def _activate(self) -> None:
        key = self.actor.key
        if not await self._directory.claim(key):
            raise ServiceUnavailable("active on another node; retry")
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                self.epoch = await take_epoch(conn, key)
                self._state = await self.actor.load(conn)
        except BaseException:
            await self._directory.release(key)
            raise
        log.debug("actor.activated", actor=key, epoch=self.epoch)

    async def _turn(self, batch: list[Envelope]) -> None:
        # Kept until the turn is over: if the loop is cancelled mid-commit, `_exit` fails these callers.
        self._in_flight = batch
        self.busy = True
        try:
            try:
                await self._answer_repeated(batch)
                self._state = await self.actor.prepare(self._pool, self.state,
                                                       [e.message for e in batch if not e.future.done()])
            except Exception as exc:
                error = as_api_error(exc)
                if not isinstance(exc, ApiError):
                    log.warning("actor.prepare_failed", actor=self.actor.key, error=repr(exc))
                for envelope in batch:
                    envelope.fail(error)
                return
            decided, refused, provisional = self._decide_all(batch)
            changes = [decision.change for _, decision in decided if decision.change is not None]
            events: list[Event] = [event for _, decision in decided for event in decision.events]
            kept = self._replies_to_keep(decided)
            committed: list[StoredEvent] = []
            commit_seconds: float | None = None
            if changes or events:
                started = time.perf_counter()
                try:
                    committed = await self._commit(changes, events, kept)
                except Exception as exc:
                    await self._after_failed_commit([envelope for envelope, _ in [*decided, *refused]], exc)
                    return
                commit_seconds = time.perf_counter() - started
            if self._on_turn is not None:
                self._on_turn(len(decided) + len(refused), commit_seconds)
            # Memory is replaced before any caller hears back, so a reader who got a reply sees its write.
            self._state = provisional
            for envelope, decision in decided:
                envelope.reply(decision.reply)
            # Refusals too wait for the commit: one decided against a change made earlier in the turn (the
            # row it names was just removed) must not reach a caller who then reads the database before it.
            for envelope, error in refused:
                envelope.fail(error)
            self.last_active = self._now()
            if committed:
                await self._publish(committed)
        finally:
            self.busy = False
        self._in_flight = []

    def _decide_all(self, batch: list[Envelope]
                    ) -> tuple[list[tuple[Envelope, Decision[C]]], list[tuple[Envelope, ApiError]], S]:
        # Later messages of a turn must see the changes decided before them, so decisions are applied
        # to a provisional state; `apply` is pure, so memory is only replaced once the commit succeeded.
        provisional = self.state
        decided: list[tuple[Envelope, Decision[C]]] = []
        refused: list[tuple[Envelope, ApiError]] = []
        for envelope in batch:
            if envelope.future.done():
                continue
            try:
                decision = self.actor.decide(provisional, envelope.message)
                # A failing `apply` is a bug in the actor: it fails this message, never the whole actor.
                after = provisional if decision.change is None else self.actor.apply(provisional, decision.change)
            except ApiError as error:
                refused.append((envelope, error))
                continue
            except Exception:
                log.exception("actor.decide_failed", actor=self.actor.key)
                refused.append((envelope, InternalError("internal error")))
                continue
            provisional = after
            decided.append((envelope, decision))
        return decided, refused, provisional

    async def _answer_repeated(self, batch: list[Envelope]) -> None:
        """Answer the calls of `batch` this actor already applied (made again under their Idempotency-Key after
        the first reply was lost) with the reply kept then; they are not decided again."""
        if self._codec is None:
            return
        waiting = {key: envelope for envelope in batch
                   if not envelope.future.done() and (key := self.actor.call_key(envelope.message)) is not None}
        if not waiting:
            return
        for key, reply in (await actor_replies.stored(self._pool, self.actor.key, list(waiting))).items():
            waiting[key].reply(self._codec.decode_reply(reply))

    def _replies_to_keep(self, decided: list[tuple[Envelope, Decision[C]]]) -> list[tuple[str, bytes]]:
        """(call key, encoded reply) of the decided calls made under an Idempotency-Key that change something."""
        if self._codec is None:
            return []
        return [(key, self._codec.encode_reply(decision.reply)) for envelope, decision in decided
                if (decision.change is not None or decision.events)
                and (key := self.actor.call_key(envelope.message)) is not None]

    async def _commit(self, changes: list[C], events: list[Event], kept: list[tuple[str, bytes]]
                      ) -> list[StoredEvent]:
        actor = self.actor
        org = actor.organization_id
        pending: list[Pending] = [(org, actor.stream, *event) if len(event) == 2 else (org, *event)
                                  for event in events]
        writer = Writer(self._directory.node_id, self.epoch)
        statement = TurnStatement()
        if actor.add_writes(statement, changes):
            # One statement, one round trip: the actor's writes, the kept replies, the events of every stream and
            # the epoch check, committed as one implicit transaction.
            if kept:
                actor_replies.add_kept(statement, actor.key, kept)
            appended, ids = add_events(statement, pending, writer) if pending else (None, [])
            async with self._pool.acquire() as conn:
                rows = await commit_fenced(conn, statement, actor.key, self.epoch, appended)
            return in_order(rows, ids)
        # BEGIN with the epoch check, the actor's statements, the kept replies, the events of every stream, COMMIT.
        async with self._pool.acquire() as conn, fenced(conn, actor.key, self.epoch):
            await actor.persist(conn, changes)
            if kept:
                await actor_replies.keep(conn, actor.key, kept)
            return await append_all(conn, pending, writer)

    async def _after_failed_commit(self, answered: list[Envelope], exc: Exception) -> None:
        # Refusals fail with the commit's error too: the state they were decided against never existed.
        error = as_api_error(exc)
        if not isinstance(exc, ApiError | asyncpg.IntegrityConstraintViolationError):
            log.warning("actor.commit_failed", actor=self.actor.key, error=repr(exc))
        for envelope in answered:
            envelope.fail(error)
        if isinstance(error, StaleEpoch):
            log.warning("actor.stale_epoch", actor=self.actor.key, epoch=self.epoch)
            self.deactivate(error)
            return
        try:
            async with self._pool.acquire() as conn:
                self._state = await self.actor.load(conn)
        except Exception as reload_exc:
            log.warning("actor.reload_failed", actor=self.actor.key, error=repr(reload_exc))
            # Memory may no longer match the database: a fresh activation will load it again.
            self.deactivate(ServiceUnavailable("reloading; retry"))

    async def _exit(self) -> None:
        self.status = ActivationState.DEACTIVATING
        self._fail_pending()
        try:
            await self._directory.release(self.actor.key)
        finally:
            self._finish()

    def _fail_pending(self) -> None:
        error = self._close_error or ServiceUnavailable("stopped; retry")
        for envelope in self._in_flight:
            envelope.fail(error)
        self.mailbox.close(error)

    def _finish(self, _task: asyncio.Task[None] | None = None) -> None:
        # Also the task's done-callback: a task cancelled before it ever ran skips `_exit` entirely.
        if self.stopped.is_set():
            return
        self._fail_pending()
        self.status = ActivationState.INVALID
        self._on_exit(self)
        self.ready.set()
        self.stopped.set()
        log.debug("actor.deactivated", actor=self.actor.key, epoch=self.epoch)
