"""Corrective actions and their escalation history. Every query is scoped by organization
id, except the overdue scheduler's search for actions to escalate, which runs for all organizations."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import asyncpg

from protocol.actions import OPEN_STATUSES, PRIORITIES, STATUSES
from storage.connection import Conn, Connection

_COLUMNS = """a.id, a.organization_id, a.board_id, a.title, a.description, a.status, a.priority, a.assignee_id,
    a.due_date, a.source_type, a.source_id, a.category, a.escalation_level, a.escalated_to_user_id,
    a.escalation_changed_at, a.root_cause_id, a.verification_note, a.verified_at, a.verified_by,
    a.completed_at, a.version, a.created_by, a.created_at, a.updated_at,
    assignee.name AS assignee_name, target.name AS escalated_to_name"""
# The people an action names, for its view.
_NAMES = """LEFT JOIN users assignee ON assignee.id = a.assignee_id
    LEFT JOIN users target ON target.id = a.escalated_to_user_id"""
# Columns an update may set (the service maps the spec's fields onto them).
CHANGEABLE = frozenset({"title", "description", "status", "priority", "assignee_id", "due_date", "completed_at",
                        "verified_at", "verified_by", "verification_note", "escalation_level",
                        "escalated_to_user_id", "escalation_changed_at"})
_OPEN = "a.status IN (" + ", ".join(f"'{status}'" for status in OPEN_STATUSES) + ")"


async def insert(conn: Conn, *, action_id: str, org_id: str, board_id: str, title: str, description: str | None,
                 priority: str, assignee_id: str, due_date: date, source_type: str, source_id: str | None,
                 category: str | None, created_by: str | None, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""WITH a AS (
                INSERT INTO actions (id, organization_id, board_id, title, description, priority, assignee_id,
                                     due_date, source_type, source_id, category, created_by, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING *)
            SELECT {_COLUMNS} FROM a {_NAMES}""",
        action_id, org_id, board_id, title, description, priority, assignee_id, due_date, source_type, source_id,
        category, created_by, now)
    return row


async def get(conn: Conn, org_id: str, action_id: str, *, lock: bool = False) -> asyncpg.Record | None:
    """The action, or None when it is not in the organization; `lock` holds it for the transaction."""
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM actions a {_NAMES} WHERE a.organization_id = $1 "
                               f"AND a.id = $2{' FOR UPDATE OF a' if lock else ''}", org_id, action_id)


async def update(conn: Conn, org_id: str, action_id: str, fields: dict[str, Any], now: datetime) -> asyncpg.Record:
    """Set `fields` (keys of CHANGEABLE), stamp `updated_at` and bump the version."""
    sets = [f"{column} = ${index}" for index, column in enumerate(fields, start=4)]
    row: asyncpg.Record = await conn.fetchrow(
        f"""WITH a AS (
                UPDATE actions SET {", ".join([*sets, "updated_at = $3", "version = version + 1"])}
                 WHERE organization_id = $1 AND id = $2 RETURNING *)
            SELECT {_COLUMNS} FROM a {_NAMES}""",
        org_id, action_id, now, *fields.values())
    return row


async def delete(conn: Conn, org_id: str, action_id: str) -> bool:
    deleted = await conn.fetchval("DELETE FROM actions WHERE organization_id = $1 AND id = $2 RETURNING id",
                                  org_id, action_id)
    return deleted is not None


async def page(conn: Conn, org_id: str, board_id: str, *, filters: dict[str, str], limit: int,
               after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    """A board's actions newest first; `filters` maps a column (status, priority, assignee_id, category) to the
    value it must hold."""
    args: list[Any] = [org_id, board_id]

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    conditions = ["a.organization_id = $1", "a.board_id = $2"]
    conditions += [f"a.{column} = {arg(value)}" for column, value in filters.items()]
    if after is not None:
        conditions.append(f"(a.created_at, a.id) < ({arg(after[0])}, {arg(after[1])})")
    return await conn.fetch(f"SELECT {_COLUMNS} FROM actions a {_NAMES} WHERE {' AND '.join(conditions)} "
                            f"ORDER BY a.created_at DESC, a.id DESC LIMIT {arg(limit)}", *args)


async def across_boards(conn: Conn, org_id: str, user_id: str, *, which: str, today: date, see_all: bool,
                        see_open: bool, limit: int, after: tuple[date, str] | None) -> list[asyncpg.Record]:
    """The organization's `escalated` or `overdue` actions, earliest due first, on the boards whose workspace
    the user sees: all (`see_all`), the open ones (`see_open`) and those the user is a member of (the rule of
    actors/kernel/access.py)."""
    args: list[Any] = [org_id, user_id, see_all, see_open]

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    conditions = ["a.organization_id = $1",
                  """($3 OR ($4 AND w.visibility = 'open')
                      OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = $2))"""]
    conditions.append("a.escalation_level > 0" if which == "escalated" else f"{_OPEN} AND a.due_date < {arg(today)}")
    if after is not None:
        conditions.append(f"(a.due_date, a.id) > ({arg(after[0])}, {arg(after[1])})")
    return await conn.fetch(
        f"""SELECT {_COLUMNS} FROM actions a {_NAMES}
              JOIN boards b ON b.id = a.board_id JOIN projects p ON p.id = b.project_id
              JOIN workspaces w ON w.id = p.workspace_id
             WHERE {' AND '.join(conditions)} ORDER BY a.due_date, a.id LIMIT {arg(limit)}""", *args)


async def stats(conn: Conn, org_id: str, board_id: str, today: date) -> asyncpg.Record:
    """`total`, `status_<s>` and `priority_<p>` counts, `overdue`, `escalated`, and `closure_days`: the mean
    days from creation to completion of the actions that were completed (null when none)."""
    counts = [f"count(*) FILTER (WHERE a.status = '{status}') AS status_{status}" for status in STATUSES]
    counts += [f"count(*) FILTER (WHERE a.priority = '{priority}') AS priority_{priority}" for priority in PRIORITIES]
    row: asyncpg.Record = await conn.fetchrow(
        f"""SELECT count(*) AS total, {", ".join(counts)},
                   count(*) FILTER (WHERE {_OPEN} AND a.due_date < $3) AS overdue,
                   count(*) FILTER (WHERE a.escalation_level > 0) AS escalated,
                   avg(extract(epoch FROM a.completed_at - a.created_at) / 86400)
                       FILTER (WHERE a.completed_at IS NOT NULL) AS closure_days
              FROM actions a WHERE a.organization_id = $1 AND a.board_id = $2""", org_id, board_id, today)
    return row


async def add_escalation(conn: Conn, *, escalation_id: str, org_id: str, action_id: str, from_level: int,
                         to_level: int, to_user_id: str | None, reason: str, changed_by: str | None,
                         now: datetime) -> None:
    await conn.execute(
        """INSERT INTO action_escalations (id, organization_id, action_id, from_level, to_level, to_user_id, reason,
                                           changed_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)""",
        escalation_id, org_id, action_id, from_level, to_level, to_user_id, reason, changed_by, now)


async def escalations(conn: Conn, org_id: str, action_id: str) -> list[asyncpg.Record]:
    """The action's level changes, newest first, with the names of the people they name."""
    return await conn.fetch(
        """SELECT e.id, e.from_level, e.to_level, e.to_user_id, target.name AS to_user_name, e.reason,
                  e.changed_by, e.created_at
             FROM action_escalations e LEFT JOIN users target ON target.id = e.to_user_id
            WHERE e.organization_id = $1 AND e.action_id = $2 ORDER BY e.created_at DESC, e.id DESC""",
        org_id, action_id)


async def target_at_level(conn: Conn, org_id: str, action_id: str, level: int) -> str | None:
    """Who the action was escalated to when it last reached `level`; None at level 0 or when unknown."""
    target: str | None = await conn.fetchval(
        """SELECT to_user_id FROM action_escalations WHERE organization_id = $1 AND action_id = $2 AND to_level = $3
            ORDER BY created_at DESC, id DESC LIMIT 1""", org_id, action_id, level)
    return target


async def due_for_escalation(conn: Connection, *, today: date, unchanged_since: datetime,
                             below_level: int, limit: int) -> list[asyncpg.Record]:
    """Overdue actions of every organization below `below_level` whose level has not moved since
    `unchanged_since`, locked for this transaction (another node's scheduler skips them)."""
    return await conn.fetch(
        f"""SELECT {_COLUMNS} FROM actions a {_NAMES}
             WHERE {_OPEN} AND a.due_date < $1 AND a.escalation_level < $3
               AND (a.escalation_changed_at IS NULL OR a.escalation_changed_at <= $2)
             ORDER BY a.due_date, a.id LIMIT $4 FOR UPDATE OF a SKIP LOCKED""",
        today, unchanged_since, below_level, limit)


async def escalation_chain(conn: Conn, org_id: str, board_id: str) -> list[str]:
    """Who an overdue action goes up to, in order: the board's creator, the organization's admins (longest
    membership first), its owner; active members only, each once."""
    rows = await conn.fetch(
        """SELECT m.user_id, CASE WHEN m.user_id = b.created_by THEN 0 WHEN m.role = 'admin' THEN 1 ELSE 2 END AS tier
             FROM boards b JOIN memberships m ON m.organization_id = b.organization_id
            WHERE b.organization_id = $1 AND b.id = $2 AND m.status = 'active'
              AND (m.user_id = b.created_by OR m.role IN ('admin', 'owner'))
            ORDER BY tier, m.joined_at, m.user_id""", org_id, board_id)
    return [row["user_id"] for row in rows]


async def set_root_cause(conn: Conn, org_id: str, action_id: str, sheet_id: str | None, *,
                         now: datetime | None = None) -> bool:
    """Link the action to a problem-solving sheet (None unlinks); False when the action is not in the
    organization. `now`, when given, becomes the action's `updatedAt`."""
    changed = await conn.fetchval(
        """UPDATE actions SET root_cause_id = $3, version = version + 1, updated_at = coalesce($4, updated_at)
            WHERE organization_id = $1 AND id = $2 RETURNING id""", org_id, action_id, sheet_id, now)
    return changed is not None


async def for_export(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    """Every action of the board, newest first (export.exportActionLog)."""
    return await conn.fetch(f"SELECT {_COLUMNS} FROM actions a {_NAMES} WHERE a.organization_id = $1 "
                            "AND a.board_id = $2 ORDER BY a.created_at DESC, a.id DESC", org_id, board_id)
