"""The one write path: `async with node.write(caller) as uow:` opens a transaction on `uow.conn`; the unit
collects its events (`uow.emit`), activity entries (`uow.activity`) and notifications (`uow.notify`). On a
clean exit it appends the events, commits, and only then hands them to the bus; on failure it rolls back
and raises one typed error (actors/runtime/db_errors.py), so a rolled-back change is never published.

Events are appended in one statement that takes their streams in sorted order. Appending locks the stream's row in
`event_streams` until commit; two transactions that lock the same streams in opposite orders (two boards
notifying the same two users, a move from board A to B while another goes from B to A) deadlock and one of
them is aborted. Taking them in one global order makes that impossible. The actor runtime's commit appends
its events the same way (storage/events.py `append_all`).
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from types import TracebackType
from typing import Any

import asyncpg

from actors.kernel.events import event_payload, notification_view, user_stream
from actors.runtime.bus import EventBus
from actors.runtime.db_errors import database_error
from protocol.caller import Caller, CredentialKind
from protocol.errors import ApiError
from storage import activity as activity_log
from storage import events as event_log
from storage import notifications as notification_repo
from storage.events import Pending, StoredEvent
from storage.pool import give_back


class UnitOfWork:
    """One transaction of a service; build it with `Node.write`."""

    conn: asyncpg.Connection

    def __init__(self, pool: asyncpg.Pool, bus: EventBus, caller: Caller | None, *, org_id: str | None,
                 now: datetime, missing: ApiError | None) -> None:
        # Both may be set inside the unit when only its reads tell them (an invitation being accepted).
        self.caller = caller
        self.org_id = org_id or (caller.organization.id if caller is not None and caller.organization else "")
        self.now = now
        # The committed events, in the order they were emitted; set once the unit committed.
        self.events: list[StoredEvent] = []
        self._pool = pool
        self._bus = bus
        self._missing = missing
        self._pending: list[Pending] = []
        self._transaction: Any = None

    async def __aenter__(self) -> UnitOfWork:
        try:
            self.conn = await self._pool.acquire()
        except Exception as exc:
            raise self._mapped(exc) from exc
        try:
            self._transaction = self.conn.transaction()
            await self._transaction.start()
        except BaseException as exc:
            await give_back(self._pool, self.conn, exc)
            if isinstance(exc, Exception):
                raise self._mapped(exc) from exc
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        traceback: TracebackType | None) -> None:
        failure = exc
        try:
            if exc is None:
                try:
                    committed = await event_log.append_all(self.conn, self._pending)
                    await self._transaction.commit()
                except BaseException as commit_failure:
                    failure = commit_failure
                    await self._rollback()
                    if isinstance(commit_failure, Exception):
                        raise self._mapped(commit_failure) from commit_failure
                    raise
            else:
                await self._rollback()
        finally:
            await give_back(self._pool, self.conn, failure)
        if exc is not None:
            mapped = database_error(exc, missing=self._missing)
            if isinstance(exc, Exception) and mapped is not None:
                raise mapped from exc
            return  # the body's own error (an ApiError, a bug) goes on unchanged
        self.events = committed
        await self._bus.publish(committed)

    def _mapped(self, exc: Exception) -> Exception:
        return database_error(exc, missing=self._missing) or exc

    async def _rollback(self) -> None:
        # A broken connection cannot roll back; give_back discards it and the server rolled back.
        with contextlib.suppress(Exception):
            await self._transaction.rollback()

    # `org_id` on the three below: a unit that spans organizations (the overdue scheduler's batch) names
    # each write's own; by default it is the unit's.
    def emit(self, stream: str, name: str, data: dict[str, Any], *, org_id: str | None = None) -> None:
        """Append `name` to `stream` when the unit commits; the payload carries the caller as `actor`."""
        org = org_id or self.org_id
        self._pending.append((org, stream, name, event_payload(name, org, data, self.caller, self.now)))

    async def activity(self, entity_type: str, entity_id: str, action: str,
                       metadata: dict[str, Any] | None = None, *, org_id: str | None = None) -> str:
        """An activity entry by the caller (none: a scheduler), in this transaction; its id."""
        actor_id = self.caller.user_id if self.caller is not None else None
        if self.caller is not None and self.caller.credential is CredentialKind.DISPLAY:
            # A display acts as its creator; the trail also names the wall screen, or the entry would say the
            # person did at their desk what the screen did (docs/displays.md).
            metadata = {**(metadata or {}), "displayId": self.caller.credential_id}
        return await activity_log.record(self.conn, org_id or self.org_id, actor_id, entity_type, entity_id,
                                         action, metadata)

    async def notify(self, user_id: str, type: str, title: str, body: str | None = None,
                     entity_type: str | None = None, entity_id: str | None = None, *,
                     org_id: str | None = None) -> dict[str, Any]:
        """A notification row for `user_id` and its `notification.created` on the user's stream of this
        organization; the notification as the spec shows it."""
        org = org_id or self.org_id
        row = await notification_repo.insert(self.conn, user_id, org, type, title, body, entity_type, entity_id)
        view = notification_view(row)
        self.emit(user_stream(org, user_id), "notification.created", view, org_id=org)
        return view
