"""An activation's bounded mailbox: envelopes (a message and the caller's future) in arrival order, a
soft limit that warns and a hard limit that rejects with TooManyRequests. Never an unbounded queue."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Any

import structlog

from protocol.errors import ApiError, TooManyRequests

log = structlog.get_logger(__name__)


@dataclass(slots=True)
class Envelope:
    message: Any
    future: asyncio.Future[Any]

    def reply(self, value: Any) -> None:
        # The caller may have given up (cancelled); its message was still handled.
        if not self.future.done():
            self.future.set_result(value)

    def fail(self, error: ApiError) -> None:
        if not self.future.done():
            self.future.set_exception(error)


class Mailbox:
    def __init__(self, name: str, *, soft_limit: int, hard_limit: int) -> None:
        if not 0 < soft_limit <= hard_limit:
            raise ValueError("need 0 < soft_limit <= hard_limit")
        self.name = name
        self.soft_limit = soft_limit
        self.hard_limit = hard_limit
        self._queue: deque[Envelope] = deque()
        self._ready = asyncio.Event()
        self._closed_with: ApiError | None = None
        self._warned = False
        # The loop the callers' futures belong to, taken at the first `put` (asking the running loop for each
        # message costs a getpid system call every time: CPython checks it was not forked).
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def closed(self) -> bool:
        return self._closed_with is not None

    def put(self, message: Any) -> Envelope:
        """Queue `message`; raise TooManyRequests when full, or the close error once closed."""
        if self._closed_with is not None:
            raise self._closed_with
        if len(self._queue) >= self.hard_limit:
            raise TooManyRequests(f"actor {self.name} is overloaded; retry later",
                                  data={"actor": self.name})
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        envelope = Envelope(message, self._loop.create_future())
        self._queue.append(envelope)
        if len(self._queue) >= self.soft_limit:
            # Warn once per crossing, not once per message, so an overload does not flood the log.
            if not self._warned:
                log.warning("mailbox.soft_limit", actor=self.name, depth=len(self._queue),
                            soft_limit=self.soft_limit, hard_limit=self.hard_limit)
                self._warned = True
        else:
            self._warned = False
        self._ready.set()
        return envelope

    def take(self, limit: int) -> list[Envelope]:
        """Remove and return up to `limit` envelopes, oldest first."""
        batch = [self._queue.popleft() for _ in range(min(limit, len(self._queue)))]
        if not self._queue:
            self._ready.clear()
            self._warned = False
        return batch

    async def wait(self) -> None:
        """Return once there is something to take, or the mailbox is closed or woken."""
        await self._ready.wait()

    def wake(self) -> None:
        self._ready.set()

    def close(self, error: ApiError) -> int:
        """Refuse new messages with `error`, fail every queued one with it; return how many failed."""
        self._closed_with = error
        failed = 0
        while self._queue:
            self._queue.popleft().fail(error)
            failed += 1
        self._ready.set()
        return failed

