"""Tier meetings (docs/templates-and-meetings.md): the inputs with their
limits and the procedure declarations. A meeting is held at a board; reading needs the `read:items` key scope,
starting and completing `write:items` (the spec lists no meeting scope) and the member role. Meetings have no
plan gate."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import Role, declare

# Tier 1 is the team at the line, tier 5 the plant's leadership: the usual lean cascade has at most five.
Tier = Annotated[int, msgspec.Meta(ge=1, le=5)]
# Everyone who stands at one board: a tier meeting is a team's, and a hundred covers a plant-wide tier 5.
MAX_ATTENDEES = 100
Notes = Annotated[str, msgspec.Meta(max_length=10_000)]


class StartInput(msgspec.Struct):
    boardId: Id
    tier: Tier
    attendeeIds: Annotated[list[Id], msgspec.Meta(max_length=MAX_ATTENDEES)] = msgspec.field(default_factory=list)


class CompleteInput(msgspec.Struct):
    id: Id
    notes: Notes | None = None


class IdInput(msgspec.Struct):
    id: Id


class ListInput(msgspec.Struct):
    boardId: Id
    cursor: Cursor | None = None
    limit: int | None = None


# An agenda entry: `kpis/<id>`, `actions/<id>` or `escalations/<id>`, naming an entry of the meeting's agenda.
AgendaEntry = Annotated[str, msgspec.Meta(pattern=r"^(kpis|actions|escalations)/[^/]{1,64}$")]


class FocusInput(msgspec.Struct):
    id: Id
    entry: AgendaEntry | None = None  # None: no entry under discussion


class MarkDiscussedInput(msgspec.Struct):
    id: Id
    entry: AgendaEntry
    discussed: bool = True


class ReplayInput(msgspec.Struct):
    id: Id
    cursor: Cursor | None = None
    limit: int | None = None  # changes per page, 1-500 (default 200)


READ, WRITE = "read:items", "write:items"

START = declare("meetings.start", "mutation", StartInput, key_scope=WRITE, min_role=Role.MEMBER,
                summary="Start a tier meeting at a board: records its agenda (KPIs with status, actions due or "
                "overdue, open escalations) and the board's seq, and emits meeting.started")
COMPLETE = declare("meetings.complete", "mutation", CompleteInput, key_scope=WRITE, min_role=Role.MEMBER,
                   summary="Complete a meeting in progress with its notes (its starter or an admin); records the "
                   "board's seq and emits meeting.completed")
GET = declare("meetings.get", "query", IdInput, key_scope=READ, summary="One meeting with its agenda")
LIST = declare("meetings.list", "query", ListInput, key_scope=READ,
               summary="A board's meetings, newest first, with their agendas")
FOCUS = declare("meetings.focus", "mutation", FocusInput, key_scope=WRITE, min_role=Role.MEMBER,
                summary="Set the agenda entry under discussion in a meeting in progress (its timer starts now); "
                "emits meeting.updated")
MARK_DISCUSSED = declare("meetings.markDiscussed", "mutation", MarkDiscussedInput, key_scope=WRITE,
                         min_role=Role.MEMBER,
                         summary="Mark an agenda entry of a meeting in progress discussed (or not); emits "
                         "meeting.updated")
REPLAY = declare("meetings.replay", "query", ReplayInput, key_scope=READ,
                 summary="A meeting's board as it was at the meeting's start and, page by page, the board's "
                 "changes from its start until its completion, in seq order")
