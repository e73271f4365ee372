"""Projects, and the read side of boards (which projects list); every query scoped by organization id.

Only the board actor writes boards; deleting a project deletes its boards and everything on them through
the schema's ON DELETE CASCADE.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn, Connection

_PROJECT = "SELECT id, workspace_id, name, description, created_at, updated_at FROM projects"
_BOARD = "SELECT id, name, project_id, default_view, created_at, updated_at FROM boards"
_NEWEST_FIRST = "ORDER BY created_at DESC, id DESC"

# Columns a caller may change, by input field name.
UPDATABLE = {"name": "name", "description": "description"}


def _paged(conditions: list[str], args: list[Any], limit: int | None,
           after: tuple[datetime, str] | None) -> str:
    """WHERE, ORDER BY and LIMIT of a newest-first list, appending their arguments to `args`."""
    if after is not None:
        args.extend(after)
        conditions.append(f"(created_at, id) < (${len(args) - 1}, ${len(args)})")
    sql = f" WHERE {' AND '.join(conditions)} {_NEWEST_FIRST}"
    if limit is not None:
        args.append(limit)
        sql += f" LIMIT ${len(args)}"
    return sql


async def project(conn: Conn, org_id: str, project_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"{_PROJECT} WHERE id = $1 AND organization_id = $2", project_id, org_id)


async def list_projects(conn: Conn, org_id: str, workspace_id: str, limit: int | None = None,
                        after: tuple[datetime, str] | None = None, *, lock: bool = False) -> list[asyncpg.Record]:
    """A workspace's projects, newest first; all of them when `limit` is None; `lock` locks them until
    commit (no board is added to them meanwhile)."""
    args: list[Any] = [org_id, workspace_id]
    where = _paged(["organization_id = $1", "workspace_id = $2"], args, limit, after)
    return await conn.fetch(_PROJECT + where + (" FOR UPDATE" if lock else ""), *args)


async def insert_project(conn: Conn, project_id: str, org_id: str, workspace_id: str, *, name: str,
                         description: str | None, created_by: str) -> asyncpg.Record:
    return await conn.fetchrow(
        """INSERT INTO projects (id, organization_id, workspace_id, name, description, created_by)
           VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING id, workspace_id, name, description, created_at, updated_at""",
        project_id, org_id, workspace_id, name, description, created_by)


async def update_project(conn: Conn, org_id: str, project_id: str, fields: dict[str, Any]) -> asyncpg.Record:
    """Set the given fields (input names, see UPDATABLE) and bump `updated_at`."""
    columns = [(UPDATABLE[name], value) for name, value in fields.items()]
    assignments = [f"{column} = ${index}" for index, (column, _) in enumerate(columns, start=3)]
    assignments.append("updated_at = clock_timestamp()")
    return await conn.fetchrow(
        f"""UPDATE projects SET {', '.join(assignments)} WHERE id = $1 AND organization_id = $2
            RETURNING id, workspace_id, name, description, created_at, updated_at""",
        project_id, org_id, *[value for _, value in columns])


async def lock_project(conn: Connection, org_id: str, project_id: str) -> asyncpg.Record | None:
    """The project, locked until commit (no board is added to it while it is being deleted)."""
    return await conn.fetchrow(f"{_PROJECT} WHERE id = $1 AND organization_id = $2 FOR UPDATE",
                               project_id, org_id)


async def delete_project(conn: Conn, org_id: str, project_id: str) -> None:
    await conn.execute("DELETE FROM projects WHERE id = $1 AND organization_id = $2", project_id, org_id)


async def list_boards(conn: Conn, org_id: str, project_ids: Sequence[str], limit: int | None = None,
                      after: tuple[datetime, str] | None = None) -> list[asyncpg.Record]:
    """The boards of the given projects, newest first; all of them when `limit` is None."""
    args: list[Any] = [org_id, list(project_ids)]
    where = _paged(["organization_id = $1", "project_id = ANY($2::text[])"], args, limit, after)
    return await conn.fetch(_BOARD + where, *args)
