"""Notifications and device tokens. Notifications belong to a user; the caller's id scopes every query, and
`org_id`, when given, keeps it to that organization's (a single sign-on session's view)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg

from protocol.ids import Prefix, new_id
from storage.connection import Conn
from storage.turn_statement import TurnStatement

COLUMNS = "id, type, title, body, entity_type, entity_id, read, created_at"


async def insert(conn: Conn, user_id: str, org_id: str | None, type: str, title: str, body: str | None,
                 entity_type: str | None, entity_id: str | None) -> asyncpg.Record:
    return await conn.fetchrow(
        f"""INSERT INTO notifications (id, user_id, organization_id, type, title, body, entity_type, entity_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}""",
        new_id(Prefix.NOTIFICATION), user_id, org_id, type, title, body, entity_type, entity_id)


def add_entries(statement: TurnStatement, org_id: str, notes: Sequence[Any]) -> None:
    """Notifications of one organization as a part of `statement`, each given as an object whose attributes are
    named like the columns (`id` included; msgspec encodes them as one jsonb array)."""
    statement.add(
        f"""INSERT INTO notifications (id, user_id, organization_id, type, title, body, entity_type, entity_id)
            SELECT n.id, n.user_id, {statement.param(org_id)}, n.type, n.title, n.body, n.entity_type, n.entity_id
              FROM jsonb_populate_recordset(NULL::notifications, {statement.param(list(notes))}) AS n""")


async def insert_entries(conn: Conn, org_id: str, notes: Sequence[Any]) -> None:
    """Notifications of one organization in one statement (as `add_entries` takes them)."""
    statement = TurnStatement()
    add_entries(statement, org_id, notes)
    await statement.execute(conn)


# Every organization's when the parameter is null; that organization's only otherwise.
_IN_ORG = "($%d::text IS NULL OR organization_id = $%d)"


async def page(conn: Conn, user_id: str, limit: int, after_id: str | None,
               org_id: str | None = None) -> list[asyncpg.Record]:
    """Newest first; `after_id` is the last notification of the previous page (the list's cursor)."""
    if after_id is None:
        return await conn.fetch(f"SELECT {COLUMNS} FROM notifications WHERE user_id = $1 AND {_IN_ORG % (3, 3)} "
                                "ORDER BY created_at DESC, id DESC LIMIT $2", user_id, limit, org_id)
    return await conn.fetch(
        f"""SELECT {COLUMNS} FROM notifications
             WHERE user_id = $1 AND {_IN_ORG % (4, 4)} AND (created_at, id) < (
                   SELECT created_at, id FROM notifications WHERE id = $3 AND user_id = $1)
             ORDER BY created_at DESC, id DESC LIMIT $2""", user_id, limit, after_id, org_id)


async def exists(conn: Conn, user_id: str, notification_id: str, org_id: str | None = None) -> bool:
    return bool(await conn.fetchval(
        f"SELECT EXISTS (SELECT 1 FROM notifications WHERE id = $1 AND user_id = $2 AND {_IN_ORG % (3, 3)})",
        notification_id, user_id, org_id))


async def unread_count(conn: Conn, user_id: str, org_id: str | None = None) -> int:
    return int(await conn.fetchval(
        f"SELECT count(*) FROM notifications WHERE user_id = $1 AND NOT read AND {_IN_ORG % (2, 2)}", user_id, org_id))


async def mark_read(conn: Conn, user_id: str, notification_id: str, org_id: str | None = None) -> asyncpg.Record | None:
    return await conn.fetchrow(f"UPDATE notifications SET read = true WHERE id = $1 AND user_id = $2 "
                               f"AND {_IN_ORG % (3, 3)} RETURNING {COLUMNS}", notification_id, user_id, org_id)


async def mark_all_read(conn: Conn, user_id: str, org_id: str | None = None) -> int:
    status = await conn.execute(f"UPDATE notifications SET read = true WHERE user_id = $1 AND NOT read "
                                f"AND {_IN_ORG % (2, 2)}", user_id, org_id)
    return int(status.split()[-1])


async def upsert_device_token(conn: Conn, user_id: str, org_id: str, platform: str, token: str) -> asyncpg.Record:
    return await conn.fetchrow(
        """INSERT INTO device_tokens (user_id, organization_id, platform, token) VALUES ($1, $2, $3, $4)
           ON CONFLICT (user_id, platform, organization_id)
           DO UPDATE SET token = EXCLUDED.token, updated_at = now()
           RETURNING platform, token, updated_at""", user_id, org_id, platform, token)
