"""The activity trail: entries written by mutation handlers, read by the activity procedures."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from protocol.ids import Prefix, new_id
from storage.connection import Conn
from storage.turn_statement import TurnStatement


async def record(conn: Conn, org_id: str, actor_id: str | None, entity_type: str, entity_id: str,
                 action: str, metadata: dict[str, Any] | None = None) -> str:
    entry_id = new_id(Prefix.ACTIVITY)
    await conn.execute(
        """INSERT INTO activity (id, organization_id, entity_type, entity_id, action, metadata, actor_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""",
        entry_id, org_id, entity_type, entity_id, action, metadata or {}, actor_id)
    return entry_id


def insert_entries_sql(organization: str, rows: str) -> str:
    """One statement writing any number of entries, given as `rows` (a jsonb array of objects with `id`,
    `entity_type`, `entity_id`, `action`, `metadata`, `actor_id`) of the organization `organization` (both
    placeholders, e.g. "$2"); also usable as a CTE of a turn's other statement.

    Rows in the order given. The trail sorts by created_at: a row more than the one before (a microsecond per
    row), rather than each row's own clock reading, which rows inserted within the same microsecond would share
    (and random ids would then order)."""
    return f"""INSERT INTO activity (id, organization_id, entity_type, entity_id, action, metadata, actor_id,
                                     created_at)
               SELECT e.id, {organization}, e.entity_type, e.entity_id, e.action, e.metadata, e.actor_id,
                      clock_timestamp() + (e.ordinality - 1) * interval '1 microsecond'
                 FROM jsonb_populate_recordset(NULL::activity, {rows}) WITH ORDINALITY AS e
                ORDER BY e.ordinality"""


def add_entries(statement: TurnStatement, org_id: str, rows: list[dict[str, Any]]) -> None:
    """`rows` (as `insert_entries_sql` takes them) as a part of `statement`."""
    statement.add(insert_entries_sql(statement.param(org_id), statement.param(rows)))


async def insert_entries(conn: Conn, org_id: str, rows: list[dict[str, Any]]) -> None:
    """`rows` (as `insert_entries_sql` takes them) in one statement."""
    statement = TurnStatement()
    add_entries(statement, org_id, rows)
    await statement.execute(conn)


_SELECT = """SELECT a.id, a.entity_type, a.entity_id, a.action, a.metadata, a.created_at,
                    u.id AS actor_id, u.name AS actor_name, u.email AS actor_email, u.image AS actor_image
               FROM activity a LEFT JOIN users u ON u.id = a.actor_id"""


async def list_by_org(conn: Conn, org_id: str, limit: int,
                      after: tuple[datetime, str] | None = None) -> list[asyncpg.Record]:
    if after is None:
        return await conn.fetch(f"{_SELECT} WHERE a.organization_id = $1 "
                                "ORDER BY a.created_at DESC, a.id DESC LIMIT $2", org_id, limit)
    return await conn.fetch(f"{_SELECT} WHERE a.organization_id = $1 AND (a.created_at, a.id) < ($3, $4) "
                            "ORDER BY a.created_at DESC, a.id DESC LIMIT $2", org_id, limit, *after)


async def list_by_entity(conn: Conn, org_id: str, entity_type: str, entity_id: str, limit: int,
                         after: tuple[datetime, str] | None = None) -> list[asyncpg.Record]:
    where = "a.organization_id = $1 AND a.entity_type = $2 AND a.entity_id = $3"
    if after is None:
        return await conn.fetch(f"{_SELECT} WHERE {where} ORDER BY a.created_at DESC, a.id DESC LIMIT $4",
                                org_id, entity_type, entity_id, limit)
    return await conn.fetch(f"{_SELECT} WHERE {where} AND (a.created_at, a.id) < ($5, $6) "
                            "ORDER BY a.created_at DESC, a.id DESC LIMIT $4",
                            org_id, entity_type, entity_id, limit, *after)
