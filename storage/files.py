"""File descriptions (`files`, migration 0031): one organization's files by id. The bytes are the FileStore's
(actors/files/). Every query is scoped by organization id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from storage.connection import Conn

FILE_COLUMNS = "id, organization_id, name, content_type, size, sha256, uploaded_by, form_id, created_at"


async def insert_file(conn: Conn, *, id: str, org_id: str, name: str, content_type: str, size: int, sha256: str,
                      uploaded_by: str | None, form_id: str | None, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO files (id, organization_id, name, content_type, size, sha256, uploaded_by, form_id,
                               created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {FILE_COLUMNS}""",
        id, org_id, name, content_type, size, sha256, uploaded_by, form_id, now)
    return row


async def get_file(conn: Conn, org_id: str, file_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {FILE_COLUMNS} FROM files WHERE organization_id = $1 AND id = $2",
                               org_id, file_id)


async def files_by_ids(conn: Conn, org_id: str, file_ids: Sequence[str]) -> list[asyncpg.Record]:
    return list(await conn.fetch(
        f"SELECT {FILE_COLUMNS} FROM files WHERE organization_id = $1 AND id = ANY($2::text[])",
        org_id, list(file_ids)))
