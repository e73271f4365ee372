"""Corrective actions: create, update, delete, read and list a board's actions, escalate
and de-escalate them, verify completed ones, and the organization-wide escalated and overdue views and a
board's statistics. Actions are a service of plain transactions (docs/architecture.md): each mutation writes its row,
an activity entry, its events on the board's stream (`action.created`, `action.updated`, `action.escalated`,
`action.completed`, `action.deleted`) and its notifications in one transaction, then publishes the events.

`create_action` is also how other modules (audits, KPI breaches) open an action; `escalate_locked` is shared
with the overdue scheduler (actors/actions/escalation.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

import asyncpg

from actors.kernel.access import on_visible_board, require_board_access
from actors.kernel.events import board_stream, changes
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.partial_update import given_fields
from actors.kernel.write import UnitOfWork
from protocol import actions as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, Conflict, FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_cursor, decode_time_cursor, encode_cursor, page_limit, time_page
from protocol.registry import Role
from storage import actions as repo
from storage import organizations as members

procedures = Implementations()

# The spec's field of actions.update and the column it sets.
_UPDATABLE = {"title": "title", "description": "description", "status": "status", "priority": "priority",
              "assigneeId": "assignee_id", "dueDate": "due_date"}


def today(node: Node) -> date:
    """Overdue is judged by the UTC date."""
    return node.clock.now().astimezone(UTC).date()


def person(user_id: str | None, name: str | None) -> dict[str, Any] | None:
    """A user as action views show one (`{id, name}`), or None."""
    return None if user_id is None else {"id": user_id, "name": name}


def action_view(row: Mapping[str, Any], on: date) -> dict[str, Any]:
    """An action as every procedure and event shows it; `on` is the day overdue is judged on."""
    return {"id": row["id"], "boardId": row["board_id"], "title": row["title"], "description": row["description"],
            "status": row["status"], "priority": row["priority"], "assigneeId": row["assignee_id"],
            "assignee": person(row["assignee_id"], row["assignee_name"]), "dueDate": row["due_date"].isoformat(),
            "sourceType": row["source_type"], "sourceId": row["source_id"], "category": row["category"],
            "isOverdue": row["status"] in proto.OPEN_STATUSES and row["due_date"] < on,
            "isEscalated": row["escalation_level"] > 0, "escalationLevel": row["escalation_level"],
            "escalatedTo": person(row["escalated_to_user_id"], row["escalated_to_name"]),
            "rootCauseId": row["root_cause_id"], "verificationNote": row["verification_note"],
            "verifiedAt": iso(row["verified_at"]), "verifiedById": row["verified_by"],
            "completedAt": iso(row["completed_at"]), "version": row["version"], "createdById": row["created_by"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def _escalation_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "fromLevel": row["from_level"], "toLevel": row["to_level"],
            "escalatedTo": person(row["to_user_id"], row["to_user_name"]), "reason": row["reason"],
            "changedById": row["changed_by"], "automatic": row["changed_by"] is None,
            "createdAt": iso(row["created_at"])}


def _due_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationFailed.of("dueDate", "must be a date (YYYY-MM-DD)") from None


def _title(text: str) -> str:
    if not text.strip():
        raise ValidationFailed.of("title", "must not be blank")
    return text


async def _require_member(conn: asyncpg.Connection, org_id: str, user_id: str, field: str) -> None:
    member = await members.member(conn, org_id, user_id)
    if member is None or member["status"] != "active":
        raise ValidationFailed.of(field, "must be an active member of the organization")


async def _action(node: Node, caller: Caller, action_id: str) -> asyncpg.Record:
    """The action if it is in the caller's organization on a board the caller can see, else NotFound."""
    return await on_visible_board(node, caller, await repo.get(node.pool, caller.org_id, action_id),
                                  "action not found")


async def _locked(conn: asyncpg.Connection, caller: Caller, action_id: str) -> asyncpg.Record:
    """The action held for this transaction (it may have been deleted since `_action` found it)."""
    row = await repo.get(conn, caller.org_id, action_id, lock=True)
    if row is None:
        raise NotFound("action not found")
    return row


async def _notify(uow: UnitOfWork, row: Mapping[str, Any], *, user_id: str | None, type: str, title: str) -> None:
    """Notify `user_id` about the action, unless nobody, the caller themself, or no longer an active member (an
    assignee who left the organization stays named, but the organization's news are no longer theirs)."""
    if user_id is None or (uow.caller is not None and user_id == uow.caller.user_id):
        return
    member = await members.member(uow.conn, row["organization_id"], user_id)
    if member is None or member["status"] != "active":
        return
    await uow.notify(user_id, type, title, row["title"], "action", row["id"], org_id=row["organization_id"])


def _emit(uow: UnitOfWork, row: Mapping[str, Any], name: str, data: dict[str, Any]) -> None:
    uow.emit(board_stream(row["board_id"]), name, data, org_id=row["organization_id"])


def _audit(row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {"boardId": row["board_id"], "title": row["title"], **extra}


@procedures.implement(proto.CREATE)
async def create_action(node: Node, caller: Caller, data: proto.CreateActionInput) -> dict[str, Any]:
    """Open an action on a board the caller sees: the row, its activity entry, `action.created` and the
    `action_assigned` notification (not when assigning oneself), in one transaction."""
    title, due = _title(data.title), _due_date(data.dueDate)
    await require_board_access(node, caller, data.boardId)
    # A foreign-key violation: the board was deleted between the access check and the insert.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        conn = uow.conn
        await _require_member(conn, caller.org_id, data.assigneeId, "assigneeId")
        row = await repo.insert(conn, action_id=new_id(Prefix.ACTION), org_id=caller.org_id, board_id=data.boardId,
                                title=title, description=data.description, priority=data.priority,
                                assignee_id=data.assigneeId, due_date=due,
                                source_type=data.sourceType or "manual", source_id=data.sourceId,
                                category=data.category, created_by=caller.user_id, now=uow.now)
        view = action_view(row, today(node))
        await uow.activity("action", row["id"], "action.created",
                           _audit(row, assigneeId=data.assigneeId, priority=data.priority))
        _emit(uow, row, "action.created", {"action": view})
        await _notify(uow, row, user_id=data.assigneeId, type="action_assigned",
                      title="An action was assigned to you")
    return view


def _status_effects(before: Mapping[str, Any], status: str, caller: Caller, now: datetime) -> dict[str, Any]:
    """The columns a status move sets besides `status` (docs/decisions.md "Action statuses and escalation")."""
    if status == "completed":
        return {"completed_at": now, "verified_at": None, "verified_by": None}
    if status == "verified":
        return {"completed_at": before["completed_at"] or now, "verified_at": now, "verified_by": caller.user_id}
    if status in proto.OPEN_STATUSES:
        return {"completed_at": None, "verified_at": None, "verified_by": None}
    return {}


def _changed_fields(before: Mapping[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The given fields whose value differs from the action's, as column → new value."""
    fields = {}
    for name, value in given.items():
        column = _UPDATABLE[name]
        if column == "due_date":
            value = _due_date(value)
        if before[column] != value:
            fields[column] = value
    return fields


def _wire_changes(before: Mapping[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`data.changes` of the spec's fields, in their wire form."""
    names = {column: name for name, column in _UPDATABLE.items()}
    old = {names[c]: before[c] for c in after if c in names}
    new = {names[c]: v for c, v in after.items() if c in names}
    if "dueDate" in new:
        old["dueDate"], new["dueDate"] = before["due_date"].isoformat(), after["due_date"].isoformat()
    return changes(old, new)


@procedures.implement(proto.UPDATE)
async def update_action(node: Node, caller: Caller, data: proto.UpdateActionInput) -> dict[str, Any]:
    given = given_fields(data, _UPDATABLE, clearable=("description",))
    if not given:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    if "title" in given:
        _title(given["title"])
    await _action(node, caller, data.id)
    async with node.write(caller) as uow:
        conn, now = uow.conn, uow.now
        before = await _locked(conn, caller, data.id)
        if data.expectedVersion is not None and data.expectedVersion != before["version"]:
            raise Conflict("the action was changed since that version",
                           data={"currentVersion": before["version"]})
        fields = _changed_fields(before, given)
        if not fields:
            return action_view(before, today(node))
        if "assignee_id" in fields:
            await _require_member(conn, caller.org_id, fields["assignee_id"], "assigneeId")
        if "status" in fields:
            fields |= _status_effects(before, fields["status"], caller, now)
        row = await repo.update(conn, caller.org_id, data.id, fields, now)
        view = action_view(row, today(node))
        changed = _wire_changes(before, fields)
        await uow.activity("action", row["id"], "action.status_changed" if "status" in changed else "action.updated",
                           _audit(row, changes=changed))
        _emit(uow, row, "action.updated", {"action": view, "changes": changed})
        if fields.get("status") == "completed":
            _emit(uow, row, "action.completed", {"action": view})
        if "assignee_id" in fields:
            await _notify(uow, row, user_id=row["assignee_id"], type="action_assigned",
                          title="An action was assigned to you")
    return view


@procedures.implement(proto.DELETE)
async def delete_action(node: Node, caller: Caller, data: proto.ActionIdInput) -> dict[str, Any]:
    await _action(node, caller, data.id)
    async with node.write(caller) as uow:
        row = await _locked(uow.conn, caller, data.id)
        await repo.delete(uow.conn, caller.org_id, data.id)
        await uow.activity("action", data.id, "action.deleted", _audit(row))
        _emit(uow, row, "action.deleted", {"action": {"id": row["id"], "boardId": row["board_id"]}})
    return {"success": True, "id": data.id}


@procedures.implement(proto.GET)
async def get_action(node: Node, caller: Caller, data: proto.ActionIdInput) -> dict[str, Any]:
    row = await _action(node, caller, data.id)
    history = await repo.escalations(node.pool, caller.org_id, data.id)
    return action_view(row, today(node)) | {"escalations": [_escalation_view(entry) for entry in history]}


@procedures.implement(proto.LIST)
async def list_actions(node: Node, caller: Caller, data: proto.ListActionsInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    await require_board_access(node, caller, data.boardId)
    filters = {column: value for column, value in (("status", data.status), ("priority", data.priority),
                                                   ("assignee_id", data.assigneeId), ("category", data.category))
               if value is not None}
    rows = await repo.page(node.pool, caller.org_id, data.boardId, filters=filters, limit=limit + 1, after=after)
    on = today(node)
    return time_page(rows, limit, lambda row: action_view(row, on), "actions")


async def escalate_locked(uow: UnitOfWork, row: asyncpg.Record, *, target_id: str | None,
                          reason: str) -> dict[str, Any]:
    """Raise a locked action one level, escalated to `target_id`: the history row, the activity entry,
    `action.escalated` and the target's `action_escalated` notification. A unit without caller is the
    scheduler's."""
    conn, caller, now = uow.conn, uow.caller, uow.now
    org_id, level = row["organization_id"], row["escalation_level"] + 1
    after = await repo.update(conn, org_id, row["id"], {"escalation_level": level, "escalated_to_user_id": target_id,
                                                        "escalation_changed_at": now}, now)
    by = caller.user_id if caller is not None else None
    await repo.add_escalation(conn, escalation_id=new_id(Prefix.ESCALATION), org_id=org_id, action_id=row["id"],
                              from_level=level - 1, to_level=level, to_user_id=target_id, reason=reason,
                              changed_by=by, now=now)
    view = action_view(after, now.astimezone(UTC).date())
    await uow.activity("action", row["id"], "action.escalated",
                       _audit(after, fromLevel=level - 1, toLevel=level, escalatedTo=target_id, reason=reason,
                              automatic=caller is None), org_id=org_id)
    _emit(uow, after, "action.escalated",
          {"action": view, "reason": reason, "fromLevel": level - 1, "toLevel": level,
           "escalatedTo": view["escalatedTo"], "automatic": caller is None})
    await _notify(uow, after, user_id=target_id, type="action_escalated",
                  title=f"An action was escalated to you (level {level})")
    return view


@procedures.implement(proto.ESCALATE)
async def escalate(node: Node, caller: Caller, data: proto.EscalateInput) -> dict[str, Any]:
    await _action(node, caller, data.id)
    async with node.write(caller) as uow:
        await _require_member(uow.conn, caller.org_id, data.escalateToUserId, "escalateToUserId")
        row = await _locked(uow.conn, caller, data.id)
        view = await escalate_locked(uow, row, target_id=data.escalateToUserId, reason=data.reason)
    return view


@procedures.implement(proto.DEESCALATE)
async def deescalate(node: Node, caller: Caller, data: proto.DeescalateInput) -> dict[str, Any]:
    """Back one level; the person it is escalated to becomes who it was escalated to at that level."""
    await _action(node, caller, data.id)
    async with node.write(caller) as uow:
        conn, now = uow.conn, uow.now
        before = await _locked(conn, caller, data.id)
        level = before["escalation_level"] - 1
        if level < 0:
            raise BadRequest("the action is not escalated", details=[FieldError("id", "escalation level is 0")])
        target = await repo.target_at_level(conn, caller.org_id, data.id, level) if level else None
        row = await repo.update(conn, caller.org_id, data.id, {"escalation_level": level,
                                                              "escalated_to_user_id": target,
                                                              "escalation_changed_at": now}, now)
        await repo.add_escalation(conn, escalation_id=new_id(Prefix.ESCALATION), org_id=caller.org_id,
                                  action_id=data.id, from_level=level + 1, to_level=level, to_user_id=target,
                                  reason=data.reason, changed_by=caller.user_id, now=now)
        view = action_view(row, today(node))
        changed = changes({"escalationLevel": level + 1, "escalatedToUserId": before["escalated_to_user_id"]},
                          {"escalationLevel": level, "escalatedToUserId": target})
        await uow.activity("action", data.id, "action.deescalated",
                           _audit(row, fromLevel=level + 1, toLevel=level, reason=data.reason))
        _emit(uow, row, "action.updated", {"action": view, "changes": changed, "reason": data.reason})
    return view


@procedures.implement(proto.VERIFY)
async def verify(node: Node, caller: Caller, data: proto.VerifyInput) -> dict[str, Any]:
    """A completed action becomes verified, or (`verified: false`) goes back to in_progress with the note
    kept and its assignee told."""
    await _action(node, caller, data.id)
    async with node.write(caller) as uow:
        conn, now = uow.conn, uow.now
        before = await _locked(conn, caller, data.id)
        if before["status"] != "completed":
            raise BadRequest(f"only a completed action can be verified; this one is {before['status']}",
                             details=[FieldError("id", "action is not completed")])
        status = "verified" if data.verified else "in_progress"
        fields = {"status": status, "verification_note": data.verificationNote,
                  **_status_effects(before, status, caller, now)}
        row = await repo.update(conn, caller.org_id, data.id, fields, now)
        view = action_view(row, today(node))
        changed = changes({"status": before["status"], "verificationNote": before["verification_note"]},
                          {"status": status, "verificationNote": data.verificationNote})
        await uow.activity("action", data.id, "action.verified" if data.verified else "action.verification_rejected",
                           _audit(row, note=data.verificationNote))
        _emit(uow, row, "action.updated", {"action": view, "changes": changed})
        if not data.verified:
            await _notify(uow, row, user_id=row["assignee_id"], type="action_reopened",
                          title="Your action was not verified and is back in progress")
    return view


def _due_cursor(cursor: str | None) -> tuple[date, str] | None:
    key = decode_cursor(cursor, 2)
    if key is None:
        return None
    try:
        return date.fromisoformat(key[0]), str(key[1])
    except (TypeError, ValueError):
        raise BadRequest("malformed cursor", details=[FieldError("cursor", "malformed cursor")]) from None


async def _across_boards(node: Node, caller: Caller, data: proto.OrganizationActionsInput, which: str) -> Page:
    limit = page_limit(data.limit)
    after = _due_cursor(data.cursor)
    if data.organizationId != caller.org_id:
        raise NotFound("organization not found")
    role = caller.role or Role.GUEST
    on = today(node)
    rows = await repo.across_boards(node.pool, caller.org_id, caller.uid, which=which, today=on,
                                    see_all=role >= Role.ADMIN, see_open=role >= Role.MEMBER, limit=limit + 1,
                                    after=after)
    next_cursor = None
    if len(rows) > limit:
        last = rows[limit - 1]
        next_cursor = encode_cursor(last["due_date"].isoformat(), last["id"])
    return Page([action_view(row, on) for row in rows[:limit]], next_cursor, limit, key="actions")


@procedures.implement(proto.ESCALATED)
async def escalated(node: Node, caller: Caller, data: proto.OrganizationActionsInput) -> Page:
    return await _across_boards(node, caller, data, "escalated")


@procedures.implement(proto.OVERDUE)
async def overdue(node: Node, caller: Caller, data: proto.OrganizationActionsInput) -> Page:
    return await _across_boards(node, caller, data, "overdue")


@procedures.implement(proto.STATS)
async def stats(node: Node, caller: Caller, data: proto.BoardInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    row = await repo.stats(node.pool, caller.org_id, data.boardId, today(node))
    days = row["closure_days"]
    return {"total": row["total"],
            "byStatus": {status: row[f"status_{status}"] for status in proto.STATUSES},
            "byPriority": {priority: row[f"priority_{priority}"] for priority in proto.PRIORITIES},
            "overdue": row["overdue"], "escalated": row["escalated"],
            "avgClosureTimeDays": None if days is None else round(float(days), 1)}
