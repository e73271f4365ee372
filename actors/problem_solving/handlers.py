"""Problem-solving sheets: create, update, delete, read and list a board's five whys,
Ishikawa and 5W2H sheets, move them through draft, in_progress, completed and reviewed, and link one to an
action as its root-cause analysis. A sheet belongs to a board the caller can see. Every operation, reads
included, is written to the activity trail; sheets emit no events (none is in the spec's list)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import asyncpg

from actors.kernel.access import on_visible_board, require_board_access, sees_board
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import problem_solving as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, NotFound
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import page_limit, page_offset
from storage import actions as actions_repo
from storage import problem_sheets as repo

procedures = Implementations()

ENTITY = "problem_sheet"


def sheet_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "type": row["type"], "status": row["status"],
            "data": row["data"], "boardId": row["board_id"], "actionId": row["action_id"],
            "createdById": row["created_by_id"], "reviewedById": row["reviewed_by_id"],
            "reviewedAt": iso(row["reviewed_at"]), "reviewComment": row["review_comment"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


async def visible_sheet(node: Node, caller: Caller, sheet_id: str) -> asyncpg.Record:
    """The sheet if it is in the caller's organization on a board the caller can see, else NotFound."""
    return await on_visible_board(node, caller, await repo.get(node.pool, caller.org_id, sheet_id),
                                  "problem sheet not found")


async def _visible_action(node: Node, caller: Caller, action_id: str) -> None:
    """NotFound naming the action unless it is in the caller's organization on a board the caller can see."""
    action = await actions_repo.get(node.pool, caller.org_id, action_id)
    if action is None or not await sees_board(node, caller, action["board_id"]):
        raise NotFound("action not found", details=[FieldError("actionId", "no such action")])


def _audit(row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {"boardId": row["board_id"], "title": row["title"], "type": row["type"], "status": row["status"],
            **extra}


async def _change(node: Node, caller: Caller, before: Mapping[str, Any], changes: dict[str, Any], action: str, *,
                  from_statuses: Sequence[str] | None = None, **audit: Any) -> dict[str, Any]:
    """Apply `changes` to a visible sheet and write the trail entry in one transaction. With `from_statuses`
    the sheet must be in one of them when the change commits (else 400 naming its current status)."""
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.update(conn, caller.org_id, before["id"], changes, node.clock.now(),
                                from_statuses=from_statuses)
        if row is None:
            current = await repo.get(conn, caller.org_id, before["id"])
            if current is None:
                raise NotFound("problem sheet not found")
            allowed = " or ".join(from_statuses or ())
            raise BadRequest(f"the sheet is {current['status']}; only a {allowed} sheet can be {action}",
                             data={"currentStatus": current["status"]})
        await uow.activity(ENTITY, row["id"], f"problem_sheet.{action}",
                           _audit(row, **audit))
    return sheet_view(row)


@procedures.implement(proto.CREATE)
async def create(node: Node, caller: Caller, data: proto.CreateInput) -> dict[str, Any]:
    shaped = proto.check_data(data.type, data.data)
    await require_board_access(node, caller, data.boardId)
    # A foreign-key violation: the board was deleted since the (cached) access check.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        row = await repo.insert(uow.conn, sheet_id=new_id(Prefix.PROBLEM_SHEET), org_id=caller.org_id,
                                board_id=data.boardId, title=data.title, sheet_type=data.type, data=shaped,
                                created_by=caller.uid, now=uow.now)
        await uow.activity(ENTITY, row["id"], "problem_sheet.created", _audit(row))
    return sheet_view(row)


@procedures.implement(proto.UPDATE)
async def update(node: Node, caller: Caller, data: proto.UpdateInput) -> dict[str, Any]:
    before = await visible_sheet(node, caller, data.id)
    changes: dict[str, Any] = {}
    if data.title is not None:
        changes["title"] = data.title
    if data.data is not None:
        changes["data"] = proto.check_data(before["type"], data.data)
    if not changes:
        raise BadRequest("nothing to change", details=[FieldError("input", "give a title or data")])
    return await _change(node, caller, before, changes, "updated", changed=sorted(changes))


@procedures.implement(proto.DELETE)
async def delete(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    await visible_sheet(node, caller, data.id)
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.get(conn, caller.org_id, data.id, lock=True)
        if row is None:
            raise NotFound("problem sheet not found")
        await _unlink_action(conn, caller, row["action_id"], data.id, node.clock.now())
        await repo.delete(conn, caller.org_id, data.id)
        await uow.activity(ENTITY, data.id, "problem_sheet.deleted",
                           _audit(row, actionId=row["action_id"]))
    return {"success": True, "id": data.id}


@procedures.implement(proto.GET)
async def get_by_id(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await visible_sheet(node, caller, data.id)
    async with node.write(caller) as uow:
        await uow.activity(ENTITY, row["id"], "problem_sheet.viewed",
                           _audit(row))
    return sheet_view(row)


@procedures.implement(proto.LIST)
async def list_sheets(node: Node, caller: Caller, data: proto.ListInput) -> dict[str, Any]:
    limit = page_limit(data.limit)
    offset = page_offset(data.offset)
    await require_board_access(node, caller, data.boardId)
    filters = {"action_id": data.actionId, "type": data.type, "status": data.status}
    rows, total = await repo.page(node.pool, caller.org_id, data.boardId, limit=limit, offset=offset,
                                  filters=filters)
    async with node.write(caller) as uow:
        await uow.activity("board", data.boardId, "problem_sheet.listed",
                           {"filters": {k: v for k, v in filters.items() if v is not None}, "total": total})
    return {"items": [sheet_view(row) for row in rows], "total": total, "hasMore": offset + len(rows) < total}


@procedures.implement(proto.BY_ACTION)
async def get_by_action(node: Node, caller: Caller, data: proto.ByActionInput) -> list[dict[str, Any]]:
    """The linked sheets the caller may see (a sheet may sit on another board than its action)."""
    await _visible_action(node, caller, data.actionId)
    rows = await repo.for_action(node.pool, caller.org_id, data.actionId)
    visible = [sheet_view(row) for row in rows if await sees_board(node, caller, row["board_id"])]
    async with node.write(caller) as uow:
        await uow.activity("action", data.actionId, "problem_sheet.listed",
                           {"count": len(visible)})
    return visible


@procedures.implement(proto.UPDATE_STATUS)
async def update_status(node: Node, caller: Caller, data: proto.StatusInput) -> dict[str, Any]:
    """Any status may be set. The review fields describe the current review: moving to reviewed
    records the caller and the time, moving anywhere else clears them (the trail keeps the history)."""
    before = await visible_sheet(node, caller, data.id)
    reviewed = data.status == "reviewed"
    changes: dict[str, Any] = {"status": data.status}
    if not (reviewed and before["status"] == "reviewed"):
        changes |= {"reviewed_by_id": caller.uid if reviewed else None,
                    "reviewed_at": node.clock.now() if reviewed else None, "review_comment": None}
    return await _change(node, caller, before, changes, "status_changed", **{"from": before["status"]})


@procedures.implement(proto.SUBMIT)
async def submit(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    before = await visible_sheet(node, caller, data.id)
    return await _change(node, caller, before, {"status": "completed"}, "submitted",
                         from_statuses=proto.SUBMITTABLE)


@procedures.implement(proto.REVIEW)
async def review(node: Node, caller: Caller, data: proto.ReviewInput) -> dict[str, Any]:
    before = await visible_sheet(node, caller, data.id)
    changes = {"status": "reviewed", "reviewed_by_id": caller.uid, "reviewed_at": node.clock.now(),
               "review_comment": data.comment}
    return await _change(node, caller, before, changes, "reviewed", from_statuses=proto.REVIEWABLE,
                         comment=data.comment)


async def _unlink_action(conn: asyncpg.Connection, caller: Caller, action_id: str | None, sheet_id: str,
                        now: datetime) -> None:
    """Clear the action's rootCauseId if it still names the sheet (the sheet leaves it or is deleted)."""
    if action_id is None:
        return
    action = await actions_repo.get(conn, caller.org_id, action_id, lock=True)
    if action is not None and action["root_cause_id"] == sheet_id:
        await actions_repo.set_root_cause(conn, caller.org_id, action_id, None, now=now)


@procedures.implement(proto.LINK)
async def link_to_root_cause(node: Node, caller: Caller, data: proto.LinkInput) -> dict[str, Any]:
    """The sheet names the action and the action's rootCauseId names the sheet, both or neither. An action the
    sheet was linked to before stops naming it."""
    await visible_sheet(node, caller, data.sheetId)
    await _visible_action(node, caller, data.actionId)
    now = node.clock.now()
    async with node.write(caller) as uow:
        conn = uow.conn
        before = await repo.get(conn, caller.org_id, data.sheetId, lock=True)
        if before is None:
            raise NotFound("problem sheet not found")
        if not await actions_repo.set_root_cause(conn, caller.org_id, data.actionId, data.sheetId, now=now):
            raise NotFound("action not found", details=[FieldError("actionId", "no such action")])
        if before["action_id"] != data.actionId:
            await _unlink_action(conn, caller, before["action_id"], data.sheetId, now)
        row = await repo.update(conn, caller.org_id, data.sheetId, {"action_id": data.actionId}, now)
        assert row is not None  # locked above
        await uow.activity(ENTITY, row["id"], "problem_sheet.linked",
                           _audit(row, actionId=data.actionId, previousActionId=before["action_id"]))
    return sheet_view(row)
