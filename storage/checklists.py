"""Standard-work checklists and their completions. Every query is scoped by organization id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import asyncpg

from storage.connection import Conn

_COLUMNS = ("id, board_id, name, description, frequency, items, assignee_ids, deadline_hour, is_active, "
            "created_by, created_at, updated_at")
_COMPLETION_COLUMNS = "id, checklist_id, frequency, period_start, date, completed_by, completed_at, responses"
# Fields an update may change (the input's names), with their SQL column.
_CHANGEABLE = {"name": "name", "description": "description", "frequency": "frequency", "items": "items",
               "assigneeIds": "assignee_ids", "deadlineHour": "deadline_hour", "isActive": "is_active"}


async def insert(conn: Conn, *, checklist_id: str, org_id: str, board_id: str, name: str, description: str | None,
                 frequency: str, items: list[dict[str, Any]], assignee_ids: list[str], deadline_hour: int,
                 created_by: str, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO checklists (id, organization_id, board_id, name, description, frequency, items, assignee_ids,
                                    deadline_hour, created_by, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING {_COLUMNS}""",
        checklist_id, org_id, board_id, name, description, frequency, items, assignee_ids, deadline_hour,
        created_by, now)
    return row


async def get(conn: Conn, org_id: str, checklist_id: str, *, share_lock: bool = False) -> asyncpg.Record | None:
    """The template; with `share_lock` (inside a transaction) no update or delete can change it until the
    transaction ends, so a completion is checked against the items it is stored under."""
    lock = " FOR SHARE" if share_lock else ""
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM checklists WHERE organization_id = $1 AND id = $2{lock}",
                               org_id, checklist_id)


async def list_for_board(conn: Conn, org_id: str, board_id: str, *, is_active: bool | None = None
                         ) -> list[asyncpg.Record]:
    """A board's templates, newest first, all or only the active (or inactive) ones."""
    return await conn.fetch(
        f"""SELECT {_COLUMNS} FROM checklists
             WHERE organization_id = $1 AND board_id = $2 AND ($3::boolean IS NULL OR is_active = $3)
             ORDER BY created_at DESC, id DESC""", org_id, board_id, is_active)


async def update(conn: Conn, org_id: str, checklist_id: str, changes: dict[str, Any], now: datetime
                 ) -> asyncpg.Record | None:
    """Apply `changes` (keys of _CHANGEABLE); None when the template is not in the organization."""
    sets = [f"{_CHANGEABLE[key]} = ${index}" for index, key in enumerate(changes, start=4)]
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""UPDATE checklists SET {", ".join([*sets, "updated_at = $3"])}
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, checklist_id, now, *changes.values())
    return row


async def delete(conn: Conn, org_id: str, checklist_id: str) -> int | None:
    """Delete the template and its completions; the number of completions deleted, None when not found."""
    completions: int | None = await conn.fetchval(
        """WITH gone AS (DELETE FROM checklists WHERE organization_id = $1 AND id = $2 RETURNING id)
           SELECT count(c.id) FROM gone LEFT JOIN checklist_completions c ON c.checklist_id = gone.id
            GROUP BY gone.id""", org_id, checklist_id)
    return completions


async def insert_completion(conn: Conn, *, completion_id: str, org_id: str, checklist_id: str, frequency: str,
                            period_start: datetime, completed_by: str, completed_at: datetime,
                            responses: list[dict[str, Any]]) -> asyncpg.Record | None:
    """The stored completion, or None when the period already has one (the unique index decides, so two
    concurrent completions of one period cannot both succeed)."""
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""INSERT INTO checklist_completions (id, organization_id, checklist_id, frequency, period_start, date,
                                               completed_by, completed_at, responses)
            VALUES ($1, $2, $3, $4, $5, ($5 AT TIME ZONE 'UTC')::date, $6, $7, $8)
            ON CONFLICT (checklist_id, frequency, period_start) DO NOTHING RETURNING {_COMPLETION_COLUMNS}""",
        completion_id, org_id, checklist_id, frequency, period_start, completed_by, completed_at, responses)
    return row


async def completed_in(conn: Conn, org_id: str, periods: Sequence[tuple[str, str, datetime]]) -> set[str]:
    """Of the (checklist id, frequency, period start) triples, the checklist ids whose period has a completion."""
    if not periods:
        return set()
    ids, frequencies, starts = (list(column) for column in zip(*periods, strict=True))
    rows = await conn.fetch(
        """SELECT c.checklist_id FROM checklist_completions c
             JOIN unnest($2::text[], $3::text[], $4::timestamptz[]) AS p (id, frequency, start)
               ON c.checklist_id = p.id AND c.frequency = p.frequency AND c.period_start = p.start
            WHERE c.organization_id = $1""", org_id, ids, frequencies, starts)
    return {row["checklist_id"] for row in rows}


# By completion time, UTC days: a weekly checklist completed today counts in a range of today (its period
# may have started days before the range).
_IN_RANGE = """organization_id = $1 AND checklist_id = $2
               AND ($3::date IS NULL OR completed_at >= $3::date::timestamp AT TIME ZONE 'UTC')
               AND ($4::date IS NULL OR completed_at < ($4::date + 1)::timestamp AT TIME ZONE 'UTC')"""


async def count_completions(conn: Conn, org_id: str, checklist_id: str, *, start: date | None, end: date | None
                            ) -> int:
    """How many completions of the template were made from day `start` to day `end` (UTC, both inclusive,
    either open)."""
    count: int = await conn.fetchval(f"SELECT count(*) FROM checklist_completions WHERE {_IN_RANGE}",
                                     org_id, checklist_id, start, end)
    return count


async def completions(conn: Conn, org_id: str, checklist_id: str, *, start: date | None, end: date | None,
                      limit: int, offset: int) -> list[asyncpg.Record]:
    """One page of the template's completions made from day `start` to day `end`, newest first."""
    return await conn.fetch(
        f"""SELECT {_COMPLETION_COLUMNS} FROM checklist_completions WHERE {_IN_RANGE}
             ORDER BY completed_at DESC, id DESC LIMIT $5 OFFSET $6""",
        org_id, checklist_id, start, end, limit, offset)
