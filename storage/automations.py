"""Automations and their execution records. Every query is scoped by organization id,
except the purge of old records, which the node runs for all organizations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn, Connection

_COLUMNS = ("id, board_id, name, enabled, trigger, conditions, actions, execution_count, last_executed_at, "
            "created_by, created_at, updated_at, next_fire_at, hook_secret")
_EXECUTION_COLUMNS = ("id, automation_id, board_id, organization_id, status, trigger_type, item_id, user_id, "
                      "event_id, condition_results, action_results, error, duration_ms, executed_at")
# Fields an update may change, with their SQL column.
_CHANGEABLE = {"name": "name", "enabled": "enabled", "trigger": "trigger", "conditions": "conditions",
               "actions": "actions", "next_fire_at": "next_fire_at", "checked_through": "checked_through",
               "hook_secret": "hook_secret"}


async def insert(conn: Conn, *, automation_id: str, org_id: str, board_id: str, name: str, enabled: bool,
                 trigger: dict[str, Any], conditions: list[Any], actions: list[Any], created_by: str | None,
                 now: datetime, next_fire_at: datetime | None, hook_secret: str | None) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO automations (id, organization_id, board_id, name, enabled, trigger, conditions, actions,
                                     created_by, created_at, updated_at, next_fire_at, hook_secret)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12) RETURNING {_COLUMNS}""",
        automation_id, org_id, board_id, name, enabled, trigger, conditions, actions, created_by, now,
        next_fire_at, hook_secret)
    return row


async def count_for_board(conn: Conn, org_id: str, board_id: str) -> int:
    count: int = await conn.fetchval(
        "SELECT count(*) FROM automations WHERE organization_id = $1 AND board_id = $2", org_id, board_id)
    return count


async def lock_board(conn: Connection, board_id: str) -> None:
    """Serialise creations on one board for the rest of the transaction, so the per-board limit holds."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtext('automations:' || $1))", board_id)


async def list_for_board(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(f"SELECT {_COLUMNS} FROM automations WHERE organization_id = $1 AND board_id = $2 "
                            "ORDER BY created_at, id", org_id, board_id)


async def enabled_for_board(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {_COLUMNS} FROM automations WHERE organization_id = $1 AND board_id = $2 AND enabled
             ORDER BY created_at, id""", org_id, board_id)


async def get(conn: Conn, org_id: str, automation_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM automations WHERE organization_id = $1 AND id = $2",
                               org_id, automation_id)


async def update(conn: Conn, org_id: str, automation_id: str, changes: dict[str, Any],
                 now: datetime, *, rearm: bool = False) -> asyncpg.Record | None:
    """Apply `changes` (keys of _CHANGEABLE); None when the automation is not in the organization. `rearm`:
    the rule runs only on events committed from now on (it was enabled again, or its trigger changed)."""
    sets = [f"{_CHANGEABLE[key]} = ${index}" for index, key in enumerate(changes, start=4)]
    if rearm:
        sets.append("armed_at = clock_timestamp()")
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""UPDATE automations SET {", ".join([*sets, "updated_at = $3"])}
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, automation_id, now, *changes.values())
    return row


async def delete(conn: Conn, org_id: str, automation_id: str) -> bool:
    deleted = await conn.fetchval("DELETE FROM automations WHERE organization_id = $1 AND id = $2 RETURNING id",
                                  org_id, automation_id)
    return deleted is not None


async def record_execution(conn: Conn, *, execution_id: str, org_id: str, automation_id: str, board_id: str,
                           status: str, trigger_type: str, item_id: str | None, user_id: str | None,
                           event_id: str | None, condition_results: list[Any], action_results: list[Any],
                           error: str | None, duration_ms: int, executed_at: datetime) -> None:
    """One run's record; the rule's execution count and last run move with it."""
    await conn.execute(
        f"""WITH counted AS (
                UPDATE automations SET execution_count = execution_count + 1, last_executed_at = $14
                 WHERE organization_id = $2 AND id = $3)
            INSERT INTO automation_executions ({_EXECUTION_COLUMNS})
            VALUES ($1, $3, $4, $2, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                    date_trunc('milliseconds', $14::timestamptz))""",
        execution_id, org_id, automation_id, board_id, status, trigger_type, item_id, user_id, event_id,
        condition_results, action_results, error, duration_ms, executed_at)


async def executions(conn: Conn, org_id: str, *, limit: int, board_id: str | None = None,
                     automation_id: str | None = None, status: str | None = None,
                     before: datetime | None = None) -> list[asyncpg.Record]:
    """Runs newest first, of a board or of one automation, older than `before`."""
    return await conn.fetch(
        f"""SELECT {_EXECUTION_COLUMNS} FROM automation_executions
             WHERE organization_id = $1 AND ($2::text IS NULL OR board_id = $2)
               AND ($3::text IS NULL OR automation_id = $3) AND ($4::text IS NULL OR status = $4)
               AND ($5::timestamptz IS NULL OR executed_at < $5)
             ORDER BY executed_at DESC, id DESC LIMIT $6""",
        org_id, board_id, automation_id, status, before, limit)


async def execution(conn: Conn, org_id: str, execution_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_EXECUTION_COLUMNS} FROM automation_executions "
                               "WHERE organization_id = $1 AND id = $2", org_id, execution_id)


async def purge_executions(conn: Conn, older_than: datetime) -> int:
    result: str = await conn.execute("DELETE FROM automation_executions WHERE executed_at < $1", older_than)
    return int(result.split()[-1])


async def acting_member(conn: Conn, org_id: str, user_id: str) -> asyncpg.Record | None:
    """The organization (id, slug, name, plan) with an active member's role, e-mail and name: whom a rule's
    actions run as."""
    return await conn.fetchrow(
        """SELECT o.id, o.slug, o.name, o.plan, m.role, u.email, u.name AS user_name
             FROM organizations o JOIN memberships m ON m.organization_id = o.id AND m.status = 'active'
             JOIN users u ON u.id = m.user_id
            WHERE o.id = $1 AND m.user_id = $2""", org_id, user_id)


async def names(conn: Conn, org_id: str, board_id: str, group_id: str | None,
                user_id: str | None) -> asyncpg.Record:
    """The board's, a group's and a member's names, for the template variables of action texts."""
    row: asyncpg.Record = await conn.fetchrow(
        """SELECT (SELECT name FROM boards WHERE organization_id = $1 AND id = $2) AS board,
                  (SELECT name FROM board_groups WHERE board_id = $2 AND id = $3) AS "group",
                  (SELECT u.name FROM users u JOIN memberships m ON m.user_id = u.id
                    WHERE m.organization_id = $1 AND u.id = $4) AS "user" """,
        org_id, board_id, group_id, user_id)
    return row


async def done_labels(conn: Conn, board_id: str) -> set[tuple[str, str]]:
    """(status column id, label id) of every label marked `isDone` on the board."""
    rows = await conn.fetch(
        """SELECT c.id AS column_id, label->>'id' AS label_id
             FROM board_columns c, jsonb_array_elements(c.config->'labels') AS label
            WHERE c.board_id = $1 AND c.type = 'status' AND (label->>'isDone')::boolean""", board_id)
    return {(row["column_id"], row["label_id"]) for row in rows}


async def subitem_values(conn: Conn, board_id: str, parent_id: str) -> list[dict[str, Any]]:
    """The values of an item's sub-items that are neither archived nor in the trash."""
    rows = await conn.fetch(
        """SELECT "values" FROM items WHERE board_id = $1 AND parent_id = $2 AND archived_at IS NULL
              AND deleted_at IS NULL AND moving_to IS NULL""", board_id, parent_id)
    return [row["values"] for row in rows]


async def get_any(conn: Conn, automation_id: str) -> asyncpg.Record | None:
    """A rule by id alone, with its organization: for the engine and the inbound webhook route."""
    return await conn.fetchrow(f"SELECT {_COLUMNS}, organization_id FROM automations WHERE id = $1",
                               automation_id)


async def item_on_board(conn: Conn, board_id: str, item_id: str) -> bool:
    """Whether the item is on the board and neither archived nor in the trash."""
    found = await conn.fetchval("SELECT 1 FROM items WHERE board_id = $1 AND id = $2 AND archived_at IS NULL "
                                "AND deleted_at IS NULL AND moving_to IS NULL", board_id, item_id)
    return found is not None
