"""Board, group and column procedures: each is routed to the board's actor."""

from __future__ import annotations

from typing import Any

from actors.approvals.intake import blocks_boards_deletion
from actors.board import board_calls
from actors.board.routing import ask_board, board_for, read_board
from actors.board.values import normalize_config
from actors.kernel.access import require_board_access, require_project_access
from actors.kernel.handlers import Handler, Implementations
from actors.kernel.node import Node
from actors.templates import handlers as templates
from protocol import boards as spec
from protocol.caller import Caller
from protocol.errors import Forbidden
from protocol.plans import plan
from protocol.templates import Overrides, TemplateColumn, TemplateGroup

procedures = Implementations()


@procedures.implement(spec.CREATE)
async def create_board(node: Node, caller: Caller, data: spec.CreateBoardInput) -> Any:
    if data.templateId is None:
        return await board_calls.create_board(node, caller, data)
    async with node.pool.acquire() as conn:
        await require_project_access(conn, caller, data.projectId)
    # The template's structure, with the groups and columns given here in place of the template's.
    if caller.organization is None or "templates" not in plan(caller.organization.plan).features:
        raise Forbidden("the organization's plan does not include templates")
    for index, column in enumerate(data.columns or ()):  # named as this input names them
        normalize_config(column.type, column.config, field=f"columns.{index}.config")
    overrides = None
    if data.groups is not None or data.columns is not None:
        overrides = Overrides(groups=_keyed_groups(data.groups), columns=_keyed_columns(data.columns))
    return await templates.apply_template(node, caller, data.templateId, project_id=data.projectId,
                                          name=data.name, overrides=overrides, field="templateId",
                                          overrides_field="templateId")


def _keyed_groups(groups: list[spec.NewGroup] | None) -> list[TemplateGroup] | None:
    return None if groups is None else [TemplateGroup(key=f"grp_given_{n}", name=g.name, color=g.color)
                                        for n, g in enumerate(groups)]


def _keyed_columns(columns: list[spec.NewColumn] | None) -> list[TemplateColumn] | None:
    return None if columns is None else [TemplateColumn(key=f"col_given_{n}", name=c.name, type=c.type,
                                                        config=c.config) for n, c in enumerate(columns)]


def _by_board(procedure: Any, *, members: bool = False) -> Handler:
    @procedures.implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = data.boardId if hasattr(data, "boardId") else data.id
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)
    return handler


def _read_board(procedure: Any) -> Handler:
    @procedures.implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = data.boardId if hasattr(data, "boardId") else data.id
        return await read_board(node, caller, board_id, procedure.name, data)
    return handler


def _by_row(procedure: Any, what: str, *, members: bool = False) -> Handler:
    @procedures.implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = await board_for(node, caller, data.id, what)
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)
    return handler


@procedures.implement(spec.DELETE)
async def delete_board(node: Node, caller: Caller, data: spec.BoardIdInput) -> Any:
    # Before the actor: a form on the board with signed (GxP) decisions keeps it (a clear 409).
    await require_board_access(node, caller, data.id)
    await blocks_boards_deletion(node.pool, caller.org_id, "board", [data.id])
    return await ask_board(node, caller, data.id, spec.DELETE.name, data)


for _procedure in (spec.UPDATE, spec.GROUPS_CREATE, spec.GROUPS_REORDER, spec.COLUMNS_REORDER):
    _by_board(_procedure)
procedures.implement(spec.GET)(board_calls.get_board)
_read_board(spec.COLUMNS_LIST)
_by_board(spec.COLUMNS_CREATE, members=True)
for _procedure in (spec.GROUPS_UPDATE, spec.GROUPS_DELETE):
    _by_row(_procedure, "group")
procedures.implement(spec.COLUMNS_UPDATE)(board_calls.update_column)
for _procedure in (spec.COLUMNS_DELETE, spec.COLUMNS_DUPLICATE):
    _by_row(_procedure, "column")
