"""Item procedures: each is routed to the actor of the item's board. A move to another board
is two messages: the source board commits the item leaving, then the target board takes it
(docs/decisions.md, "Moving an item to another board")."""

from __future__ import annotations

from typing import Any

import msgspec

from actors.board.items import MOVE_COLUMNS, TAKE_ITEM, MoveAcross, MoveTarget, TakeItem
from actors.board.routing import ask_board, board_for, read_board
from actors.kernel.access import require_board_access
from actors.kernel.handlers import Handler, Implementations
from actors.kernel.invalidation import RowsMoved
from actors.kernel.node import Node
from protocol import items as spec
from protocol.caller import Caller
from protocol.errors import Conflict, FieldError, NotFound
from protocol.pagination import Page
from storage import boards as board_repo

procedures = Implementations()


@procedures.implement(spec.LIST)
async def list_items(node: Node, caller: Caller, data: spec.ListItemsInput) -> Any:
    return Page(**await read_board(node, caller, data.boardId, spec.LIST.name, data))


@procedures.implement(spec.CREATE)
async def create_item(node: Node, caller: Caller, data: spec.CreateItemInput) -> Any:
    item = await ask_board(node, caller, data.boardId, spec.CREATE.name, data, with_members=True)
    node.remember_board(item["id"], data.boardId)
    return item


def _by_item(procedure: Any, field: str = "id", *, members: bool = False) -> Handler:
    @procedures.implement(procedure)
    async def handler(node: Node, caller: Caller, data: Any) -> Any:
        board_id = await board_for(node, caller, getattr(data, field))
        return await ask_board(node, caller, board_id, procedure.name, data, with_members=members)
    return handler


for _procedure in (spec.UPDATE, spec.DELETE, spec.RESTORE):
    _by_item(_procedure)
archive_item = _by_item(spec.ARCHIVE)


@procedures.implement(spec.GET)
async def get_item(node: Node, caller: Caller, data: spec.ItemIdInput) -> Any:
    return await read_board(node, caller, await board_for(node, caller, data.id), spec.GET.name, data,
                            comments_of_item=data.id)


set_value = _by_item(spec.SET_VALUE, "itemId", members=True)


@procedures.implement(spec.REORDER)
async def reorder_items(node: Node, caller: Caller, data: spec.ReorderItemsInput) -> Any:
    board_id = await board_for(node, caller, data.groupId, "group")
    return await ask_board(node, caller, board_id, spec.REORDER.name, data)


async def _board_of_all(node: Node, caller: Caller, item_ids: list[str]) -> str:
    """Bulk operations act on one board: the board of the first item (others are 404 on that board)."""
    return await board_for(node, caller, item_ids[0])


@procedures.implement(spec.BULK_UPDATE)
async def bulk_update(node: Node, caller: Caller, data: spec.BulkUpdateInput) -> Any:
    board_id = await _board_of_all(node, caller, data.itemIds)
    return await ask_board(node, caller, board_id, spec.BULK_UPDATE.name, data, with_members=True)


@procedures.implement(spec.BULK_DELETE)
async def bulk_delete(node: Node, caller: Caller, data: spec.BulkDeleteInput) -> Any:
    board_id = await _board_of_all(node, caller, data.itemIds)
    return await ask_board(node, caller, board_id, spec.BULK_DELETE.name, data)


@procedures.implement(spec.MOVE)
async def move_item(node: Node, caller: Caller, data: spec.MoveItemInput) -> Any:
    source = await board_for(node, caller, data.id)
    if data.boardId is None or data.boardId == source:
        return await ask_board(node, caller, source, spec.MOVE.name, _across(data))
    await require_board_access(node, caller, data.boardId)
    pending = await _pending_move(node, caller, data.id, source)
    if pending is None:
        target = MoveTarget(data.boardId, data.groupId, await _column_map(node, caller, source, data))
        try:
            await ask_board(node, caller, source, spec.MOVE.name, _across(data, target))
            pending = data.boardId
        except NotFound:
            # A concurrent move of this item took it out first: this call completes (or confirms) that one.
            pending = await _pending_move(node, caller, data.id, source)
            if pending is None:
                raise
    if pending != data.boardId:
        raise Conflict("the item is already moving to another board; retry once it arrived",
                       details=[FieldError("boardId", "the item is moving to another board")])
    return await take_moved_item(node, caller, source, data.boardId, data.id, data.position)


def _across(data: spec.MoveItemInput, target: MoveTarget | None = None) -> MoveAcross:
    return MoveAcross(**msgspec.structs.asdict(data), target=target)


async def _pending_move(node: Node, caller: Caller, item_id: str, source: str) -> str | None:
    """The board a move of the item is under way to, or that already took it; None while it is on `source`."""
    place = await board_repo.item_place(node.pool, caller.org_id, item_id)
    if place is None:
        return None
    if place["moving_to"] is not None:
        return str(place["moving_to"])
    return str(place["board_id"]) if place["board_id"] != source else None


async def take_moved_item(node: Node, caller: Caller, source: str, target: str, item_id: str,
                          position: float | None = None) -> Any:
    """Step 2 of a cross-board move (after the source committed step 1): the target board takes the item.
    Idempotent, so a retry, a concurrent move of the same item or the sweeper may all call it."""
    taken = await ask_board(node, caller, target, TAKE_ITEM, TakeItem(item_id, source, position),
                            check_access=False)
    moved = [taken["id"], *taken["subItemIds"]]
    moved_ids = [*moved, *await board_repo.comment_ids(node.pool, caller.org_id, moved)]
    node.invalidate(RowsMoved(tuple(moved_ids)))  # other nodes may still route them to the source
    for moved_id in moved_ids:
        node.remember_board(moved_id, target)
    return taken


async def _column_map(node: Node, caller: Caller, source: str, data: spec.MoveItemInput) -> dict[str, str]:
    """Source column id -> the target's column of the same name and type, read from both boards' committed
    state; the target group must exist."""
    assert data.boardId is not None
    theirs = await read_board(node, caller, data.boardId, MOVE_COLUMNS, data.groupId, check_access=False)
    ours = await read_board(node, caller, source, MOVE_COLUMNS, None, check_access=False)
    target_columns = {(c["name"], c["type"]): c["id"] for c in theirs}
    return {c["id"]: target_columns[(c["name"], c["type"])] for c in ours if (c["name"], c["type"]) in target_columns}
