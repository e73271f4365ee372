"""Tier meetings (docs/templates-and-meetings.md): start a meeting at a board, complete it, read one and list a board's.
Meetings are a service of plain transactions on the board's stream (docs/architecture.md), like audits and actions.

Starting records the agenda the team stands in front of, as it is at that moment: the board's KPIs with their
status, its open actions due today or overdue, and its open escalations (escalated actions still open). Starting
and completing each record the board stream's seq of their own event (`meeting.started`, `meeting.completed`):
the stream row is locked first (after the board's row: storage/meetings.py `hold_board`), so no other change to the
board takes a seq in between and the agenda's actions are exactly those of the board at that seq. Both events go
to the board's Socket.IO room and to webhooks.

Only the member who started a meeting, an admin or the board's display completes it (docs/decisions.md "Meeting seqs
and agenda"). On a plan without KPIs the agenda lists none (docs/decisions.md "Meeting seqs and agenda")."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import asyncpg

from actors.actions.handlers import person, today
from actors.kernel.access import on_visible_board, require_board_access
from actors.kernel.events import board_stream
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import meetings as proto
from protocol.caller import Caller, CredentialKind
from protocol.errors import Conflict, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from protocol.plans import allows
from protocol.registry import Role
from storage import meetings as repo

procedures = Implementations()

# Entries of each agenda list kept in the snapshot (the list's `totals` entry still counts them all). A tier
# board holds a few dozen KPIs and actions; the cap keeps a meeting's row and its two events small (each
# entry is about 300 bytes) on a board that has let hundreds of actions run late.
AGENDA_LIMIT = 100


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
            "seqAtCompletion": row["completion_seq"]}


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
        row = await repo.insert(conn, meeting_id=new_id(Prefix.MEETING), org_id=org_id, board_id=data.boardId,
                                tier=data.tier, attendee_ids=data.attendeeIds, agenda=agenda, started_by=caller.uid,
                                start_seq=seq, now=uow.now)
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


@procedures.implement(proto.COMPLETE)
async def complete_meeting(node: Node, caller: Caller, data: proto.CompleteInput) -> dict[str, Any]:
    found = await _meeting(node, caller, data.id)
    _may_complete(caller, found)
    org_id, stream = caller.org_id, board_stream(found["board_id"])
    async with node.write(caller) as uow:
        conn = uow.conn
        # The board's row, then the stream's, then the meeting's, as a start takes them: two writers never wait on
        # each other, nor on a deletion of the board (which deletes its row and then appends to its stream).
        if not await repo.hold_board(conn, org_id, found["board_id"]):
            raise NotFound("meeting not found")
        seq = await repo.lock_stream_seq(conn, org_id, stream) + 1
        before = await repo.get(conn, org_id, data.id, lock=True)
        if before is None:
            raise NotFound("meeting not found")
        if before["status"] == "completed":
            raise Conflict("the meeting is already completed", data={"completedAt": iso(before["completed_at"])})
        row = await repo.complete(conn, org_id, data.id, notes=data.notes, completed_by=caller.uid,
                                  completion_seq=seq, now=uow.now)
        view = meeting_view(row)
        await uow.activity("meeting", row["id"], "meeting.completed",
                           {"boardId": row["board_id"], "tier": row["tier"]})
        uow.emit(stream, "meeting.completed", {"meeting": view})
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
