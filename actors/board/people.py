"""`board.reassignPeople`: a removed member's items move to another member (organizations.members.remove
with `reassignTo`). Sent to each affected board after the removal committed; applying it twice changes
nothing, so a retry after a crash is safe."""

from __future__ import annotations

import msgspec

from actors.board.changes import BoardChange
from actors.board.commands import Command, Outcome, decides
from actors.board.items import webhook_item
from actors.board.state import BoardState
from actors.runtime.actor import Decision

REASSIGN_PEOPLE = "board.reassignPeople"


class Reassign(msgspec.Struct, frozen=True):
    from_user: str
    to_user: str


@decides(REASSIGN_PEOPLE, Reassign)
def reassign_people(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: Reassign = command.data
    people = [c.id for c in state.columns.values() if c.type == "people"]
    out = Outcome(command)
    moved = 0
    for item in state.items.values():
        values, diff = dict(item.values), {}
        for column_id in people:
            current = values.get(column_id)
            if isinstance(current, list) and data.from_user in current:
                new = list(dict.fromkeys(data.to_user if uid == data.from_user else uid for uid in current))
                values[column_id] = new
                diff[column_id] = {"old": current, "new": new}
        if diff:
            after = msgspec.structs.replace(item, values=values, version=item.version + 1, updated_at=command.now)
            out.put(after)
            out.log("item", item.id, "item.updated", changes=diff, reason="member.removed")
            out.emit("item.updated", {"item": webhook_item(state, after), "changes": diff})
            moved += 1
    return out.decision({"reassigned": moved})
