"""The trash: items deleted more than 30 days ago leave it for good (`board.purgeTrash`, sent by the
trash sweeper), with their sub-items' rows and their comments; each emits `item.deleted` permanent."""

from __future__ import annotations

from datetime import timedelta

from actors.board.changes import BoardChange
from actors.board.commands import Command, Outcome, decides
from actors.board.items import TRASH_DAYS, webhook_item
from actors.board.state import BoardState, CommentRow, ItemRow
from actors.runtime.actor import Decision

PURGE_TRASH = "board.purgeTrash"


@decides(PURGE_TRASH, None)
def purge_trash(state: BoardState, command: Command) -> Decision[BoardChange]:
    cutoff = command.now - timedelta(days=TRASH_DAYS)
    expired = [i for i in state.items.values() if i.deleted_at is not None and i.deleted_at <= cutoff]
    gone = {i.id for i in expired}
    out = Outcome(command)
    for comment in state.comments.values():
        if comment.item_id in gone:
            out.remove(CommentRow, comment.id)
    for item in expired:
        out.remove(ItemRow, item.id)
        if item.parent_id is None or item.parent_id not in gone:
            out.log("item", item.id, "item.purged", name=item.name)
            out.emit("item.deleted", {"item": webhook_item(state, item), "permanent": True})
    return out.decision({"purged": len(expired)})
