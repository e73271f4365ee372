"""Item procedures (domain 4.1): each is routed to the actor of the item's board. A move to another board
is committed by the source board, which then has the target board's actor reload."""

from __future__ import annotations

from typing import Any

from actors.board.actor import BoardActor
from actors.board.items import MoveAcross, MoveTarget
from actors.board.routing import ask_board, board_for, read_board, remember_board
from actors.kernel.access import require_board_access
from actors.kernel.handlers import implement
from actors.kernel.node import Node
from protocol import items as spec
from protocol.caller import Caller
from protocol.errors import FieldError, NotFound
from storage import boards as board_repo


@implement(spec.LIST)
async def list_items(node: Node, caller: Caller, data: spec.ListItemsInput) -> Any:
    return await read_board(node, caller, data.boardId, spec.LIST.name, data)


@implement(spec.CREATE)
async def create_item(node: Node, caller: Caller, data: spec.CreateItemInput) -> Any:
    item = await ask_board(node, caller, data.boardId, spec.CREATE.name, data, with_members=True)
    remember_board(item["id"], data.boardId)
    return item


def _by_item(procedure: Any, field: str = "id", *, members: bool = False) -> None:
    @implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = await board_for(node, caller, getattr(data, field))
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)


for _procedure in (spec.UPDATE, spec.DELETE, spec.RESTORE, spec.ARCHIVE):
    _by_item(_procedure)


@implement(spec.GET)
async def get_item(node: Node, caller: Caller, data: spec.ItemIdInput) -> Any:
    return await read_board(node, caller, await board_for(node, caller, data.id), spec.GET.name, data)
_by_item(spec.SET_VALUE, "itemId", members=True)


@implement(spec.REORDER)
async def reorder_items(node: Node, caller: Caller, data: spec.ReorderItemsInput) -> Any:
    board_id = await board_for(node, caller, data.groupId, "group")
    return await ask_board(node, caller, board_id, spec.REORDER.name, data)


async def _board_of_all(node: Node, caller: Caller, item_ids: list[str]) -> str:
    """Bulk operations act on one board: the board of the first item (others are 404 on that board)."""
    return await board_for(node, caller, item_ids[0])


@implement(spec.BULK_UPDATE)
async def bulk_update(node: Node, caller: Caller, data: spec.BulkUpdateInput) -> Any:
    board_id = await _board_of_all(node, caller, data.itemIds)
    return await ask_board(node, caller, board_id, spec.BULK_UPDATE.name, data, with_members=True)


@implement(spec.BULK_DELETE)
async def bulk_delete(node: Node, caller: Caller, data: spec.BulkDeleteInput) -> Any:
    board_id = await _board_of_all(node, caller, data.itemIds)
    return await ask_board(node, caller, board_id, spec.BULK_DELETE.name, data)


@implement(spec.MOVE)
async def move_item(node: Node, caller: Caller, data: spec.MoveItemInput) -> Any:
    source = await board_for(node, caller, data.id)
    if data.boardId is None or data.boardId == source:
        return await ask_board(node, caller, source, spec.MOVE.name, data)
    await require_board_access(node, caller, data.boardId)
    async with node.pool.acquire() as conn:
        end = await board_repo.group_end(conn, caller.org_id, data.boardId, data.groupId)
        if end is None:
            raise NotFound("group not found", details=[FieldError("groupId", "no such group on the target board")])
        theirs = {(c["name"], c["type"]): c["id"] for c in await board_repo.columns(conn, caller.org_id, data.boardId)}
        ours = await board_repo.columns(conn, caller.org_id, source)
    column_map = {c["id"]: theirs[(c["name"], c["type"])] for c in ours if (c["name"], c["type"]) in theirs}
    target = MoveTarget(data.boardId, data.groupId, float(end), column_map)
    command = MoveAcross(id=data.id, groupId=data.groupId, position=data.position, boardId=data.boardId,
                         expectedVersion=data.expectedVersion, target=target)
    moved = await ask_board(node, caller, source, spec.MOVE.name, command)
    for moved_id in moved["movedIds"]:
        remember_board(moved_id, data.boardId)
    assert node.actors is not None
    # The target board learns of the item by reloading from the database, where the move is committed.
    await node.actors.evict(BoardActor, data.boardId)
    return moved
