"""Projects and `boards.list`: a service of plain transactions. Access follows the
workspace (404 when the caller may not see it); guests read only.

Creating a project emits `project.created` to the organization's stream; deleting one deletes its boards
(and their groups, columns, items and comments) by the schema's cascade, emits `project.deleted` there and
`board.deleted` to each board's own stream, and then evicts the boards' actors so that none keeps serving
a board that no longer exists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import asyncpg
import structlog

from actors.approvals.intake import blocks_boards_deletion
from actors.kernel.access import forget_board_access, require_project_access, require_workspace_access
from actors.kernel.events import board_stream, org_stream
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.partial_update import given_fields
from actors.kernel.write import UnitOfWork
from protocol import projects as spec
from protocol.caller import Caller
from protocol.errors import NotFound
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from storage import projects as repo

procedures = Implementations()

log = structlog.get_logger(__name__)


def project_view(row: asyncpg.Record) -> dict[str, Any]:
    return {"id": row["id"], "workspaceId": row["workspace_id"], "name": row["name"],
            "description": row["description"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}


def board_summary_view(row: asyncpg.Record) -> dict[str, Any]:
    """A board as lists show it: without groups and columns."""
    return {"id": row["id"], "name": row["name"], "projectId": row["project_id"],
            "defaultView": row["default_view"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}


def emit_deleted(uow: UnitOfWork, projects: Sequence[asyncpg.Record], boards: Sequence[asyncpg.Record]) -> None:
    """`board.deleted` on each board's stream, then `project.deleted` on the organization's stream."""
    for board in boards:
        uow.emit(board_stream(board["id"]), "board.deleted",
                 {"board": {"id": board["id"], "name": board["name"], "projectId": board["project_id"]}})
    for project in projects:
        uow.emit(org_stream(uow.org_id), "project.deleted", {"project": project_view(project)})


async def board_removed(node: Node, board_ids: Sequence[str]) -> None:
    """After boards were deleted outside their actors: deactivate those actors on whichever node holds them
    and drop the cached access answers, so the next call finds no board."""
    forget_board_access(node)
    if not board_ids:
        return
    # Imported here: nothing else in the plain services depends on the board actor's modules.
    from actors.board.actor import BoardActor

    # All at once, and a failure (the owner not answering in time, Redis away) does not fail the delete, which
    # is committed: logged, and the stale activation goes when it is next unloaded (its board's rows are gone,
    # so it may answer reads from memory until then, not write).
    outcomes = await asyncio.gather(*(node.actors.evict(BoardActor, board_id) for board_id in board_ids),
                                    return_exceptions=True)
    for board_id, outcome in zip(board_ids, outcomes, strict=True):
        if isinstance(outcome, Exception):
            log.warning("board.evict_failed", board=board_id, error=repr(outcome))


@procedures.implement(spec.LIST)
async def list_projects(node: Node, caller: Caller, data: spec.ListProjectsInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    async with node.pool.acquire() as conn:
        await require_workspace_access(conn, caller, data.workspaceId)
        rows = await repo.list_projects(conn, caller.org_id, data.workspaceId, limit + 1, after)
    return time_page(rows, limit, project_view, "projects")


@procedures.implement(spec.GET)
async def get_project(node: Node, caller: Caller, data: spec.ProjectIdInput) -> dict[str, Any]:
    async with node.pool.acquire() as conn:
        await require_project_access(conn, caller, data.id)
        row = await repo.project(conn, caller.org_id, data.id)
        boards = await repo.list_boards(conn, caller.org_id, [data.id])
    if row is None:
        raise NotFound("project not found")
    return project_view(row) | {"boards": [board_summary_view(board) for board in boards]}


@procedures.implement(spec.CREATE)
async def create_project(node: Node, caller: Caller, data: spec.CreateProjectInput) -> dict[str, Any]:
    # A foreign-key violation: the workspace was deleted between the access check and the insert.
    async with node.write(caller, missing=NotFound("workspace not found")) as uow:
        conn = uow.conn
        await require_workspace_access(conn, caller, data.workspaceId)
        row = await repo.insert_project(conn, new_id(Prefix.PROJECT), caller.org_id, data.workspaceId, name=data.name,
                                        description=data.description, created_by=caller.uid)
        view = project_view(row)
        await uow.activity("project", row["id"], "project.created",
                           {"name": data.name, "workspaceId": data.workspaceId})
        uow.emit(org_stream(caller.org_id), "project.created", {"project": view})
    return view


@procedures.implement(spec.UPDATE)
async def update_project(node: Node, caller: Caller, data: spec.UpdateProjectInput) -> dict[str, Any]:
    fields = given_fields(data, repo.UPDATABLE, clearable=("description",))
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_project_access(conn, caller, data.id)
        before = await repo.lock_project(conn, caller.org_id, data.id)
        if before is None:
            raise NotFound("project not found")
        changes = {name: {"old": before[name], "new": value} for name, value in fields.items()
                   if before[name] != value}
        if not changes:
            return project_view(before)
        row = await repo.update_project(conn, caller.org_id, data.id, {name: fields[name] for name in changes})
        await uow.activity("project", data.id, "project.updated",
                           {"changes": changes})
    return project_view(row)


@procedures.implement(spec.DELETE)
async def delete_project(node: Node, caller: Caller, data: spec.ProjectIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        await require_project_access(conn, caller, data.id)
        project = await repo.lock_project(conn, caller.org_id, data.id)
        if project is None:
            raise NotFound("project not found")
        boards = await repo.list_boards(conn, caller.org_id, [data.id])
        await blocks_boards_deletion(conn, caller.org_id, "project", [board["id"] for board in boards])
        await repo.delete_project(conn, caller.org_id, data.id)
        emit_deleted(uow, [project], boards)
        await uow.activity("project", data.id, "project.deleted",
                           {"name": project["name"], "workspaceId": project["workspace_id"],
                            "boardIds": [board["id"] for board in boards]})
    await board_removed(node, [board["id"] for board in boards])
    return {"success": True, "id": data.id}


@procedures.implement(spec.BOARDS_LIST)
async def list_boards(node: Node, caller: Caller, data: spec.ListBoardsInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    async with node.pool.acquire() as conn:
        await require_project_access(conn, caller, data.projectId)
        rows = await repo.list_boards(conn, caller.org_id, [data.projectId], limit + 1, after)
    return time_page(rows, limit, board_summary_view, "boards")
