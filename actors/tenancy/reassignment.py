"""Moving a removed member's items to another member across every board of the organization."""

from __future__ import annotations

from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.board.people import REASSIGN_PEOPLE, Reassign
from actors.kernel.node import Node
from protocol.caller import Caller
from storage import boards as board_repo


async def reassign_items(node: Node, caller: Caller, from_user: str, to_user: str) -> int:
    """Tell each board naming `from_user` to put `to_user` in their place; returns items changed."""
    changed = 0
    for board_id in await board_repo.boards_mentioning(node.pool, caller.org_id, from_user):
        command = Command(REASSIGN_PEOPLE, caller, Reassign(from_user, to_user), node.clock.now())
        reply = await node.actors.ask(BoardActor, board_id, caller.org_id, command)
        changed += reply["reassigned"]
    return changed
