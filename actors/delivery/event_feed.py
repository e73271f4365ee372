"""Reading the event log by stream (`events.list`), and the one access rule for a stream (shared with the
Socket.IO gateway's `subscribe`).

Stream names: `board:<id>` (anyone who may see the board), `org:<organization id>` or just `org` (members
of that organization, guests excluded), `user:<organization id>:<own id>`, `user:<own id>` or just `user`
(the caller's notifications in this organization: one stream per organization, see `user_stream`),
`kpi:<id>` (anyone who may see the KPI's board), `flow:<id>` (anyone who may see the approval flow's form's
board). Streams are read within the caller's organization. A display link (docs/displays.md) reads its board's stream
and no other."""

from __future__ import annotations

from actors.approvals.routing import visible_flow
from actors.kernel.access import require_board_access
from actors.kernel.events import org_stream, user_stream, wire_payload
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kpi.routing import kpi_board
from protocol import events as spec
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, Forbidden, NotFound
from protocol.pagination import Page, decode_seq_cursor, page_limit
from protocol.registry import Role
from storage import events as event_log

procedures = Implementations()


async def stream_of(node: Node, caller: Caller, name: str, field: str = "stream") -> str:
    """The event-log stream `name` designates, if the caller may read it; 404 when it may not see it."""
    kind, _, ident = name.partition(":")
    if caller.board_id is not None and kind != "board":  # a display follows its board's room and no other
        raise NotFound(f"{name} not found")
    if kind == "board" and ident:
        await require_board_access(node, caller, ident)
        return name
    if kind == "kpi" and ident:
        await kpi_board(node, caller, ident)
        return name
    if kind == "flow" and ident:
        await visible_flow(node, caller, ident, deleted=True)
        return name
    if kind == "org" and ident in ("", caller.org_id):
        # Organization events name members and e-mail addresses; guests see only their workspaces.
        if caller.role is None or caller.role < Role.MEMBER:
            raise Forbidden("guests cannot follow organization events")
        return org_stream(caller.org_id)
    if kind == "user" and ident in ("", caller.uid, f"{caller.org_id}:{caller.uid}"):
        return user_stream(caller.org_id, caller.uid)
    if kind in ("org", "user"):
        # Another organization's or user's stream does not exist here.
        raise NotFound(f"{name} not found")
    raise BadRequest(f"unknown stream {name!r}: expected board:<id>, kpi:<id>, flow:<id> or org",
                     details=[FieldError(field, "expected board:<id>, kpi:<id>, flow:<id> or org")])


def _since(data: spec.ListEventsInput) -> int:
    """Where the page starts: the cursor (the previous page's last seq, the same number `since` takes)."""
    after = decode_seq_cursor(data.cursor)
    return data.since if after is None else after


@procedures.implement(spec.LIST)
async def list_events(node: Node, caller: Caller, data: spec.ListEventsInput) -> Page:
    limit = page_limit(data.limit)
    stream = await stream_of(node, caller, data.stream)
    events = await event_log.read(node.pool, caller.org_id, stream, _since(data), limit + 1)
    page = events[:limit]
    next_cursor = str(page[-1].seq) if len(events) > limit else None
    return Page([wire_payload(event) for event in page], next_cursor, limit, key="events")
