"""The node's actor system: routes `ask` to the one activation per actor id (creating it on first
message), runs the single idle sweeper, calls the publish hooks after commits, and stops cleanly."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import asyncpg
import structlog

from actors.kernel.bus import EventBus, Subscriber
from actors.runtime.actor import Actor
from actors.runtime.clock import Clock, SystemClock
from actors.runtime.directory import Directory, LocalDirectory
from actors.runtime.lifecycle import Activation
from protocol.errors import NotFound, ServiceUnavailable

log = structlog.get_logger(__name__)

M = TypeVar("M")


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
    # Part BOARD gives these two their behaviour; until then they are carried, not used.
    ask_timeout: float = 30.0
    max_active: int = 10_000


class ActorSystem:
    def __init__(self, pool: asyncpg.Pool, *, clock: Clock | None = None, directory: Directory | None = None,
                 settings: RuntimeSettings | None = None, bus: EventBus | None = None) -> None:
        self.pool = pool
        self.clock: Clock = clock or SystemClock()
        self.directory: Directory = directory or LocalDirectory()
        self.settings = settings or RuntimeSettings()
        # The activation that takes messages, per actor key; `_live` also holds those still stopping.
        self._activations: dict[str, Activation[Any, Any, Any]] = {}
        self._live: set[Activation[Any, Any, Any]] = set()
        self._pins: Counter[str] = Counter()
        # Committed events go here; the server passes the node's bus so every subscriber sees them.
        self.bus = bus or EventBus()
        self._sweeper: asyncio.Task[None] | None = None
        self._stopping = False

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
            activation.deactivate(ServiceUnavailable(f"actor {activation.actor.key}: node stopping; retry"))
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
        """Call `hook(events)` after every commit that logged events, in commit order per actor.

        Hooks run on the actor's loop after its callers were answered: keep them quick (hand off to a
        queue) since the actor's next turn waits for them.
        """
        self.bus.subscribe(hook)

    async def ask(self, actor_type: type[Actor[Any, M, Any]], actor_id: str, organization_id: str,
                  message: M) -> Any:
        """Send `message` and wait for the reply; a reply means the change is durable.

        Raises the ApiError the actor decided, TooManyRequests when its mailbox is full,
        ServiceUnavailable when the node is stopping or the actor was deactivated under the caller.
        """
        # No await between finding the activation and posting to it: concurrent first messages to one
        # id all land in the mailbox of the single activation created by the first of them.
        activation = self._activation_for(actor_type, actor_id, organization_id)
        return await activation.post(message)

    def activation(self, actor_type: type[Actor[Any, Any, Any]],
                   actor_id: str) -> Activation[Any, Any, Any] | None:
        """The current activation of an actor on this node, if any (for diagnostics and tests)."""
        return self._activations.get(actor_type.key_for(actor_id))

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
        its boards), and wait until it stopped; its next message activates it afresh from the database."""
        activation = self._activations.get(actor_type.key_for(actor_id))
        if activation is None:
            return
        activation.deactivate(ServiceUnavailable(f"actor {activation.actor.key} was reloaded; retry"))
        await activation.stopped.wait()

    def sweep(self) -> int:
        """Deactivate every idle, unpinned actor with nothing queued; return how many."""
        deadline = self.clock.monotonic() - self.settings.idle_timeout
        idle = [a for key, a in self._activations.items()
                if a.last_active <= deadline and key not in self._pins and not a.busy and not len(a.mailbox)
                and a.accepting]
        for activation in idle:
            activation.deactivate(ServiceUnavailable(f"actor {activation.actor.key} was idle; retry"))
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
            return current
        activation: Activation[Any, M, Any] = Activation(
            actor_type(actor_id, organization_id, self.clock), pool=self.pool, directory=self.directory,
            publish=self.bus.publish, on_exit=self._forget, now=self.clock.monotonic,
            max_batch=self.settings.max_batch, soft_limit=self.settings.mailbox_soft_limit,
            hard_limit=self.settings.mailbox_hard_limit,
            # A new activation waits for a deactivating one to finish, so there is one writer at a time.
            predecessor=current)
        self._activations[key] = activation
        self._live.add(activation)
        activation.start()
        return activation

    def _forget(self, activation: Activation[Any, Any, Any]) -> None:
        self._live.discard(activation)
        if self._activations.get(activation.actor.key) is activation:
            del self._activations[activation.actor.key]

    async def _sweep_forever(self) -> None:
        # Orleans sweeps in time buckets; one pass over a dict is as cheap at the actor counts one
        # node holds (thousands), and keeps one sweeper task per node.
        while True:
            await self.clock.sleep(self.settings.sweep_interval)
            swept = self.sweep()
            if swept:
                log.debug("actor.swept", count=swept)
