"""The board procedures another domain calls by name (a template builds its board with them): each goes to the
board's actor exactly as the procedure does when a client calls it. `board_handlers.py` registers these same
functions for their procedures, so the two paths cannot drift apart."""

from __future__ import annotations

from typing import Any

from actors.board.routing import ask_board, board_for, read_board
from actors.kernel.access import require_project_access
from actors.kernel.node import Node
from protocol import boards as spec
from protocol.caller import Caller
from protocol.ids import Prefix, new_id


async def create_board(node: Node, caller: Caller, data: spec.CreateBoardInput) -> Any:
    """A board with the groups and columns given (or the defaults); the template path is `boards.create`'s own."""
    async with node.pool.acquire() as conn:
        await require_project_access(conn, caller, data.projectId)
    return await ask_board(node, caller, new_id(Prefix.BOARD), spec.CREATE.name, data, with_members=True,
                           check_access=False)


async def get_board(node: Node, caller: Caller, data: spec.BoardIdInput) -> Any:
    return await read_board(node, caller, data.id, spec.GET.name, data)


async def update_column(node: Node, caller: Caller, data: spec.UpdateColumnInput) -> Any:
    board_id = await board_for(node, caller, data.id, "column")
    return await ask_board(node, caller, board_id, spec.COLUMNS_UPDATE.name, data, with_members=True)
