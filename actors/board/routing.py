"""From a procedure call to the board actor that owns its target: find the board (by board id, or by the
id of a group, column, item or comment), check the caller may see it, and ask the actor."""

from __future__ import annotations

from typing import Any

from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.kernel.access import require_board_access
from actors.kernel.membership_cache import org_members
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import NotFound
from storage import access as repo

# Which table an id prefix lives in; the spec's prefixes (protocol/ids.py).
_TABLES = {"grp": "board_groups", "col": "board_columns", "itm": "items", "cmt": "comments"}
async def board_for(node: Node, caller: Caller, row_id: str, what: str = "item") -> str:
    """The board of a group, column, item or comment id; NotFound when it is not in the organization."""
    # Rows move between boards only when an item moves; the cache is refreshed by `node.remember_board`.
    board_id = node.board_locations.get(row_id)
    if board_id is None:
        table = _TABLES.get(row_id.split("_", 1)[0])
        board_id = await repo.board_of(node.pool, caller.org_id, table, row_id) if table else None
        if board_id is None:
            raise NotFound(f"{what} not found")
        node.remember_board(row_id, board_id)
    return board_id


async def ask_board(node: Node, caller: Caller, board_id: str, procedure: str, data: Any, *,
                    with_members: bool = False, check_access: bool = True) -> Any:
    if check_access:
        await require_board_access(node, caller, board_id)
    members = await org_members(node, caller.org_id) if with_members else frozenset()
    command = Command(procedure, caller, data, node.clock.now(), members, board_id)
    return await node.actors.ask(BoardActor, board_id, caller.org_id, command)


async def read_board(node: Node, caller: Caller, board_id: str, procedure: str, data: Any, *,
                     comments_of_item: str | None = None, comments_of_comment: str | None = None,
                     check_access: bool = True) -> Any:
    """A pure read of a board (its query decider) from the actor's committed state, outside its mailbox, on
    the node that owns the board; with the comments of one item (named by the item, or by one of its
    comments) read from the database when the reply shows them (memory holds none it was not asked for)."""
    if check_access:
        await require_board_access(node, caller, board_id)
    command = Command(procedure, caller, data, node.clock.now(), frozenset(), board_id, comments_of_item,
                      comments_of_comment)
    return await node.actors.query(BoardActor, board_id, caller.org_id, command)
