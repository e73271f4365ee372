"""Workspaces and their members: a service of plain transactions (docs/architecture.md, "Actors and services").

Who: any member lists and reads the workspaces they may see (actors/kernel/access.py); organization
admins and owners create and delete; workspace admins (organization admins and owners, and workspace
members of role admin) change settings, archive, restore and manage members. Deleting a workspace
deletes every project, board and item in it, emitting `project.deleted` and `board.deleted` for each.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from actors.approvals.intake import blocks_boards_deletion
from actors.kernel.access import (
    forget_board_access,
    may_see_workspace,
    require_workspace_access,
    require_workspace_admin,
)
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.partial_update import given_fields
from actors.tenancy.projects import board_removed, emit_deleted
from protocol import workspaces as spec
from protocol.caller import Caller
from protocol.errors import FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from storage import organizations as org_repo
from storage import projects as project_repo
from storage import workspaces as repo

procedures = Implementations()

# Ten colours that stay apart in a sidebar; the n-th workspace of an organization takes the (n mod 10)-th,
# so workspaces created one after another never share a colour.
PALETTE = ("#579BFC", "#A25DDC", "#00C875", "#FDAB3D", "#E2445C",
           "#037F4C", "#FF642E", "#66CCFF", "#784BD1", "#FF158A")


def workspace_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "description": row["description"], "color": row["color"],
            "icon": row["icon"], "visibility": row["visibility"], "projectCount": row["project_count"],
            "memberCount": row["member_count"], "archivedAt": iso(row["archived_at"]),
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


async def _workspace(conn: asyncpg.Connection, caller: Caller, workspace_id: str) -> asyncpg.Record:
    row = await repo.workspace(conn, caller.org_id, workspace_id)
    if row is None:  # deleted since the access check
        raise NotFound("workspace not found")
    return row


@procedures.implement(spec.LIST)
async def list_workspaces(node: Node, caller: Caller, data: spec.ListWorkspacesInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    # The visibility rule itself, asked for a workspace the caller is not a member of; membership is
    # checked by the query, since `may_see_workspace` grants every member access.
    rows = await repo.list_workspaces(
        node.pool, caller.org_id, caller.uid, limit + 1,
        see_all=may_see_workspace(caller.role, "closed", is_member=False),
        see_open=may_see_workspace(caller.role, "open", is_member=False),
        search=data.search, include_archived=data.includeArchived, after=after)
    return time_page(rows, limit, workspace_view, "workspaces")


@procedures.implement(spec.GET)
async def get_workspace(node: Node, caller: Caller, data: spec.WorkspaceIdInput) -> dict[str, Any]:
    async with node.pool.acquire() as conn:
        await require_workspace_access(conn, caller, data.id)
        row = await _workspace(conn, caller, data.id)
        members = await repo.members(conn, caller.org_id, data.id)
        projects = await project_repo.list_projects(conn, caller.org_id, data.id)
    return workspace_view(row) | {
        "members": [{"userId": m["user_id"], "name": m["name"], "role": m["role"]} for m in members],
        "projects": [{"id": p["id"], "name": p["name"]} for p in projects]}


@procedures.implement(spec.CREATE)
async def create_workspace(node: Node, caller: Caller, data: spec.CreateWorkspaceInput) -> dict[str, Any]:
    workspace_id = new_id(Prefix.WORKSPACE)
    async with node.write(caller) as uow:
        conn = uow.conn
        color = data.color or PALETTE[await repo.count_workspaces(conn, caller.org_id) % len(PALETTE)]
        await repo.insert_workspace(conn, workspace_id, caller.org_id, name=data.name,
                                    description=data.description, color=color, icon=data.icon,
                                    visibility=data.visibility, created_by=caller.uid)
        await repo.upsert_member(conn, workspace_id, caller.uid, "admin")
        await uow.activity("workspace", workspace_id, "workspace.created",
                           {"name": data.name, "visibility": data.visibility})
        row = await _workspace(conn, caller, workspace_id)
    return workspace_view(row)


@procedures.implement(spec.UPDATE)
async def update_workspace(node: Node, caller: Caller, data: spec.UpdateWorkspaceInput) -> dict[str, Any]:
    fields = given_fields(data, repo.UPDATABLE, clearable=("description", "icon"))
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_workspace_admin(conn, caller, data.id)
        before = await _workspace(conn, caller, data.id)
        changes = {name: {"old": before[name], "new": value} for name, value in fields.items()
                   if before[name] != value}
        if not changes:
            return workspace_view(before)
        await repo.update_workspace(conn, caller.org_id, data.id, {name: fields[name] for name in changes})
        await uow.activity("workspace", data.id, "workspace.updated",
                           {"changes": changes})
        row = await _workspace(conn, caller, data.id)
    if "visibility" in changes:
        forget_board_access(node)
    return workspace_view(row)


@procedures.implement(spec.DELETE)
async def delete_workspace(node: Node, caller: Caller, data: spec.WorkspaceIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_workspace_access(conn, caller, data.id)
        # Lock the workspace, then its projects: no project or board is added while the lists are read.
        if not await repo.lock_workspace(conn, caller.org_id, data.id):
            raise NotFound("workspace not found")
        workspace = await _workspace(conn, caller, data.id)
        projects = await project_repo.list_projects(conn, caller.org_id, data.id, lock=True)
        boards = await project_repo.list_boards(conn, caller.org_id, [p["id"] for p in projects])
        await blocks_boards_deletion(conn, caller.org_id, "workspace", [board["id"] for board in boards])
        await repo.delete_workspace(conn, caller.org_id, data.id)
        emit_deleted(uow, projects, boards)
        await uow.activity("workspace", data.id, "workspace.deleted",
                           {"name": workspace["name"], "projectIds": [p["id"] for p in projects],
                            "boardIds": [b["id"] for b in boards]})
    await board_removed(node, [board["id"] for board in boards])
    return {"success": True, "id": data.id}


async def _set_archived(node: Node, caller: Caller, workspace_id: str, archive: bool) -> dict[str, Any]:
    """Archive or restore; asking for the state the workspace is already in changes nothing."""
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_workspace_admin(conn, caller, workspace_id)
        before = await _workspace(conn, caller, workspace_id)
        if (before["archived_at"] is not None) == archive:
            return workspace_view(before)
        await repo.set_archived(conn, caller.org_id, workspace_id, node.clock.now() if archive else None)
        await uow.activity("workspace", workspace_id,
                           "workspace.archived" if archive else "workspace.restored", {"name": before["name"]})
        row = await _workspace(conn, caller, workspace_id)
    return workspace_view(row)


@procedures.implement(spec.ARCHIVE)
async def archive_workspace(node: Node, caller: Caller, data: spec.WorkspaceIdInput) -> dict[str, Any]:
    return await _set_archived(node, caller, data.id, archive=True)


@procedures.implement(spec.RESTORE)
async def restore_workspace(node: Node, caller: Caller, data: spec.WorkspaceIdInput) -> dict[str, Any]:
    return await _set_archived(node, caller, data.id, archive=False)


@procedures.implement(spec.MEMBERS_ADD)
async def add_member(node: Node, caller: Caller, data: spec.AddWorkspaceMemberInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_workspace_admin(conn, caller, data.workspaceId)
        user = await org_repo.member(conn, caller.org_id, data.userId)
        if user is None or user["status"] != "active":
            raise NotFound("user not found", details=[FieldError("userId", "not a member of the organization")])
        if user["role"] == "guest" and data.role == "admin":
            # Guests read only; a workspace admin role would promise them changes they cannot make.
            raise ValidationFailed("a guest can only be a workspace member",
                                   details=[FieldError("role", "guests can only be members")])
        previous = await repo.upsert_member(conn, data.workspaceId, data.userId, data.role)
        if previous != data.role:
            await uow.activity("workspace", data.workspaceId,
                               "workspace.member_added" if previous is None else "workspace.member_role_changed",
                               {"userId": data.userId, "role": data.role, "previousRole": previous})
    forget_board_access(node)
    return {"workspaceId": data.workspaceId, "userId": data.userId, "name": user["name"], "role": data.role}


@procedures.implement(spec.MEMBERS_REMOVE)
async def remove_member(node: Node, caller: Caller, data: spec.RemoveWorkspaceMemberInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_workspace_admin(conn, caller, data.workspaceId)
        if not await repo.remove_member(conn, data.workspaceId, data.userId):
            raise NotFound("not a member of this workspace",
                           details=[FieldError("userId", "not a member of this workspace")])
        await uow.activity("workspace", data.workspaceId,
                           "workspace.member_removed", {"userId": data.userId})
    forget_board_access(node)
    return {"success": True, "workspaceId": data.workspaceId, "userId": data.userId}
