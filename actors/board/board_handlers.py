"""Board, group and column procedures: each is routed to the board's actor (domain 4.2)."""

from __future__ import annotations

from typing import Any

from actors.approvals.intake import blocks_boards_deletion
from actors.board.routing import ask_board, board_for, read_board
from actors.kernel.access import require_board_access, require_project_access
from actors.kernel.handlers import implement
from actors.kernel.node import Node
from protocol import boards as spec
from protocol.caller import Caller
from protocol.errors import FieldError, NotFound
from protocol.ids import new_id


@implement(spec.CREATE)
async def create_board(node: Node, caller: Caller, data: spec.CreateBoardInput) -> Any:
    async with node.pool.acquire() as conn:
        await require_project_access(conn, caller, data.projectId)
    if data.templateId is not None:
        # Templates (domain 4.13) are not built yet: no id can name one.
        raise NotFound("template not found", details=[FieldError("templateId", "no such template")])
    return await ask_board(node, caller, new_id("brd"), spec.CREATE.name, data, with_members=True,
                           check_access=False)


def _by_board(procedure: Any, *, members: bool = False) -> None:
    @implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = data.boardId if hasattr(data, "boardId") else data.id
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)


def _read_board(procedure: Any) -> None:
    @implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = data.boardId if hasattr(data, "boardId") else data.id
        return await read_board(node, caller, board_id, procedure.name, data)


def _by_row(procedure: Any, what: str, *, members: bool = False) -> None:
    @implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = await board_for(node, caller, data.id, what)
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)


@implement(spec.DELETE)
async def delete_board(node: Node, caller: Caller, data: spec.BoardIdInput) -> Any:
    # Before the actor: a form on the board with signed (GxP) decisions keeps it (a clear 409).
    await require_board_access(node, caller, data.id)
    await blocks_boards_deletion(node.pool, caller.org_id, "board", [data.id])
    return await ask_board(node, caller, data.id, spec.DELETE.name, data)


for _procedure in (spec.UPDATE, spec.GROUPS_CREATE, spec.GROUPS_REORDER, spec.COLUMNS_REORDER):
    _by_board(_procedure)
for _procedure in (spec.GET, spec.COLUMNS_LIST):
    _read_board(_procedure)
_by_board(spec.COLUMNS_CREATE, members=True)
for _procedure in (spec.GROUPS_UPDATE, spec.GROUPS_DELETE):
    _by_row(_procedure, "group")
_by_row(spec.COLUMNS_UPDATE, "column", members=True)
for _procedure in (spec.COLUMNS_DELETE, spec.COLUMNS_DUPLICATE):
    _by_row(_procedure, "column")
