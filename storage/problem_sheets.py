"""Problem-solving sheets. Every query is scoped by organization id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn

_COLUMNS = ("id, board_id, title, type, status, data, action_id, created_by_id, reviewed_by_id, reviewed_at, "
            "review_comment, created_at, updated_at")
# Fields an update may change (their SQL columns have the same names).
_CHANGEABLE = frozenset({"title", "data", "status", "action_id", "reviewed_by_id", "reviewed_at", "review_comment"})
# A list's filters, with their SQL columns.
_FILTERS = {"action_id": "action_id", "type": "type", "status": "status"}


async def insert(conn: Conn, *, sheet_id: str, org_id: str, board_id: str, title: str, sheet_type: str,
                 data: dict[str, Any], created_by: str, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO problem_sheets (id, organization_id, board_id, title, type, data, created_by_id,
                                        created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING {_COLUMNS}""",
        sheet_id, org_id, board_id, title, sheet_type, data, created_by, now)
    return row


async def get(conn: Conn, org_id: str, sheet_id: str, *, lock: bool = False) -> asyncpg.Record | None:
    """The sheet, or None when it is not in the organization; `lock` holds it for the transaction."""
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM problem_sheets WHERE organization_id = $1 AND id = $2"
                               f"{' FOR UPDATE' if lock else ''}", org_id, sheet_id)


async def update(conn: Conn, org_id: str, sheet_id: str, changes: dict[str, Any], now: datetime, *,
                 from_statuses: Sequence[str] | None = None) -> asyncpg.Record | None:
    """Apply `changes` (keys of _CHANGEABLE) if the sheet is in the organization and, when `from_statuses` is
    given, in one of those states at the moment of the update; else None."""
    assert set(changes) <= _CHANGEABLE, changes
    sets = [f"{key} = ${index}" for index, key in enumerate(changes, start=5)]
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""UPDATE problem_sheets SET {", ".join([*sets, "updated_at = $3"])}
             WHERE organization_id = $1 AND id = $2 AND ($4::text[] IS NULL OR status = ANY($4))
         RETURNING {_COLUMNS}""",
        org_id, sheet_id, now, None if from_statuses is None else list(from_statuses), *changes.values())
    return row


async def delete(conn: Conn, org_id: str, sheet_id: str) -> bool:
    deleted = await conn.fetchval(
        "DELETE FROM problem_sheets WHERE organization_id = $1 AND id = $2 RETURNING id", org_id, sheet_id)
    return deleted is not None


async def page(conn: Conn, org_id: str, board_id: str, *, limit: int, offset: int,
               filters: dict[str, str | None]) -> tuple[list[asyncpg.Record], int]:
    """One page of a board's sheets, newest first, and how many match in all. `filters` maps keys of
    _FILTERS to a wanted value (None: any)."""
    wanted = {key: value for key, value in filters.items() if value is not None}
    where = " ".join(f"AND {_FILTERS[key]} = ${index}" for index, key in enumerate(wanted, start=3))
    match = f"FROM problem_sheets WHERE organization_id = $1 AND board_id = $2 {where}"
    total: int = await conn.fetchval(f"SELECT count(*) {match}", org_id, board_id, *wanted.values())
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} {match} ORDER BY created_at DESC, id DESC "
        f"LIMIT ${len(wanted) + 3} OFFSET ${len(wanted) + 4}",
        org_id, board_id, *wanted.values(), limit, offset)
    return rows, total


async def for_action(conn: Conn, org_id: str, action_id: str) -> list[asyncpg.Record]:
    """The sheets linked to an action, newest first."""
    return await conn.fetch(
        f"""SELECT {_COLUMNS} FROM problem_sheets WHERE organization_id = $1 AND action_id = $2
             ORDER BY created_at DESC, id DESC""", org_id, action_id)
