"""Who may see what inside an organization. Owners and admins see every workspace; members see open
workspaces and the closed ones they belong to; guests see only the workspaces they belong to. A board,
project or workspace the caller may not see is answered 404, as if it did not exist (no existence leak).
A workspace is administered by the organization's owner and admins and its own members of role admin.

A display link (docs/displays.md) sees its own board and no other, whatever its creator may see: every by-board and
by-id check of the procedures it may call comes through `sees_board`.

Answers are cached per node (`node.access`) for a few seconds: board access is checked on every board call, and a
membership change shows within that time."""

from __future__ import annotations

import asyncpg

from actors.kernel.invalidation import BoardAccessChanged
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import Forbidden, NotFound
from protocol.registry import Role
from storage import access as repo
from storage.connection import Conn


def may_see_workspace(role: Role | None, visibility: str, is_member: bool) -> bool:
    if role is None:
        return False
    if role >= Role.ADMIN or is_member:
        return True
    return role >= Role.MEMBER and visibility == "open"


async def sees_workspace(conn: Conn, caller: Caller, workspace: asyncpg.Record) -> bool:
    """May the caller see this workspace (a row with `id` and `visibility`)?"""
    return may_see_workspace(
        caller.role, workspace["visibility"],
        caller.role is not None and caller.role < Role.ADMIN
        and await repo.is_workspace_member(conn, workspace["id"], caller.uid))


async def require_workspace_access(conn: Conn, caller: Caller, workspace_id: str) -> None:
    workspace = await repo.workspace_visibility(conn, caller.org_id, workspace_id)
    if workspace is None or not await sees_workspace(conn, caller, workspace):
        raise NotFound("workspace not found")


async def require_workspace_admin(conn: Conn, caller: Caller, workspace_id: str) -> None:
    """Workspace admins are the organization's owner and admins and the workspace's members with role
    `admin`; anyone else who may see the workspace gets 403, the rest 404."""
    await require_workspace_access(conn, caller, workspace_id)
    if caller.role is not None and caller.role >= Role.ADMIN:
        return
    if await repo.workspace_role(conn, workspace_id, caller.uid) != "admin":
        raise Forbidden("needs the workspace admin role")


async def require_project_access(conn: Conn, caller: Caller, project_id: str) -> None:
    workspace = await repo.project_workspace(conn, caller.org_id, project_id)
    if workspace is None or not await sees_workspace(conn, caller, workspace):
        raise NotFound("project not found")


async def sees_board(node: Node, caller: Caller, board_id: str) -> bool:
    """Whether the board is in the caller's organization, in a workspace the caller may see (a display: its own
    board, while its creator may see it)."""
    if caller.board_id is not None and board_id != caller.board_id:
        return False
    async def load() -> bool:
        async with node.pool.acquire() as conn:
            workspace = await repo.board_workspace(conn, caller.org_id, board_id)
            return workspace is not None and await sees_workspace(conn, caller, workspace)

    return await node.access.get((caller.org_id, caller.uid, board_id), load)


async def require_board_access(node: Node, caller: Caller, board_id: str) -> None:
    if not await sees_board(node, caller, board_id):
        raise NotFound("board not found")


async def on_visible_board(node: Node, caller: Caller, row: asyncpg.Record | None, missing: str) -> asyncpg.Record:
    """`row` (anything kept on a board: it has a `board_id`) when there is one and it is on a board the caller may
    see; else NotFound(missing), the same answer for both, as a board one may not see does not exist for one."""
    if row is None or not await sees_board(node, caller, row["board_id"]):
        raise NotFound(missing)
    return row


def forget_board_access(node: Node, board_id: str | None = None) -> None:
    """Drop cached answers (all, or one board's) after a change made on this node."""
    node.invalidate(BoardAccessChanged(board_id))
