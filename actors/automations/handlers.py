"""Automation rules: list, create, update, delete, toggle, runNow, and the two views of
their execution records (a board's history and one rule's log). A rule belongs to a board the caller can
see; the plan's `automations_per_board` caps how many a board may hold (403 at the cap). Running rules is
actors/automations/engine.py's work; this module keeps a rule's schedule (next cron firing, days
checked) and inbound secret in step with its trigger."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import msgspec
from croniter import croniter

from actors.automations.engine import forget_rules
from actors.automations.outbound import METHODS
from actors.automations.schedule import next_fire
from actors.delivery.webhooks import check_url
from actors.kernel.access import on_visible_board, require_board_access
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import actions as action_spec
from protocol import automations as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, page_limit
from protocol.plans import plan
from protocol.registry import Role
from storage import automation_jobs as jobs
from storage import automations as repo
from storage import kpis as kpi_repo

procedures = Implementations()

HISTORY_MAX_LIMIT = 100
MAX_OFFSET_DAYS = 365
MAX_DUE_DAYS = 365


def inbound_url(node: Node, slug: str, automation_id: str) -> str:
    """Where a webhook.received rule's external webhooks go (docs/decisions.md "Inbound webhooks")."""
    return f"{node.base_url(slug)}/api/v1/automations/{automation_id}/webhook"


def _webhook_seen_by_guest(action: dict[str, Any]) -> dict[str, Any]:
    """A call_webhook as one who may not change rules sees it: where it goes (scheme, host and port) and which
    headers it sends, not the URL's path, query or user part nor the headers' values, which often are the
    receiver's credentials (a Slack hook's path, an Authorization header)."""
    if action.get("type") != "call_webhook" or not isinstance(action.get("config"), dict):
        return action
    config = dict(action["config"])
    if isinstance(config.get("url"), str):
        try:
            url = urlsplit(config["url"])
            port = f":{url.port}" if url.port is not None else ""
        except ValueError:  # a URL with template variables in its port, say
            url, port = urlsplit(""), ""
        config["url"] = f"{url.scheme}://{url.hostname}{port}" if url.hostname else None
    if isinstance(config.get("headers"), dict):
        config["headers"] = dict.fromkeys(config["headers"])
    return {**action, "config": config}


def automation_view(node: Node, caller: Caller, row: Mapping[str, Any]) -> dict[str, Any]:
    may_edit = caller.role is not None and caller.role >= Role.MEMBER
    actions = row["actions"] if may_edit else [_webhook_seen_by_guest(action) for action in row["actions"]]
    view = {"id": row["id"], "boardId": row["board_id"], "name": row["name"], "enabled": row["enabled"],
            "trigger": row["trigger"], "conditions": row["conditions"], "actions": actions,
            "executionCount": row["execution_count"], "lastExecutedAt": iso(row["last_executed_at"]),
            "createdBy": row["created_by"], "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}
    if row["trigger"]["type"] == "recurring":
        view["nextRunAt"] = iso(row["next_fire_at"])
    if row["trigger"]["type"] == "webhook.received" and caller.organization is not None:
        # The secret lets anyone run the rule: shown to those who may change rules anyway, not to guests.
        view["inbound"] = {"url": inbound_url(node, caller.organization.slug, row["id"]),
                           "secret": row["hook_secret"] if may_edit else None}
    return view


def execution_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """The history and by-id view of a run."""
    return {"id": row["id"], "automationRuleId": row["automation_id"], "boardId": row["board_id"],
            "organizationId": row["organization_id"], "status": row["status"],
            "triggerType": row["trigger_type"], "itemId": row["item_id"],
            "conditionResults": row["condition_results"], "actionResults": row["action_results"],
            "executedAt": iso(row["executed_at"]), "duration": row["duration_ms"], "error": row["error"]}


def log_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """The per-automation log view of a run."""
    return {"id": row["id"], "automationId": row["automation_id"], "status": row["status"],
            "triggeredBy": {"type": row["trigger_type"], "itemId": row["item_id"], "userId": row["user_id"]},
            "actionsExecuted": sum(1 for result in row["action_results"] if result.get("success")),
            "duration": row["duration_ms"], "executedAt": iso(row["executed_at"])}


def _require_config(prefix: str, config: dict[str, Any], keys: Sequence[str]) -> None:
    missing = [key for key in keys if config.get(key) in (None, "", [])]
    if missing:
        details = [FieldError(f"{prefix}config.{key}", "is required") for key in missing]
        raise ValidationFailed.naming(details)


def _check_trigger(trigger: proto.Trigger) -> None:
    _require_config("trigger.", trigger.config, proto.TRIGGER_REQUIRES.get(trigger.type, ()))
    config = trigger.config
    if trigger.type == "recurring" and not (isinstance(config["cron"], str) and croniter.is_valid(config["cron"])):
        raise ValidationFailed.of("trigger.config.cron", "must be a cron expression of five fields (UTC)")
    offset = config.get("offsetDays")
    if trigger.type == "date.arrived" and offset is not None and (
            not isinstance(offset, int) or isinstance(offset, bool) or abs(offset) > MAX_OFFSET_DAYS):
        raise ValidationFailed.of("trigger.config.offsetDays", f"must be a whole number from -{MAX_OFFSET_DAYS} to "
                       f"{MAX_OFFSET_DAYS}")
    if trigger.type == proto.KPI_TRIGGER:
        if config.get("threshold", proto.KPI_THRESHOLDS[0]) not in proto.KPI_THRESHOLDS:
            raise ValidationFailed.of("trigger.config.threshold", f"must be one of {', '.join(proto.KPI_THRESHOLDS)}")
        kpi_id = config.get("kpiId")
        if kpi_id is not None and not (isinstance(kpi_id, str) and kpi_id):
            raise ValidationFailed.of("trigger.config.kpiId", "must be the id of a KPI of the board")


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_create_action(config: dict[str, Any], field: str) -> None:
    """create_action's config: `title` (a text, `{kpi.name}` and the other template variables allowed),
    optional `priority`, `assigneeId` and `dueInDays`."""
    title = config["title"]
    if not isinstance(title, str) or not title.strip() or len(title) > 500:
        raise ValidationFailed.of(f"{field}.title", "must be a text of 1 to 500 characters")
    if config.get("priority") is not None and config["priority"] not in action_spec.PRIORITIES:
        raise ValidationFailed.of(f"{field}.priority", f"must be one of {', '.join(action_spec.PRIORITIES)}")
    if config.get("assigneeId") is not None and not (isinstance(config["assigneeId"], str) and config["assigneeId"]):
        raise ValidationFailed.of(f"{field}.assigneeId", "must be a user id")
    if config.get("dueInDays") is not None and not _whole(config["dueInDays"], 0, MAX_DUE_DAYS):
        raise ValidationFailed.of(f"{field}.dueInDays", f"must be a whole number from 0 to {MAX_DUE_DAYS}")


def check_fit(trigger: Mapping[str, Any], conditions: Sequence[Mapping[str, Any]],
               actions: Sequence[Mapping[str, Any]]) -> None:
    """A KPI trigger's run has no item: no conditions on item values, no actions on the item (also what
    templates.apply checks of a template's rules before building anything)."""
    if trigger["type"] != proto.KPI_TRIGGER:
        return
    for index, action in enumerate(actions):
        if action["type"] in proto.ITEM_ACTIONS:
            raise ValidationFailed.of(f"actions.{index}.type", f"{action['type']} acts on the triggering item, and "
                                      f"a {proto.KPI_TRIGGER} run has none")
    if conditions:
        raise ValidationFailed.of("conditions", f"must be empty: conditions test an item, and a {proto.KPI_TRIGGER} "
                                  "run has none")


async def _check_kpi(node: Node, caller: Caller, trigger: Mapping[str, Any], board_id: str) -> None:
    kpi_id = (trigger.get("config") or {}).get("kpiId")
    if trigger["type"] == proto.KPI_TRIGGER and kpi_id is not None and (
            await kpi_repo.board_of(node.pool, caller.org_id, kpi_id) != board_id):
        raise ValidationFailed.of("trigger.config.kpiId", "must be the id of a KPI of the board")


async def check_action(node: Node, action_type: str, config: dict[str, Any], prefix: str = "") -> None:
    """An action's config as an automation takes it: each type's required keys, a webhook's method and URL
    (the outbound-address rules); ValidationFailed naming `{prefix}config.<key>` otherwise. Approval flows'
    action nodes are checked by this too (actors/approvals/handlers.py)."""
    field = f"{prefix}config"
    _require_config(prefix, config, proto.ACTION_REQUIRES.get(action_type, ()))
    if action_type == "create_action":
        _check_create_action(config, field)
    if action_type != "call_webhook":
        return
    method, url = config["method"], config["url"]
    if not isinstance(method, str) or method.upper() not in METHODS:
        raise ValidationFailed.of(f"{field}.method", f"must be one of {', '.join(sorted(METHODS))}")
    if not isinstance(url, str):
        raise ValidationFailed.of(f"{field}.url", "must be a URL")
    if "{" not in url:  # a URL with template variables is checked when it is called
        await check_url(node, url, f"{field}.url")


async def _check_definition(node: Node, trigger: proto.Trigger | None, actions: Sequence[proto.Action] | None) -> None:
    """Each type's required config keys (protocol/automations.py), a cron expression, an offset, a webhook's URL
    and method: named by field when wrong."""
    if trigger is not None:
        _check_trigger(trigger)
    for index, action in enumerate(actions or ()):
        await check_action(node, action.type, action.config, f"actions.{index}.")


def _schedule(trigger: dict[str, Any], now: datetime, secret: str | None) -> dict[str, Any]:
    """The scheduling columns a rule with this trigger starts (or starts again) with: its next cron firing,
    no day checked yet, an inbound secret (kept when it had one)."""
    kind = trigger["type"]
    return {"next_fire_at": next_fire(trigger["config"]["cron"], now) if kind == "recurring" else None,
            "checked_through": None,
            "hook_secret": (secret or "ahs_" + secrets.token_urlsafe(32)) if kind == "webhook.received" else None}


async def _rule(node: Node, caller: Caller, automation_id: str) -> asyncpg.Record:
    """The rule if it is in the caller's organization on a board the caller can see, else NotFound."""
    return await on_visible_board(node, caller, await repo.get(node.pool, caller.org_id, automation_id),
                                  "automation not found")


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"boardId": row["board_id"], "name": row["name"], "enabled": row["enabled"],
            "trigger": row["trigger"]["type"]}


@procedures.implement(proto.LIST)
async def list_automations(node: Node, caller: Caller, data: proto.BoardInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    rows = await repo.list_for_board(node.pool, caller.org_id, data.boardId)
    return {"automations": [automation_view(node, caller, row) for row in rows]}


@procedures.implement(proto.CREATE)
async def create(node: Node, caller: Caller, data: proto.CreateInput) -> dict[str, Any]:
    await _check_definition(node, data.trigger, data.actions)
    trigger = msgspec.to_builtins(data.trigger)
    check_fit(trigger, msgspec.to_builtins(data.conditions), msgspec.to_builtins(data.actions))
    await require_board_access(node, caller, data.boardId)
    await _check_kpi(node, caller, trigger, data.boardId)
    assert caller.organization is not None
    limit = plan(caller.organization.plan).automations_per_board
    schedule = _schedule(trigger, node.clock.now(), None)
    async with node.write(caller) as uow:
        conn = uow.conn
        await repo.lock_board(conn, data.boardId)
        if limit is not None and await repo.count_for_board(conn, caller.org_id, data.boardId) >= limit:
            raise Forbidden(f"the {caller.organization.plan} plan allows {limit} automations per board")
        row = await repo.insert(conn, automation_id=new_id(Prefix.AUTOMATION), org_id=caller.org_id,
                                board_id=data.boardId, name=data.name, enabled=data.enabled, trigger=trigger,
                                conditions=msgspec.to_builtins(data.conditions),
                                actions=msgspec.to_builtins(data.actions), created_by=caller.uid, now=node.clock.now(),
                                next_fire_at=schedule["next_fire_at"], hook_secret=schedule["hook_secret"])
        await uow.activity("automation", row["id"], "automation.created",
                           _audit(row))
    forget_rules(node, caller.org_id, data.boardId)
    return automation_view(node, caller, row)


async def _change(node: Node, caller: Caller, automation_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Apply `changes`. A rule enabled again or given a new trigger starts afresh: it runs on events from
    now on, its cron counts from now, its date days are checked from today."""
    before = await _rule(node, caller, automation_id)
    restarted = ("trigger" in changes or (changes.get("enabled") is True and not before["enabled"]))
    if restarted:
        changes = {**changes, **_schedule(changes.get("trigger", before["trigger"]), node.clock.now(),
                                          before["hook_secret"])}
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.update(conn, caller.org_id, automation_id, changes, node.clock.now(), rearm=restarted)
        if row is None:
            raise NotFound("automation not found")
        await uow.activity("automation", automation_id, "automation.updated",
                           {**_audit(row), "changed": sorted(set(changes) & set(proto.RULE_FIELDS))})
    forget_rules(node, caller.org_id, row["board_id"])
    return automation_view(node, caller, row)


@procedures.implement(proto.UPDATE)
async def update(node: Node, caller: Caller, data: proto.UpdateInput) -> dict[str, Any]:
    await _check_definition(node, data.trigger, data.actions)
    changes = {key: msgspec.to_builtins(value) for key in proto.RULE_FIELDS
               if (value := getattr(data, key)) is not None}
    if not changes:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    if {"trigger", "conditions", "actions"} & set(changes):
        before = await _rule(node, caller, data.id)
        rule = {key: changes.get(key, before[key]) for key in ("trigger", "conditions", "actions")}
        check_fit(rule["trigger"], rule["conditions"], rule["actions"])
        if "trigger" in changes:
            await _check_kpi(node, caller, rule["trigger"], before["board_id"])
    return await _change(node, caller, data.id, changes)


@procedures.implement(proto.TOGGLE)
async def toggle(node: Node, caller: Caller, data: proto.ToggleInput) -> dict[str, Any]:
    return await _change(node, caller, data.id, {"enabled": data.enabled})


@procedures.implement(proto.DELETE)
async def delete(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await _rule(node, caller, data.id)
    async with node.write(caller) as uow:
        conn = uow.conn
        if not await repo.delete(conn, caller.org_id, data.id):
            raise NotFound("automation not found")
        await uow.activity("automation", data.id, "automation.deleted",
                           _audit(row))
    forget_rules(node, caller.org_id, row["board_id"])
    return {"success": True, "id": data.id}


@procedures.implement(proto.RUN_NOW)
async def run_now(node: Node, caller: Caller, data: proto.RunNowInput) -> dict[str, Any]:
    """Queue one run per top-level item of the rule's board that is neither archived nor trashed (disabled
    rules too: running by hand is deliberate); the engine runs them in the background."""
    row = await _rule(node, caller, data.ruleId)
    if row["trigger"]["type"] == proto.KPI_TRIGGER:  # it would open one action per item, for no KPI
        raise ValidationFailed.of("ruleId", f"a {proto.KPI_TRIGGER} rule runs when a KPI breaches, not on items")
    async with node.write(caller) as uow:
        conn = uow.conn
        queued = await jobs.add_for_items(conn, org_id=caller.org_id, automation_id=row["id"],
                                          board_id=row["board_id"], trigger_type="manual",
                                          key=f"run:{new_id(Prefix.AUTOMATION_MANUAL_RUN)}", user_id=caller.uid,
                                          now=node.clock.now())
        await jobs.wake_engines(conn)
        await uow.activity("automation", row["id"], "automation.run_now",
                           {**_audit(row), "queued": queued})
    return {"executedCount": queued, "ruleId": row["id"], "ruleName": row["name"]}


def _time_cursor(cursor: str | None) -> datetime | None:
    """The history cursor is the ISO 8601 timestamp of the last run of the previous page."""
    if cursor is None or cursor == "":
        return None
    try:
        parsed = datetime.fromisoformat(cursor.replace("Z", "+00:00"))
        # In UTC, as the database takes it: a forged offset could put it outside the calendar (year 1 at +14:00).
        moment = parsed.astimezone(UTC) if parsed.tzinfo is not None else None
    except (ValueError, OverflowError):
        moment = None
    if moment is None:
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


@procedures.implement(proto.HISTORY)
async def history(node: Node, caller: Caller, data: proto.HistoryInput) -> Page:
    limit = page_limit(data.limit, maximum=HISTORY_MAX_LIMIT)
    before = _time_cursor(data.cursor)
    await require_board_access(node, caller, data.boardId)
    rows = await repo.executions(node.pool, caller.org_id, board_id=data.boardId, automation_id=data.ruleId,
                                 status=data.status, before=before, limit=limit + 1)
    return _page(rows, limit, execution_view, "items")


@procedures.implement(proto.LOG)
async def log(node: Node, caller: Caller, data: proto.LogInput) -> Page:
    limit = page_limit(data.limit, maximum=HISTORY_MAX_LIMIT)
    before = _time_cursor(data.cursor)
    await _rule(node, caller, data.automationId)
    rows = await repo.executions(node.pool, caller.org_id, automation_id=data.automationId, before=before,
                                 limit=limit + 1)
    return _page(rows, limit, log_view, "executions")


@procedures.implement(proto.EXECUTION)
async def execution(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await on_visible_board(node, caller, await repo.execution(node.pool, caller.org_id, data.id),
                                 "execution not found")
    return execution_view(row)
