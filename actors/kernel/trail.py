"""The trail an actor's decision leaves beside its own rows: activity entries and in-app notifications. Board,
KPI and approval-flow deciders build them; the actor writes them in its turn's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from protocol.ids import Prefix, new_id
from storage import activity as activity_log
from storage import notifications as notification_repo


@dataclass(frozen=True)
class ActivityEntry:
    entity_type: str
    entity_id: str
    action: str
    actor_id: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NotificationEntry:
    """An in-app notification written in the turn's transaction (not part of the actor's state)."""

    id: str
    user_id: str
    type: str
    title: str
    body: str | None
    entity_type: str | None
    entity_id: str | None


def activity_rows(entries: Sequence[ActivityEntry]) -> list[dict[str, Any]]:
    """The entries as `storage.activity.insert_entries_sql` takes them, each with a new id."""
    return [{"id": new_id(Prefix.ACTIVITY), "entity_type": e.entity_type, "entity_id": e.entity_id, "action": e.action,
             "metadata": e.metadata, "actor_id": e.actor_id} for e in entries]


async def persist_trail(conn: asyncpg.Connection, organization_id: str, activity: Sequence[ActivityEntry] = (),
                        notifications: Sequence[NotificationEntry] = ()) -> None:
    """The activity entries in one statement, then the notifications in one batch."""
    if activity:
        await activity_log.insert_entries(conn, organization_id, activity_rows(activity))
    if notifications:
        await notification_repo.insert_entries(conn, organization_id, notifications)
