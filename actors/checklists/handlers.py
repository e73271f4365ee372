"""Standard-work checklists: templates on a board, one completion per template and period,
the caller's checklists of the current period, the missed ones and completion rates.

Periods are in UTC: daily is the calendar day; shift is a day shift 06:00-18:00 and a night shift
18:00-06:00 that belongs to the day it started; weekly is the ISO week (Monday 00:00); monthly the calendar
month. A completion is dated with its period's start date; history and rates select completions by the
time they were made. A checklist applies to its assignees, or, when
it has none, to everyone who sees its board.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import asyncpg

from actors.kernel.access import on_visible_board, require_board_access
from actors.kernel.events import board_stream
from actors.kernel.events import changes as changed_fields
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import checklists as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, Conflict, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import page_limit, page_offset
from storage import access as access_repo
from storage import checklists as repo

procedures = Implementations()

DAY_SHIFT_HOUR = 6
NIGHT_SHIFT_HOUR = 18
SHIFT = timedelta(hours=12)
DAY = timedelta(days=1)
# Days one expected completion stands for (shift two per day, weekly one per 7 days, monthly one
# per 30 days); a range's expected count is its inclusive length in days divided by this, rounded up.
DAYS_PER_COMPLETION = {"daily": 1.0, "shift": 0.5, "weekly": 7.0, "monthly": 30.0}


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime


def current_period(frequency: str, moment: datetime) -> Period:
    """The period of `frequency` that `moment` falls in (UTC)."""
    moment = moment.astimezone(UTC)
    midnight = datetime.combine(moment.date(), time(), UTC)
    match frequency:
        case "daily":
            return Period(midnight, midnight + DAY)
        case "shift":
            if moment.hour < DAY_SHIFT_HOUR:  # the night shift that started yesterday
                start = midnight - DAY + timedelta(hours=NIGHT_SHIFT_HOUR)
            elif moment.hour < NIGHT_SHIFT_HOUR:
                start = midnight + timedelta(hours=DAY_SHIFT_HOUR)
            else:
                start = midnight + timedelta(hours=NIGHT_SHIFT_HOUR)
            return Period(start, start + SHIFT)
        case "weekly":
            start = midnight - timedelta(days=moment.weekday())
            return Period(start, start + 7 * DAY)
        case _:
            start = midnight.replace(day=1)
            return Period(start, (start + 32 * DAY).replace(day=1))


def expected_completions(frequency: str, days: int) -> int:
    return math.ceil(days / DAYS_PER_COMPLETION[frequency])


def checklist_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "boardId": row["board_id"], "name": row["name"], "description": row["description"],
            "frequency": row["frequency"], "items": row["items"], "assigneeIds": list(row["assignee_ids"]),
            "deadlineHour": row["deadline_hour"], "isActive": row["is_active"], "createdBy": row["created_by"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def completion_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "checklistId": row["checklist_id"], "completedById": row["completed_by"],
            "date": row["date"].isoformat(), "periodStart": iso(row["period_start"]),
            "completedAt": iso(row["completed_at"]), "responses": row["responses"]}


def _period_view(row: Mapping[str, Any], period: Period) -> dict[str, Any]:
    return {"id": row["id"], "name": row["name"], "frequency": row["frequency"],
            "deadlineHour": row["deadline_hour"], "periodStart": iso(period.start), "periodEnd": iso(period.end)}


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"boardId": row["board_id"], "name": row["name"], "frequency": row["frequency"]}


def _applies(row: Mapping[str, Any], caller: Caller) -> bool:
    return not row["assignee_ids"] or caller.uid in row["assignee_ids"]


def _items(given: Sequence[proto.ItemInput], current: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The template's items: one given with the id of a current item keeps it, any other gets a new id."""
    known = {item["id"] for item in current}
    seen: set[str] = set()
    errors = []
    for index, item in enumerate(given):
        if item.id is None:
            continue
        if item.id not in known:
            errors.append(FieldError(f"items.{index}.id", "is not an item of this checklist"))
        elif item.id in seen:
            errors.append(FieldError(f"items.{index}.id", "is given twice"))
        seen.add(item.id)
    if errors:
        raise ValidationFailed.naming(errors)
    return [{"id": item.id or new_id(Prefix.STANDARD_WORK_STEP), "text": item.text, "required": item.required}
            for item in given]


async def _assignees(conn: asyncpg.Connection, org_id: str, ids: Sequence[str]) -> list[str]:
    unique = list(dict.fromkeys(ids))
    strangers = set(unique) - set(await access_repo.member_ids(conn, org_id))
    if strangers:
        raise ValidationFailed.of("assigneeIds", f"not members of the organization: {', '.join(sorted(strangers))}")
    return unique


def _check_range(start: date | None, end: date | None) -> None:
    if start is not None and end is not None and end < start:
        raise ValidationFailed.of("endDate", "must not be before startDate")


async def _checklist(node: Node, caller: Caller, checklist_id: str) -> asyncpg.Record:
    """The template if it is in the caller's organization on a board the caller can see, else NotFound."""
    return await on_visible_board(node, caller, await repo.get(node.pool, caller.org_id, checklist_id),
                                  "checklist not found")


@procedures.implement(proto.CREATE)
async def create(node: Node, caller: Caller, data: proto.CreateInput) -> dict[str, Any]:
    items = _items(data.items, [])
    await require_board_access(node, caller, data.boardId)
    # A foreign-key violation: the board was deleted between the access check and the insert.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        conn = uow.conn
        row = await repo.insert(conn, checklist_id=new_id(Prefix.STANDARD_WORK_CHECKLIST), org_id=caller.org_id,
                                board_id=data.boardId, name=data.name, description=data.description,
                                frequency=data.frequency, items=items,
                                assignee_ids=await _assignees(conn, caller.org_id, data.assigneeIds),
                                deadline_hour=data.deadlineHour, created_by=caller.uid, now=uow.now)
        await uow.activity("checklist", row["id"], "checklist.created", _audit(row))
    return checklist_view(row)


@procedures.implement(proto.UPDATE)
async def update(node: Node, caller: Caller, data: proto.UpdateInput) -> dict[str, Any]:
    changes: dict[str, Any] = {key: value for key in proto.TEMPLATE_FIELDS if (value := getattr(data, key)) is not None}
    if not changes:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    before = await _checklist(node, caller, data.id)
    if data.items is not None:
        changes["items"] = _items(data.items, before["items"])
    async with node.write(caller) as uow:
        conn = uow.conn
        if data.assigneeIds is not None:
            changes["assigneeIds"] = await _assignees(conn, caller.org_id, data.assigneeIds)
        row = await repo.update(conn, caller.org_id, data.id, changes, uow.now)
        if row is None:
            raise NotFound("checklist not found")
        old, new = checklist_view(before), checklist_view(row)
        await uow.activity("checklist", data.id, "checklist.updated",
                           {**_audit(row), "changes": changed_fields(old, {key: new[key] for key in changes})})
    return new


@procedures.implement(proto.DELETE)
async def delete(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await _checklist(node, caller, data.id)
    async with node.write(caller) as uow:
        completions = await repo.delete(uow.conn, caller.org_id, data.id)
        if completions is None:
            raise NotFound("checklist not found")
        await uow.activity("checklist", data.id, "checklist.deleted",
                           {**_audit(row), "completionsDeleted": completions})
    return {"success": True, "id": data.id}


@procedures.implement(proto.LIST)
async def list_checklists(node: Node, caller: Caller, data: proto.ListInput) -> list[dict[str, Any]]:
    await require_board_access(node, caller, data.boardId)
    rows = await repo.list_for_board(node.pool, caller.org_id, data.boardId, is_active=data.isActive)
    return [checklist_view(row) for row in rows]


async def _current(node: Node, caller: Caller, board_id: str) -> list[tuple[asyncpg.Record, Period, bool]]:
    """The board's active templates by deadline hour and name, each with its current period and whether that
    period has a completion."""
    now = node.clock.now()
    await require_board_access(node, caller, board_id)
    async with node.pool.acquire() as conn:
        rows = await repo.list_for_board(conn, caller.org_id, board_id, is_active=True)
        periods = [current_period(row["frequency"], now) for row in rows]
        done = await repo.completed_in(conn, caller.org_id, [
            (row["id"], row["frequency"], period.start) for row, period in zip(rows, periods, strict=True)])
    current = [(row, period, row["id"] in done) for row, period in zip(rows, periods, strict=True)]
    return sorted(current, key=lambda entry: (entry[0]["deadline_hour"], entry[0]["name"], entry[0]["id"]))


@procedures.implement(proto.TODAY)
async def today(node: Node, caller: Caller, data: proto.BoardInput) -> list[dict[str, Any]]:
    return [{**_period_view(row, period), "description": row["description"], "items": row["items"],
             "isCompleted": completed}
            for row, period, completed in await _current(node, caller, data.boardId) if _applies(row, caller)]


@procedures.implement(proto.MISSED)
async def missed(node: Node, caller: Caller, data: proto.BoardInput) -> list[dict[str, Any]]:
    """Every active template of the board (whoever it applies to) whose deadline hour the current UTC hour is
    beyond and whose current period has no completion."""
    hour = node.clock.now().astimezone(UTC).hour
    return [{**_period_view(row, period), "assigneeIds": list(row["assignee_ids"])}
            for row, period, completed in await _current(node, caller, data.boardId)
            if not completed and hour > row["deadline_hour"]]


def _responses(row: Mapping[str, Any], responses: Sequence[proto.Response]) -> list[dict[str, Any]]:
    """The responses as stored; every one must name an item of the template once, and every required item
    must be checked."""
    items = {item["id"] for item in row["items"]}
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, response in enumerate(responses):
        if response.itemId not in items:
            errors.append(FieldError(f"responses.{index}.itemId", "is not an item of this checklist"))
        elif response.itemId in seen:
            errors.append(FieldError(f"responses.{index}.itemId", "is answered twice"))
        seen.add(response.itemId)
    checked = {response.itemId for response in responses if response.checked}
    missing = [item for item in row["items"] if item["required"] and item["id"] not in checked]
    errors += [FieldError("responses", f"required item {item['id']} ({item['text']}) must be checked")
               for item in missing]
    if errors:
        raise ValidationFailed.naming(errors, data={"missingItemIds": [item["id"] for item in missing]})
    return [{"itemId": r.itemId, "checked": r.checked, "comment": r.comment} for r in responses]


@procedures.implement(proto.COMPLETE)
async def complete(node: Node, caller: Caller, data: proto.CompleteInput) -> dict[str, Any]:
    await _checklist(node, caller, data.checklistId)
    async with node.write(caller) as uow:
        conn, now = uow.conn, uow.now
        # Shared lock: the template cannot change or go away until this completion is committed.
        row = await repo.get(conn, caller.org_id, data.checklistId, share_lock=True)
        if row is None:
            raise NotFound("checklist not found")
        if not _applies(row, caller):
            raise Forbidden("this checklist is assigned to other people")
        if not row["is_active"]:
            raise BadRequest("the checklist is inactive",
                             details=[FieldError("checklistId", "the checklist is inactive")])
        responses = _responses(row, data.responses)
        period = current_period(row["frequency"], now)
        stored = await repo.insert_completion(
            conn, completion_id=new_id(Prefix.STANDARD_WORK_COMPLETION), org_id=caller.org_id, checklist_id=row["id"],
            frequency=row["frequency"], period_start=period.start, completed_by=caller.uid, completed_at=now,
            responses=responses)
        if stored is None:
            raise Conflict("the checklist is already completed for this period",
                           data={"periodStart": iso(period.start), "periodEnd": iso(period.end)})
        view = completion_view(stored)
        await uow.activity("checklist", row["id"], "checklist.completed",
                           {**_audit(row), "completionId": view["id"], "date": view["date"]})
        uow.emit(board_stream(row["board_id"]), "checklist.completed",
                 {"checklist": {"id": row["id"], "name": row["name"], "boardId": row["board_id"],
                                "frequency": row["frequency"]}, "completion": view})
    return view


@procedures.implement(proto.HISTORY)
async def history(node: Node, caller: Caller, data: proto.HistoryInput) -> dict[str, Any]:
    limit = page_limit(data.limit)
    offset = page_offset(data.offset)
    _check_range(data.startDate, data.endDate)
    await _checklist(node, caller, data.checklistId)
    async with node.pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        total = await repo.count_completions(conn, caller.org_id, data.checklistId, start=data.startDate,
                                             end=data.endDate)
        rows = await repo.completions(conn, caller.org_id, data.checklistId, start=data.startDate,
                                      end=data.endDate, limit=limit, offset=offset)
    return {"items": [completion_view(row) for row in rows], "total": total,
            "hasMore": offset + len(rows) < total}


@procedures.implement(proto.RATE)
async def completion_rate(node: Node, caller: Caller, data: proto.RateInput) -> dict[str, Any]:
    """Completions made in the range (UTC days, both ends inclusive) against the count the frequency expects."""
    _check_range(data.startDate, data.endDate)
    row = await _checklist(node, caller, data.checklistId)
    expected = expected_completions(row["frequency"], (data.endDate - data.startDate).days + 1)
    completed = await repo.count_completions(node.pool, caller.org_id, row["id"], start=data.startDate,
                                             end=data.endDate)
    return {"checklistId": row["id"], "checklistName": row["name"], "frequency": row["frequency"],
            "startDate": data.startDate.isoformat(), "endDate": data.endDate.isoformat(), "expected": expected,
            "completed": completed, "rate": min(100.0, round(100 * completed / expected, 1))}
