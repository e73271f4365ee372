"""What a user may see: the workspace a board or project lives in, its visibility and its members."""

from __future__ import annotations

import asyncpg

from storage.connection import Conn


async def board_workspace(conn: Conn, org_id: str, board_id: str) -> asyncpg.Record | None:
    """(workspace id, visibility) of a board of the organization, or None."""
    return await conn.fetchrow(
        """SELECT w.id, w.visibility FROM boards b JOIN projects p ON p.id = b.project_id
             JOIN workspaces w ON w.id = p.workspace_id
            WHERE b.id = $1 AND b.organization_id = $2""", board_id, org_id)


async def is_workspace_member(conn: Conn, workspace_id: str, user_id: str) -> bool:
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2)",
        workspace_id, user_id))


async def workspace_visibility(conn: Conn, org_id: str, workspace_id: str) -> asyncpg.Record | None:
    """(id, visibility) of a workspace of the organization, or None."""
    return await conn.fetchrow("SELECT id, visibility FROM workspaces WHERE id = $1 AND organization_id = $2",
                               workspace_id, org_id)


async def project_workspace(conn: Conn, org_id: str, project_id: str) -> asyncpg.Record | None:
    """(workspace id, visibility) of a project of the organization, or None."""
    return await conn.fetchrow(
        """SELECT w.id, w.visibility FROM projects p JOIN workspaces w ON w.id = p.workspace_id
            WHERE p.id = $1 AND p.organization_id = $2""", project_id, org_id)


async def workspace_role(conn: Conn, workspace_id: str, user_id: str) -> str | None:
    """The user's role in the workspace (`member` or `admin`), None when not a member."""
    role: str | None = await conn.fetchval(
        "SELECT role FROM workspace_members WHERE workspace_id = $1 AND user_id = $2", workspace_id, user_id)
    return role


async def board_of(conn: Conn, org_id: str, table: str, row_id: str) -> str | None:
    """The board a group, column, item or comment belongs to, within the organization."""
    scoped = {"board_groups": "JOIN boards b ON b.id = t.board_id AND b.organization_id = $2",
              "board_columns": "JOIN boards b ON b.id = t.board_id AND b.organization_id = $2",
              "items": "WHERE t.organization_id = $2", "comments": "WHERE t.organization_id = $2"}[table]
    where = "AND" if scoped.startswith("WHERE") else "WHERE"
    board_id: str | None = await conn.fetchval(
        f"SELECT t.board_id FROM {table} t {scoped} {where} t.id = $1", row_id, org_id)
    return board_id


async def member_ids(conn: Conn, org_id: str) -> list[str]:
    return [r["user_id"] for r in await conn.fetch(
        "SELECT user_id FROM memberships WHERE organization_id = $1 AND status = 'active'", org_id)]
