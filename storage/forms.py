"""Forms, their submissions and submission versions. Every query is scoped by organization
id. This module holds the reads every forms-related package shares; each package adds the statements it
alone needs."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from storage.connection import Conn

FORM_COLUMNS = ("id, organization_id, board_id, slug, name, description, status, schema, mappings, settings, "
                "created_by, published_at, created_at, updated_at")
SUBMISSION_COLUMNS = ("id, organization_id, form_id, board_id, data, version, item_id, status, submitted_by, "
                      "respondent, respondent_email, submitted_at, updated_at, completed_at")


async def get_form(conn: Conn, org_id: str, form_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND id = $2",
                               org_id, form_id)


async def form_by_slug(conn: Conn, org_id: str, slug: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND slug = $2",
                               org_id, slug.lower())


async def get_submission(conn: Conn, org_id: str, submission_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {SUBMISSION_COLUMNS} FROM form_submissions WHERE organization_id = $1 AND id = $2",
        org_id, submission_id)


async def existing_files(conn: Conn, org_id: str, file_ids: Sequence[str]) -> set[str]:
    """Which of `file_ids` are files of the organization."""
    rows = await conn.fetch("SELECT id FROM files WHERE organization_id = $1 AND id = ANY($2::text[])",
                            org_id, list(file_ids))
    return {row["id"] for row in rows}
