"""Tier meetings (docs/templates-and-meetings.md): start a meeting at a board, run it (the entry under discussion,
the entries discussed), complete it, read one, list a board's and replay one.
Meetings are a service of plain transactions on the board's stream (docs/architecture.md), like audits and actions.

Starting records the agenda the team stands in front of, as it is at that moment: the board's KPIs with their
status, its open actions due today or overdue, and its open escalations (escalated actions still open); and the
board itself (actors/meetings/snapshot.py). Starting and completing each record the board stream's seq of their own
event (`meeting.started`, `meeting.completed`): the stream row is locked first (after the board's row:
storage/meetings.py `hold_board`), so no other change to the board takes a seq in between and the agenda's actions
and the board's items are exactly those of the board at that seq. Focusing an entry and marking one discussed emit
`meeting.updated`. Every event goes to the board's Socket.IO room; the started and completed ones also to webhooks.
A replay is the recorded board and the board stream's events between the meeting's two seqs.

Only the member who started a meeting, an admin or the board's display completes it (docs/decisions.md "Meeting seqs
and agenda"). On a plan without KPIs the agenda lists none (docs/decisions.md "Meeting seqs and agenda")."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import asyncpg

from actors.actions.handlers import person, today
from actors.kernel.access import on_visible_board, require_board_access
from actors.kernel.events import board_stream, wire_payload
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from actors.meetings.snapshot import board_snapshot
from protocol import meetings as proto
from protocol.caller import Caller, CredentialKind
from protocol.errors import BadRequest, Conflict, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_seq_cursor, decode_time_cursor, page_limit, time_page
from protocol.plans import allows
from protocol.registry import Role
from storage import events as event_log
from storage import meetings as repo

procedures = Implementations()

# Entries of each agenda list kept in the snapshot (the list's `totals` entry still counts them all). A tier
# board holds a few dozen KPIs and actions; the cap keeps a meeting's row and its two events small (each
# entry is about 300 bytes) on a board that has let hundreds of actions run late.
AGENDA_LIMIT = 100
# A replay's changes per page: the default, and at most (a change's payload is about 1 KB, an item's view in it).
REPLAY_PAGE, MAX_REPLAY_PAGE = 200, 500


def _kpi_entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """A KPI as the agenda shows it: `status` is its latest value's (null: no value yet, or no thresholds);
    `latestValue` and `target` have the KPI's shapes (actors/kpi/views.py)."""
    latest = None if row["recorded_at"] is None else {"value": row["value"], "status": row["status"],
                                                      "recordedAt": iso(row["recorded_at"])}
    target = None if row["target_deadline"] is None else {"value": row["target_value"],
                                                          "deadline": row["target_deadline"].isoformat()}
    return {"id": row["id"], "name": row["name"], "category": row["category"], "unit": row["unit"],
            "direction": row["direction"], "frequency": row["frequency"],
            "responsibleUserId": row["responsible_user_id"], "status": row["status"], "latestValue": latest,
            "target": target, "openAlerts": row["open_alerts"]}


def _action_entry(row: Mapping[str, Any], on: date) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "status": row["status"], "priority": row["priority"],
            "assignee": person(row["assignee_id"], row["assignee_name"]), "dueDate": row["due_date"].isoformat(),
            "category": row["category"], "isOverdue": row["due_date"] < on,
            "escalationLevel": row["escalation_level"],
            "escalatedTo": person(row["escalated_to_user_id"], row["escalated_to_name"])}


def _total(rows: list[asyncpg.Record]) -> int:
    return int(rows[0]["total"]) if rows else 0


async def _agenda(conn: asyncpg.Connection, caller: Caller, board_id: str, on: date) -> dict[str, Any]:
    """The board's agenda as `caller` may see it: on a plan without KPIs (a downgrade keeps them, but kpis.list
    is 403) the KPI list stays empty, as it does in the events webhooks carry."""
    org_id = caller.org_id
    kpis_allowed = caller.organization is not None and allows(caller.organization.plan, "kpis")
    kpis = await repo.agenda_kpis(conn, org_id, board_id, AGENDA_LIMIT) if kpis_allowed else []
    actions = await repo.agenda_actions(conn, org_id, board_id, on, AGENDA_LIMIT)
    escalations = await repo.agenda_escalations(conn, org_id, board_id, AGENDA_LIMIT)
    return {"date": on.isoformat(), "kpis": [_kpi_entry(row) for row in kpis],
            "actions": [_action_entry(row, on) for row in actions],
            "escalations": [_action_entry(row, on) for row in escalations],
            "totals": {"kpis": _total(kpis), "actions": _total(actions), "escalations": _total(escalations)}}


def meeting_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A meeting as every procedure and event shows it."""
    return {"id": row["id"], "boardId": row["board_id"], "tier": row["tier"], "status": row["status"],
            "attendeeIds": list(row["attendee_ids"]), "agenda": row["agenda"], "notes": row["notes"],
            "startedBy": row["started_by"], "startedAt": iso(row["started_at"]), "seqAtStart": row["start_seq"],
            "completedBy": row["completed_by"], "completedAt": iso(row["completed_at"]),
            "seqAtCompletion": row["completion_seq"],
            "current": None if row["current_entry"] is None else {"entry": row["current_entry"],
                                                                  "since": iso(row["current_since"])},
            "discussed": list(row["discussed"])}


def _distinct_attendees(attendee_ids: list[str]) -> None:
    details = [FieldError(f"attendeeIds.{index}", "is listed twice")
               for index, user_id in enumerate(attendee_ids) if user_id in attendee_ids[:index]]
    if details:
        raise ValidationFailed.naming(details)


async def _meeting(node: Node, caller: Caller, meeting_id: str) -> asyncpg.Record:
    """The meeting if it is in the caller's organization at a board the caller can see, else NotFound."""
    return await on_visible_board(node, caller, await repo.get(node.pool, caller.org_id, meeting_id),
                                  "meeting not found")


@procedures.implement(proto.START)
async def start_meeting(node: Node, caller: Caller, data: proto.StartInput) -> dict[str, Any]:
    _distinct_attendees(data.attendeeIds)
    await require_board_access(node, caller, data.boardId)
    org_id, stream = caller.org_id, board_stream(data.boardId)
    # A foreign-key violation: the board was deleted since the access check.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        conn = uow.conn
        members = await repo.active_members(conn, org_id, data.attendeeIds)
        absent = [FieldError(f"attendeeIds.{index}", "must be an active member of the organization")
                  for index, user_id in enumerate(data.attendeeIds) if user_id not in members]
        if absent:
            raise ValidationFailed.naming(absent)
        if not await repo.hold_board(conn, org_id, data.boardId):
            raise NotFound("board not found")
        seq = await repo.lock_stream_seq(conn, org_id, stream) + 1
        running = await repo.in_progress(conn, org_id, data.boardId, data.tier)
        if running is not None:
            raise Conflict(f"a tier {data.tier} meeting is already in progress at this board",
                           details=[FieldError("tier", "a meeting of this tier is in progress")],
                           data={"meetingId": running})
        agenda = await _agenda(conn, caller, data.boardId, today(node))
        # The board actor commits a change's rows and its events in one transaction, appending the events (which
        # takes the stream's row lock) after writing the rows: with the lock held here, the rows read are exactly
        # those of every change up to seq - 1, and a change waiting on the lock gets a seq after this one.
        board = await board_snapshot(conn, org_id, data.boardId)
        row = await repo.insert(conn, meeting_id=new_id(Prefix.MEETING), org_id=org_id, board_id=data.boardId,
                                tier=data.tier, attendee_ids=data.attendeeIds, agenda=agenda, board_snapshot=board,
                                started_by=caller.uid, start_seq=seq, now=uow.now)
        view = meeting_view(row)
        await uow.activity("meeting", row["id"], "meeting.started",
                           {"boardId": data.boardId, "tier": data.tier, "attendeeIds": data.attendeeIds})
        uow.emit(stream, "meeting.started", {"meeting": view})
    return view


def _may_complete(caller: Caller, row: Mapping[str, Any]) -> None:
    """The member who started it, an admin, or the display at its board (the wall screen the team stands at ends
    the meeting a tablet started: docs/displays.md)."""
    if caller.credential is CredentialKind.DISPLAY:
        return  # `_meeting` found it at the display's own board
    if row["started_by"] != caller.uid and (caller.role or Role.GUEST) < Role.ADMIN:
        raise Forbidden("only the member who started the meeting or an admin can complete it")


async def _hold(uow: UnitOfWork, found: Mapping[str, Any]) -> tuple[asyncpg.Record, int]:
    """The meeting locked for this transaction, and the seq its next event on the board's stream gets. The
    board's row, then the stream's, then the meeting's, as a start takes them: two writers never wait on each
    other, nor on a deletion of the board (which deletes its row and then appends to its stream)."""
    conn, org_id = uow.conn, uow.org_id
    if not await repo.hold_board(conn, org_id, found["board_id"]):
        raise NotFound("meeting not found")
    seq = await repo.lock_stream_seq(conn, org_id, board_stream(found["board_id"])) + 1
    before = await repo.get(conn, org_id, found["id"], lock=True)
    if before is None:
        raise NotFound("meeting not found")
    return before, seq


@procedures.implement(proto.COMPLETE)
async def complete_meeting(node: Node, caller: Caller, data: proto.CompleteInput) -> dict[str, Any]:
    found = await _meeting(node, caller, data.id)
    _may_complete(caller, found)
    async with node.write(caller) as uow:
        before, seq = await _hold(uow, found)
        if before["status"] == "completed":
            raise Conflict("the meeting is already completed", data={"completedAt": iso(before["completed_at"])})
        row = await repo.complete(uow.conn, caller.org_id, data.id, notes=data.notes, completed_by=caller.uid,
                                  completion_seq=seq, now=uow.now)
        view = meeting_view(row)
        await uow.activity("meeting", row["id"], "meeting.completed",
                           {"boardId": row["board_id"], "tier": row["tier"]})
        uow.emit(board_stream(row["board_id"]), "meeting.completed", {"meeting": view})
    return view


@procedures.implement(proto.GET)
async def get_meeting(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    return meeting_view(await _meeting(node, caller, data.id))


@procedures.implement(proto.LIST)
async def list_meetings(node: Node, caller: Caller, data: proto.ListInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    await require_board_access(node, caller, data.boardId)
    rows = await repo.page(node.pool, caller.org_id, data.boardId, limit=limit + 1, after=after)
    return time_page(rows, limit, meeting_view, "meetings")


def _on_agenda(row: Mapping[str, Any], entry: str) -> None:
    """`entry` (`kpis/<id>`, `actions/<id>`, `escalations/<id>`) names an entry of the meeting's agenda."""
    kind, _, entry_id = entry.partition("/")
    if not any(listed["id"] == entry_id for listed in row["agenda"][kind]):
        raise ValidationFailed.naming([FieldError("entry", f"is not on the meeting's agenda ({kind})")])


async def _in_progress(uow: UnitOfWork, found: Mapping[str, Any]) -> asyncpg.Record:
    before, _ = await _hold(uow, found)
    if before["status"] != "in_progress":
        raise Conflict("the meeting is completed", data={"completedAt": iso(before["completed_at"])})
    return before


def _updated(uow: UnitOfWork, row: Mapping[str, Any]) -> dict[str, Any]:
    view = meeting_view(row)
    uow.emit(board_stream(row["board_id"]), "meeting.updated", {"meeting": view})
    return view


@procedures.implement(proto.FOCUS)
async def focus_meeting(node: Node, caller: Caller, data: proto.FocusInput) -> dict[str, Any]:
    found = await _meeting(node, caller, data.id)
    if data.entry is not None:
        _on_agenda(found, data.entry)  # the agenda never changes after the start
    async with node.write(caller) as uow:
        await _in_progress(uow, found)
        row = await repo.focus(uow.conn, caller.org_id, data.id, entry=data.entry,
                               since=None if data.entry is None else uow.now)
        await uow.activity("meeting", row["id"], "meeting.updated",
                           {"boardId": row["board_id"], "tier": row["tier"], "current": data.entry})
        return _updated(uow, row)


@procedures.implement(proto.MARK_DISCUSSED)
async def mark_discussed(node: Node, caller: Caller, data: proto.MarkDiscussedInput) -> dict[str, Any]:
    found = await _meeting(node, caller, data.id)
    _on_agenda(found, data.entry)
    async with node.write(caller) as uow:
        before = await _in_progress(uow, found)
        if (data.entry in before["discussed"]) == data.discussed:
            return meeting_view(before)  # already so: nothing changes, nothing is emitted
        row = await repo.set_discussed(uow.conn, caller.org_id, data.id, entry=data.entry, discussed=data.discussed)
        await uow.activity("meeting", row["id"], "meeting.updated",
                           {"boardId": row["board_id"], "tier": row["tier"], "entry": data.entry,
                            "discussed": data.discussed})
        return _updated(uow, row)


def _replay_from(row: Mapping[str, Any], cursor: str | None) -> int:
    """The seq after which the page starts: the meeting's start, or the previous page's last seq (the cursor),
    which lies between the meeting's start and its completion."""
    after = decode_seq_cursor(cursor)
    if after is None:
        return int(row["start_seq"])
    end = row["completion_seq"]
    if after < row["start_seq"] or (end is not None and after > end):
        raise BadRequest("the cursor is not one of this meeting's replay",
                         details=[FieldError("cursor", "outside the meeting's changes")])
    return after


@procedures.implement(proto.REPLAY)
async def replay_meeting(node: Node, caller: Caller, data: proto.ReplayInput) -> dict[str, Any]:
    limit = page_limit(data.limit, default=REPLAY_PAGE, maximum=MAX_REPLAY_PAGE)
    found = await _meeting(node, caller, data.id)
    stream = board_stream(found["board_id"])
    # One snapshot for the meeting and the events: a completion committed meanwhile is in both or in neither, so
    # the changes of a meeting shown in progress never run past its completion.
    async with node.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        row = await repo.get(conn, caller.org_id, data.id)
        if row is None:
            raise NotFound("meeting not found")
        after = _replay_from(row, data.cursor)
        board = None if data.cursor is not None else await repo.board_snapshot(conn, caller.org_id, data.id)
        events = await event_log.read(conn, caller.org_id, stream, after, limit + 1)
    end = row["completion_seq"]
    events = [event for event in events if end is None or event.seq <= end]
    page = events[:limit]
    changes = [{"seq": event.seq, "name": event.name, "payload": wire_payload(event),
                "createdAt": iso(event.created_at)} for event in page]
    return {"meeting": meeting_view(row), "board": board, "changes": changes,
            "nextCursor": str(page[-1].seq) if len(events) > limit else None}
