"""Domain events as the spec shows them (docs/architecture.md): built here, appended to the event log in the
transaction that commits the change, rendered for Socket.IO, webhooks and `/api/v1/events`.

The stored payload holds everything but the event `id` and `seq`, which the log assigns; `wire_payload`
puts them back so that every consumer sees one shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import asyncpg

from protocol.caller import Caller
from protocol.ids import iso
from storage import events as event_log
from storage.events import StoredEvent as StoredEvent  # re-exported: the edge names it through the kernel

API_VERSION = "v1"


def org_stream(org_id: str) -> str:
    return f"org:{org_id}"


def board_stream(board_id: str) -> str:
    return f"board:{board_id}"


def user_stream(org_id: str, user_id: str) -> str:
    """A user's private stream in one organization: their `notification.created` events there. Per
    organization, so that a member of two organizations has a seq that counts from 1 in each (the stream's
    row in `event_streams` belongs to one organization)."""
    return f"user:{org_id}:{user_id}"


def actor_of(caller: Caller | None) -> dict[str, Any] | None:
    if caller is None or caller.user_id is None:
        return None
    return {"id": caller.user_id, "email": caller.user_email}


def changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per changed field an object with `old` and `new` (an update event's `data.changes`)."""
    return {name: {"old": old.get(name), "new": value} for name, value in new.items() if old.get(name) != value}


def event_payload(name: str, org_id: str, data: dict[str, Any], caller: Caller | None,
                  moment: datetime) -> dict[str, Any]:
    """The stored payload. A change an automation made also carries `data.automation` (`id`, `depth`)."""
    data = {**data, "actor": actor_of(caller)}
    if caller is not None and caller.automation is not None:
        data["automation"] = {"id": caller.automation.automation_id, "depth": caller.automation.depth}
    return {"event": name, "timestamp": iso(moment), "apiVersion": API_VERSION, "organizationId": org_id,
            "data": data}


async def emit(conn: asyncpg.Connection, *, org_id: str, stream: str, name: str, data: dict[str, Any],
               caller: Caller | None, moment: datetime) -> StoredEvent:
    """Append one event inside the caller's transaction, outside the write path: nothing publishes it (tests
    use it for a change committed by a node that died before publishing). Services use `node.write`."""
    [stored] = await event_log.append(conn, org_id, stream, [(name, event_payload(name, org_id, data, caller,
                                                                                  moment))])
    return stored


def notification_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A notification as the spec shows it, also the data of its `notification.created` event."""
    return {"id": row["id"], "type": row["type"], "title": row["title"], "body": row["body"],
            "entityType": row["entity_type"], "entityId": row["entity_id"], "read": row["read"],
            "createdAt": iso(row["created_at"])}


def wire_payload(event: StoredEvent) -> dict[str, Any]:
    return {"id": event.id, **event.payload, "seq": event.seq}


class EventLog:
    """The event log as the edge reads it (the Socket.IO gateway replays from it): through the node, so
    that `web/` never touches `storage/`."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def read(self, org_id: str, stream: str, since: int, limit: int) -> list[StoredEvent]:
        """Events of `stream` after seq `since`, oldest first, at most `limit`."""
        return await event_log.read(self._pool, org_id, stream, since, limit)

    async def last_seq(self, org_id: str, stream: str) -> int:
        return await event_log.last_seq(self._pool, org_id, stream)
