"""Automation rules (domain 2.3, 4.3): list, create, update, delete, toggle, and the two views of their
execution records (a board's history and one rule's log). A rule belongs to a board the caller can see;
the plan's `automations_per_board` caps how many a board may hold (403 at the cap). Running rules is
actors/services/automation_engine.py's work."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from actors.env import Env
from actors.handlers import implement
from actors.services.access import require_board_access
from actors.services.automation_engine import forget_rules
from protocol import automations as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import iso, new_id
from protocol.pagination import Page, page_limit
from protocol.plans import plan
from storage import activity
from storage import automations as repo

HISTORY_MAX_LIMIT = 100


def automation_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "boardId": row["board_id"], "name": row["name"], "enabled": row["enabled"],
            "trigger": row["trigger"], "conditions": row["conditions"], "actions": row["actions"],
            "executionCount": row["execution_count"], "lastExecutedAt": iso(row["last_executed_at"]),
            "createdBy": row["created_by"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}


def execution_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """The history and by-id view of a run (domain 2.3)."""
    return {"id": row["id"], "automationRuleId": row["automation_id"], "boardId": row["board_id"],
            "organizationId": row["organization_id"], "status": row["status"],
            "triggerType": row["trigger_type"], "itemId": row["item_id"],
            "conditionResults": row["condition_results"], "actionResults": row["action_results"],
            "executedAt": iso(row["executed_at"]), "duration": row["duration_ms"], "error": row["error"]}


def log_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """The per-automation log view of a run (domain 2.3)."""
    return {"id": row["id"], "automationId": row["automation_id"], "status": row["status"],
            "triggeredBy": {"type": row["trigger_type"], "itemId": row["item_id"], "userId": row["user_id"]},
            "actionsExecuted": sum(1 for result in row["action_results"] if result.get("success")),
            "duration": row["duration_ms"], "executedAt": iso(row["executed_at"])}


def _require_config(field: str, config: dict[str, Any], keys: Sequence[str]) -> None:
    missing = [key for key in keys if config.get(key) in (None, "", [])]
    if missing:
        details = [FieldError(f"{field}.config.{key}", "is required") for key in missing]
        raise ValidationFailed("; ".join(f"{d.field}: {d.message}" for d in details), details=details)


def _check_definition(trigger: proto.Trigger | None, actions: Sequence[proto.Action] | None) -> None:
    """Each type's required config keys (domain 4.3 tables), named by field when missing."""
    if trigger is not None:
        _require_config("trigger", trigger.config, proto.TRIGGER_REQUIRES.get(trigger.type, ()))
    for index, action in enumerate(actions or ()):
        _require_config(f"actions.{index}", action.config, proto.ACTION_REQUIRES.get(action.type, ()))


async def _rule(env: Env, caller: Caller, automation_id: str) -> asyncpg.Record:
    """The rule if it is in the caller's organization on a board the caller can see, else NotFound."""
    row = await repo.get(env.pool, caller.org_id, automation_id)
    if row is None:
        raise NotFound("automation not found")
    try:
        await require_board_access(env, caller, row["board_id"])
    except NotFound:
        raise NotFound("automation not found") from None
    return row


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"boardId": row["board_id"], "name": row["name"], "enabled": row["enabled"],
            "trigger": row["trigger"]["type"]}


@implement(proto.LIST)
async def list_automations(env: Env, caller: Caller, data: proto.BoardInput) -> dict[str, Any]:
    await require_board_access(env, caller, data.boardId)
    rows = await repo.list_for_board(env.pool, caller.org_id, data.boardId)
    return {"automations": [automation_view(row) for row in rows]}


@implement(proto.CREATE)
async def create(env: Env, caller: Caller, data: proto.CreateInput) -> dict[str, Any]:
    _check_definition(data.trigger, data.actions)
    await require_board_access(env, caller, data.boardId)
    assert caller.organization is not None
    limit = plan(caller.organization.plan).automations_per_board
    async with env.pool.acquire() as conn, conn.transaction():
        await repo.lock_board(conn, data.boardId)
        if limit is not None and await repo.count_for_board(conn, caller.org_id, data.boardId) >= limit:
            raise Forbidden(f"the {caller.organization.plan} plan allows {limit} automations per board")
        row = await repo.insert(conn, automation_id=new_id("aut"), org_id=caller.org_id, board_id=data.boardId,
                                name=data.name, enabled=data.enabled, trigger=msgspec.to_builtins(data.trigger),
                                conditions=msgspec.to_builtins(data.conditions),
                                actions=msgspec.to_builtins(data.actions), created_by=caller.uid,
                                now=env.clock.now())
        await activity.record(conn, caller.org_id, caller.uid, "automation", row["id"], "automation.created",
                              _audit(row))
    forget_rules(caller.org_id, data.boardId)
    return automation_view(row)


async def _change(env: Env, caller: Caller, automation_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    await _rule(env, caller, automation_id)
    async with env.pool.acquire() as conn, conn.transaction():
        row = await repo.update(conn, caller.org_id, automation_id, changes, env.clock.now())
        if row is None:
            raise NotFound("automation not found")
        await activity.record(conn, caller.org_id, caller.uid, "automation", automation_id, "automation.updated",
                              {**_audit(row), "changed": sorted(changes)})
    forget_rules(caller.org_id, row["board_id"])
    return automation_view(row)


@implement(proto.UPDATE)
async def update(env: Env, caller: Caller, data: proto.UpdateInput) -> dict[str, Any]:
    _check_definition(data.trigger, data.actions)
    changes = {key: msgspec.to_builtins(value) for key in ("name", "enabled", "trigger", "conditions", "actions")
               if (value := getattr(data, key)) is not None}
    if not changes:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    return await _change(env, caller, data.id, changes)


@implement(proto.TOGGLE)
async def toggle(env: Env, caller: Caller, data: proto.ToggleInput) -> dict[str, Any]:
    return await _change(env, caller, data.id, {"enabled": data.enabled})


@implement(proto.DELETE)
async def delete(env: Env, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await _rule(env, caller, data.id)
    async with env.pool.acquire() as conn, conn.transaction():
        if not await repo.delete(conn, caller.org_id, data.id):
            raise NotFound("automation not found")
        await activity.record(conn, caller.org_id, caller.uid, "automation", data.id, "automation.deleted",
                              _audit(row))
    forget_rules(caller.org_id, row["board_id"])
    return {"success": True, "id": data.id}


def _time_cursor(cursor: str | None) -> datetime | None:
    """The history cursor is the ISO 8601 timestamp of the last run of the previous page (domain 4.3)."""
    if cursor is None or cursor == "":
        return None
    try:
        moment = datetime.fromisoformat(cursor.replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise BadRequest("cursor must be an ISO 8601 timestamp with a time zone",
                         details=[FieldError("cursor", "must be an ISO 8601 timestamp")])
    return moment


def _page(rows: list[asyncpg.Record], limit: int, view: Any, key: str) -> Page:
    """One page of runs from `limit + 1` rows. A page never ends inside a group of runs sharing one
    timestamp (the cursor is a bare timestamp): the group starts the next page instead."""
    cursor = None
    if len(rows) > limit:
        boundary = rows[limit]["executed_at"]
        cut = limit
        while cut > 0 and rows[cut - 1]["executed_at"] == boundary:
            cut -= 1
        rows = rows[:cut or limit]
        cursor = iso(rows[-1]["executed_at"])
    return Page([view(row) for row in rows], cursor, limit, key=key)


@implement(proto.HISTORY)
async def history(env: Env, caller: Caller, data: proto.HistoryInput) -> Page:
    limit = page_limit(data.limit, maximum=HISTORY_MAX_LIMIT)
    before = _time_cursor(data.cursor)
    await require_board_access(env, caller, data.boardId)
    rows = await repo.executions(env.pool, caller.org_id, board_id=data.boardId, automation_id=data.ruleId,
                                 status=data.status, before=before, limit=limit + 1)
    return _page(rows, limit, execution_view, "items")


@implement(proto.LOG)
async def log(env: Env, caller: Caller, data: proto.LogInput) -> Page:
    limit = page_limit(data.limit, maximum=HISTORY_MAX_LIMIT)
    before = _time_cursor(data.cursor)
    await _rule(env, caller, data.automationId)
    rows = await repo.executions(env.pool, caller.org_id, automation_id=data.automationId, before=before,
                                 limit=limit + 1)
    return _page(rows, limit, log_view, "executions")


@implement(proto.EXECUTION)
async def execution(env: Env, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await repo.execution(env.pool, caller.org_id, data.id)
    if row is None:
        raise NotFound("execution not found")
    try:
        await require_board_access(env, caller, row["board_id"])
    except NotFound:
        raise NotFound("execution not found") from None
    return execution_view(row)
