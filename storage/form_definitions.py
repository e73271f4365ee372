"""The statements of forms.create/update/delete/list (the forms package's own; the shared reads are in
storage/forms.py). Every query is scoped by organization id."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn
from storage.forms import FORM_COLUMNS

# The form columns an update may set.
CHANGEABLE = frozenset({"name", "description", "slug", "status", "schema", "mappings", "settings",
                        "published_at"})


async def insert(conn: Conn, *, form_id: str, org_id: str, board_id: str, slug: str, name: str,
                 description: str | None, status: str, schema: Any, mappings: Any, settings: Any,
                 created_by: str | None, published_at: datetime | None, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO forms (id, organization_id, board_id, slug, name, description, status, schema, mappings,
                               settings, created_by, published_at, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING {FORM_COLUMNS}""",
        form_id, org_id, board_id, slug, name, description, status, schema, mappings, settings, created_by,
        published_at, now)
    return row


async def update(conn: Conn, org_id: str, form_id: str, fields: dict[str, Any], now: datetime) -> asyncpg.Record:
    assert fields and set(fields) <= CHANGEABLE
    names = list(fields)
    sets = ", ".join(f"{name} = ${index + 4}" for index, name in enumerate(names))
    row: asyncpg.Record = await conn.fetchrow(
        f"""UPDATE forms SET {sets}, updated_at = $3 WHERE organization_id = $1 AND id = $2
            RETURNING {FORM_COLUMNS}""", org_id, form_id, now, *(fields[name] for name in names))
    return row


async def locked(conn: Conn, org_id: str, form_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND id = $2 FOR UPDATE", org_id, form_id)


async def lock_for_deletion(conn: Conn, org_id: str, form_id: str) -> bool:
    """Hold the form and its submissions until the transaction ends, so that what blocks the deletion is read
    after any request being opened has committed, and none opens before the delete: opening a request takes a
    key-share lock on its submission (the foreign key), which FOR UPDATE waits for and blocks, and a new
    submission takes one on the form. False when the form is gone."""
    if await conn.fetchval("SELECT true FROM forms WHERE organization_id = $1 AND id = $2 FOR UPDATE",
                           org_id, form_id) is None:
        return False
    await conn.execute("SELECT FROM form_submissions WHERE organization_id = $1 AND form_id = $2 FOR UPDATE",
                       org_id, form_id)
    return True


async def delete(conn: Conn, org_id: str, form_id: str) -> bool:
    return await conn.fetchval("DELETE FROM forms WHERE organization_id = $1 AND id = $2 RETURNING true",
                               org_id, form_id) is not None


async def of_board(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return list(await conn.fetch(
        f"""SELECT {FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND board_id = $2
            ORDER BY created_at DESC, id DESC""", org_id, board_id))


async def slug_taken(conn: Conn, org_id: str, slug: str, except_id: str | None = None) -> bool:
    return await conn.fetchval(
        "SELECT true FROM forms WHERE organization_id = $1 AND slug = $2 AND id IS DISTINCT FROM $3",
        org_id, slug, except_id) is not None


async def slugs_like(conn: Conn, org_id: str, base: str) -> set[str]:
    """The organization's slugs that are `base` or `base-<n>`."""
    rows = await conn.fetch(
        "SELECT slug FROM forms WHERE organization_id = $1 AND (slug = $2 OR slug LIKE $2 || '-%')", org_id, base)
    return {row["slug"] for row in rows}


async def submission_counts(conn: Conn, org_id: str, form_ids: list[str]) -> dict[str, int]:
    rows = await conn.fetch(
        """SELECT form_id, count(*) AS n FROM form_submissions
            WHERE organization_id = $1 AND form_id = ANY($2::text[]) GROUP BY form_id""", org_id, form_ids)
    return {row["form_id"]: row["n"] for row in rows}


async def board_groups(conn: Conn, org_id: str, board_id: str) -> list[str]:
    rows = await conn.fetch(
        """SELECT g.id FROM board_groups g JOIN boards b ON b.id = g.board_id
            WHERE b.organization_id = $1 AND g.board_id = $2""", org_id, board_id)
    return [row["id"] for row in rows]


async def board_columns(conn: Conn, org_id: str, board_id: str) -> list[str]:
    rows = await conn.fetch(
        """SELECT c.id FROM board_columns c JOIN boards b ON b.id = c.board_id
            WHERE b.organization_id = $1 AND c.board_id = $2""", org_id, board_id)
    return [row["id"] for row in rows]
