"""An organization's board templates (`templates`, migration 0048). Every query is scoped by organization id."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn

_COLUMNS = ("id, name, description, category, tags, source_board_id, created_by, usage_count, structure, "
            "created_at, updated_at")
# Fields an update may change (the input's names), with their SQL column.
_CHANGEABLE = {"name": "name", "description": "description"}


async def insert(conn: Conn, *, template_id: str, org_id: str, name: str, description: str | None, category: str,
                 tags: list[str], source_board_id: str, created_by: str, structure: dict[str, Any],
                 now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO templates (id, organization_id, name, description, category, tags, source_board_id,
                                   created_by, structure, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING {_COLUMNS}""",
        template_id, org_id, name, description, category, tags, source_board_id, created_by, structure, now)
    return row


async def get(conn: Conn, org_id: str, template_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM templates WHERE organization_id = $1 AND id = $2",
                               org_id, template_id)


async def list_for_organization(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    """Newest first."""
    return await conn.fetch(f"""SELECT {_COLUMNS} FROM templates WHERE organization_id = $1
                                 ORDER BY created_at DESC, id DESC""", org_id)


async def update(conn: Conn, org_id: str, template_id: str, changes: dict[str, Any], now: datetime
                 ) -> asyncpg.Record | None:
    """Apply `changes` (keys of _CHANGEABLE); None when the template is not in the organization."""
    sets = [f"{_CHANGEABLE[key]} = ${index}" for index, key in enumerate(changes, start=4)]
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""UPDATE templates SET {", ".join([*sets, "updated_at = $3"])}
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, template_id, now, *changes.values())
    return row


async def count_use(conn: Conn, org_id: str, template_id: str) -> None:
    await conn.execute("UPDATE templates SET usage_count = usage_count + 1 WHERE organization_id = $1 AND id = $2",
                       org_id, template_id)


async def delete(conn: Conn, org_id: str, template_id: str) -> bool:
    deleted: str = await conn.execute("DELETE FROM templates WHERE organization_id = $1 AND id = $2",
                                      org_id, template_id)
    return deleted != "DELETE 0"
