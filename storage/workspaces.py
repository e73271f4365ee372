"""Workspaces and workspace members; every query scoped by organization id.

Deleting a workspace deletes its projects, boards, groups, columns, items and comments through the
schema's ON DELETE CASCADE, in the one statement.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn, Connection

# A workspace member counts while the user is still a member of the organization.
_MEMBER_COUNT = """SELECT count(*) FROM workspace_members wm JOIN memberships ms
                     ON ms.user_id = wm.user_id AND ms.organization_id = w.organization_id
                  WHERE wm.workspace_id = w.id"""

_SELECT = f"""SELECT w.id, w.name, w.description, w.color, w.icon, w.visibility, w.archived_at, w.created_at,
                     w.updated_at,
                     (SELECT count(*) FROM projects p WHERE p.workspace_id = w.id) AS project_count,
                     ({_MEMBER_COUNT}) AS member_count
                FROM workspaces w"""

# Columns a caller may change, by input field name.
UPDATABLE = {"name": "name", "description": "description", "color": "color", "icon": "icon",
             "visibility": "visibility"}


async def workspace(conn: Conn, org_id: str, workspace_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"{_SELECT} WHERE w.id = $1 AND w.organization_id = $2", workspace_id, org_id)


async def list_workspaces(conn: Conn, org_id: str, user_id: str, limit: int, *, see_all: bool, see_open: bool,
                          search: str | None, include_archived: bool,
                          after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    """Workspaces newest first that the user sees: all (`see_all`), the open ones (`see_open`) and, in
    any case, those the user is a member of."""
    args: list[Any] = [org_id, user_id, see_all, see_open]

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    conditions = ["w.organization_id = $1",
                  """($3 OR ($4 AND w.visibility = 'open')
                      OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = $2))"""]
    if not include_archived:
        conditions.append("w.archived_at IS NULL")
    if search:
        escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        conditions.append(f"w.name ILIKE {arg('%' + escaped + '%')}")
    if after:
        conditions.append(f"(w.created_at, w.id) < ({arg(after[0])}, {arg(after[1])})")
    return await conn.fetch(f"{_SELECT} WHERE {' AND '.join(conditions)} "
                            f"ORDER BY w.created_at DESC, w.id DESC LIMIT {arg(limit)}", *args)


async def count_workspaces(conn: Conn, org_id: str) -> int:
    count: int = await conn.fetchval("SELECT count(*) FROM workspaces WHERE organization_id = $1", org_id)
    return count


async def insert_workspace(conn: Conn, workspace_id: str, org_id: str, *, name: str, description: str | None,
                           color: str, icon: str | None, visibility: str, created_by: str) -> None:
    await conn.execute(
        """INSERT INTO workspaces (id, organization_id, name, description, color, icon, visibility, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)""",
        workspace_id, org_id, name, description, color, icon, visibility, created_by)


async def update_workspace(conn: Conn, org_id: str, workspace_id: str, fields: dict[str, Any]) -> None:
    """Set the given fields (input names, see UPDATABLE) and bump `updated_at`."""
    columns = [(UPDATABLE[name], value) for name, value in fields.items()]
    assignments = [f"{column} = ${index}" for index, (column, _) in enumerate(columns, start=3)]
    assignments.append("updated_at = clock_timestamp()")
    await conn.execute(f"UPDATE workspaces SET {', '.join(assignments)} WHERE id = $1 AND organization_id = $2",
                       workspace_id, org_id, *[value for _, value in columns])


async def set_archived(conn: Conn, org_id: str, workspace_id: str, archived_at: datetime | None) -> None:
    await conn.execute(
        """UPDATE workspaces SET archived_at = $3, updated_at = clock_timestamp()
            WHERE id = $1 AND organization_id = $2""", workspace_id, org_id, archived_at)


async def delete_workspace(conn: Conn, org_id: str, workspace_id: str) -> None:
    await conn.execute("DELETE FROM workspaces WHERE id = $1 AND organization_id = $2", workspace_id, org_id)


async def lock_workspace(conn: Connection, org_id: str, workspace_id: str) -> bool:
    """Lock the workspace row until commit, so that no project is added while it is being deleted."""
    return bool(await conn.fetchval(
        "SELECT true FROM workspaces WHERE id = $1 AND organization_id = $2 FOR UPDATE", workspace_id, org_id))


async def members(conn: Conn, org_id: str, workspace_id: str) -> list[asyncpg.Record]:
    """The workspace's members who are still members of the organization, in the order they were added."""
    return await conn.fetch(
        """SELECT wm.user_id, u.name, wm.role FROM workspace_members wm
             JOIN workspaces w ON w.id = wm.workspace_id
             JOIN memberships ms ON ms.user_id = wm.user_id AND ms.organization_id = w.organization_id
             JOIN users u ON u.id = wm.user_id
            WHERE w.id = $1 AND w.organization_id = $2
            ORDER BY wm.added_at, wm.user_id""", workspace_id, org_id)


async def upsert_member(conn: Conn, workspace_id: str, user_id: str, role: str) -> str | None:
    """Add the user with `role`, or change the role of a present member; returns the previous role."""
    previous: str | None = await conn.fetchval(
        "SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE",
        workspace_id, user_id)
    await conn.execute(
        """INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)
           ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role""",
        workspace_id, user_id, role)
    return previous


async def remove_member(conn: Conn, workspace_id: str, user_id: str) -> bool:
    removed = await conn.fetchval(
        "DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 RETURNING true",
        workspace_id, user_id)
    return bool(removed)
