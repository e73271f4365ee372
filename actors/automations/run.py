"""One automation run: from a claimed job to its execution record. The trigger is checked
against the job's event (group, from/to values, all sub-items done), the conditions against the item, and
the actions are carried out as the rule's creator, texts with their template variables replaced. A
`kpi.threshold_breach` run has the KPI and the value of its `kpi.target_breached` event instead of an item
(`{kpi.name}`, `{kpi.value}` in texts), and its `create_action` opens a corrective action linked to that KPI.

Actions that change items call the item procedures' own implementations, so every change goes through
the board actor with the creator's access checks and `actor` in the events is the creator. The caller
carries the run's depth plus one (`data.automation` of the events it causes): a run at `MAX_DEPTH` does not
act, its record is a failure "cascade depth limit reached", so no loop of rules can run forever.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, timedelta
from typing import Any, TypeVar

import aiohttp
import asyncpg
import msgspec
import structlog

from actors.actions.handlers import create_action
from actors.automations import outbound
from actors.automations.conditions import condition_passes, plain, same
from actors.board.item_handlers import archive_item, create_item, get_item, move_item, set_value
from actors.kernel.app_links import item_url
from actors.kernel.handlers import Handler
from actors.kernel.membership_cache import org_members
from actors.kernel.node import Node
from protocol import actions as action_spec
from protocol import items as item_spec
from protocol.automations import ITEM_ACTIONS, KPI_THRESHOLDS, KPI_TRIGGER
from protocol.caller import AutomationRun, Caller, Organization
from protocol.errors import ApiError, Conflict, ServiceUnavailable
from protocol.ids import Prefix, new_id
from protocol.plans import plan
from protocol.registry import Role
from storage import automation_jobs as jobs
from storage import automations as repo
from storage import kpis as kpi_repo
from storage import organizations as members

log = structlog.get_logger("obeya.automations")

MAX_DEPTH = 3
T = TypeVar("T")
_VARIABLE = re.compile(r"\{(item\.name|item\.id|item\.url|board\.name|group\.name|user\.name|value\.old|"
                       r"value\.new|kpi\.name|kpi\.value)\}")
# create_action's defaults: the action is due this many days after the run, with this priority.
ACTION_DUE_DAYS = 7
ACTION_PRIORITY = "high"
MAX_DUE_DAYS = 365

# The database or the network is away, or a write collided with a concurrent one (the write path's typed
# 503 and 409): the job runs again when its lease ends.
INTERRUPTED = (OSError, asyncpg.PostgresError, ServiceUnavailable, Conflict)


class ActionFailed(Exception):
    """An action that could not be carried out; the message goes to the record's error."""


def _input(input_type: type[T], **fields: Any) -> T:
    """A procedure's input built from a rule's config (checked only for its keys when the rule was saved), checked
    here as a client's input is: a value of the wrong type fails the action saying why, alike on every node (on
    the node that owns the board, the input arrives decoded, and so checked, by its type)."""
    try:
        return msgspec.convert(fields, input_type)
    except msgspec.ValidationError as error:
        raise ActionFailed(str(error)) from None


def trigger_matches(trigger: dict[str, Any], data: dict[str, Any]) -> bool:
    """Whether an event's data meets the trigger's optional config (the job was made for its type)."""
    config = trigger.get("config") or {}
    kind = trigger["type"]
    if kind == "item.created":
        return config.get("groupId") in (None, data["item"].get("groupId"))
    if kind == "item.moved":
        origin, target = data.get("from") or {}, data.get("to") or {}
        return (config.get("fromGroupId") in (None, origin.get("groupId"))
                and config.get("toGroupId") in (None, target.get("groupId")))
    if kind == "value.changed":
        change = (data.get("changes") or {}).get(config.get("columnId"))
        return isinstance(change, dict) and (
            ("fromValue" not in config or same(change.get("old"), config["fromValue"]))
            and ("toValue" not in config or same(change.get("new"), config["toValue"])))
    if kind == KPI_TRIGGER:
        # `kpi.target_breached` is emitted when an alert of the value's colour is raised, once per breach: a
        # second red value while the red alert is open raises none (docs/decisions.md, "KPI triggers").
        return (config.get("kpiId") in (None, (data.get("kpi") or {}).get("id"))
                and (data.get("alert") or {}).get("threshold") == config.get("threshold", KPI_THRESHOLDS[0]))
    return True


def _is_done(values: dict[str, Any], done: set[tuple[str, str]]) -> bool:
    return any(isinstance(value, dict) and (column, value.get("id")) in done for column, value in values.items())


async def completed_parent(node: Node, board_id: str, data: dict[str, Any]) -> str | None:
    """For `subitems.completed`: the parent, when this update of a sub-item set a status column to a done
    label and every sub-item of that parent (not archived or trashed) is now done; else None."""
    item = data["item"]
    done = await repo.done_labels(node.pool, board_id)
    changes = data.get("changes") or {}
    made_done = any(isinstance(change, dict) and isinstance(change.get("new"), dict)
                    and (column, change["new"].get("id")) in done for column, change in changes.items())
    if not made_done:
        return None
    siblings = await repo.subitem_values(node.pool, board_id, item["parentId"])
    if siblings and all(_is_done(values, done) for values in siblings):
        return str(item["parentId"])
    return None


class Run:
    """One rule run for one job, ending in its execution record (written with the job marked done)."""

    def __init__(self, node: Node, session: aiohttp.ClientSession, rule: asyncpg.Record, job: asyncpg.Record,
                 item_id: str | None) -> None:
        self.node, self.session, self.rule, self.job = node, session, rule, job
        self.org_id, self.board_id, self.item_id = job["organization_id"], rule["board_id"], item_id
        self.depth: int = job["depth"]
        self.user_id: str | None = job["user_id"]
        data = (job["event"] or {}).get("data") or {}
        change = (data.get("changes") or {}).get((rule["trigger"].get("config") or {}).get("columnId"))
        self.change: dict[str, Any] = change if isinstance(change, dict) else {}
        # A KPI trigger's run: the KPI (id, name, category, unit) and the value recorded.
        self.kpi: dict[str, Any] | None = data.get("kpi") if job["trigger_type"] == KPI_TRIGGER else None
        self.kpi_value: dict[str, Any] = (data.get("value") or {}) if self.kpi is not None else {}
        self.started = time.monotonic()
        self.conditions: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []
        self.item: dict[str, Any] | None = None

    async def execute(self) -> None:
        if self.depth >= MAX_DEPTH:
            await self._record("failure", "cascade depth limit reached")
            return
        creator = self.rule["created_by"]
        member = await repo.acting_member(self.node.pool, self.org_id, creator) if creator else None
        if member is None:
            await self._record("failure", "the automation's creator is no longer an active member")
            return
        if "automations" not in plan(member["plan"]).features:
            await self._record("failure", f"the {member['plan']} plan does not include automations")
            return
        self.caller = Caller(request_id=f"automation:{self.rule['id']}",
                             organization=Organization(member["id"], member["slug"], member["name"], member["plan"]),
                             user_id=creator, user_email=member["email"], role=Role.parse(member["role"]),
                             automation=AutomationRun(self.rule["id"], self.depth + 1))
        self.slug = member["slug"]
        if self.item_id is not None:
            try:
                self.item = await self._call(get_item, item_spec.ItemIdInput(id=self.item_id))
            except ActionFailed as error:
                await self._record("failure", f"the item could not be read: {error}")
                return
        values = self.item["values"] if self.item else {}
        for condition in self.rule["conditions"]:
            passed = condition_passes(condition["operator"], values.get(condition["columnId"]),
                                      condition.get("value"))
            self.conditions.append({"field": condition["columnId"], "operator": condition["operator"],
                                    "value": condition.get("value"), "passed": passed})
        if not all(result["passed"] for result in self.conditions):
            await self._record("skipped", None)
            return
        self.names = await repo.names(self.node.pool, self.org_id, self.board_id,
                                      self.item["groupId"] if self.item else None, self.user_id)
        errors = []
        for action in self.rule["actions"]:
            try:
                await self._act(action["type"], action.get("config") or {})
                self.actions.append({"type": action["type"], "success": True})
            except ActionFailed as error:
                errors.append(f"{action['type']}: {error}")
                self.actions.append({"type": action["type"], "success": False, "error": str(error)})
            except INTERRUPTED:
                raise  # the database or network is away: the job runs again when its lease ends
            except Exception:  # a fault of ours: recorded, so the job does not come back every lease
                log.exception("automation_action_crashed", automation=self.rule["id"], action=action["type"])
                errors.append(f"{action['type']}: internal error")
                self.actions.append({"type": action["type"], "success": False, "error": "internal error"})
        status = "success" if not errors else "failure" if len(errors) == len(self.actions) else "partial_failure"
        await self._record(status, "; ".join(errors) or None)

    async def _record(self, status: str, error: str | None) -> None:
        async with self.node.pool.acquire() as conn, conn.transaction():
            await repo.record_execution(
                conn, execution_id=new_id(Prefix.AUTOMATION_EXECUTION), org_id=self.org_id,
                automation_id=self.rule["id"], board_id=self.board_id, status=status,
                trigger_type=self.job["trigger_type"],
                item_id=self.item_id, user_id=self.user_id, event_id=self.job["event_id"],
                condition_results=self.conditions, action_results=self.actions, error=error,
                duration_ms=round((time.monotonic() - self.started) * 1000), executed_at=self.node.clock.now())
            await jobs.finish(conn, self.job["id"])

    async def _call(self, handler: Handler, data: msgspec.Struct) -> Any:
        try:
            return await handler(self.node, self.caller, data)
        except ApiError as error:
            raise ActionFailed(error.message) from None

    def text(self, template: Any) -> Any:
        """An action text with its template variables replaced; in a list or an object, each
        text in it. Item variables are empty in a run without an item."""
        if isinstance(template, list):
            return [self.text(entry) for entry in template]
        if isinstance(template, dict):
            return {key: self.text(value) for key, value in template.items()}
        if not isinstance(template, str):
            return template
        item = self.item or {}
        link = item_url(self.node.base_url(self.slug), self.item_id) if self.item_id else None
        values = {"item.name": item.get("name"), "item.id": self.item_id, "item.url": link,
                  "board.name": self.names["board"], "group.name": self.names["group"],
                  "user.name": self.names["user"], "value.old": plain(self.change.get("old")),
                  "value.new": plain(self.change.get("new")), "kpi.name": (self.kpi or {}).get("name"),
                  "kpi.value": _figure(self.kpi_value.get("value"))}
        return _VARIABLE.sub(lambda match: "" if values[match[1]] is None else str(values[match[1]]), template)

    @property
    def _item_id(self) -> str:
        """The id of the run's item, for an item action (`_act` refuses those when the run has no item)."""
        assert self.item_id is not None
        return self.item_id

    async def _act(self, kind: str, config: dict[str, Any]) -> None:
        if kind in ITEM_ACTIONS and self.item is None:
            raise ActionFailed("this run has no item to act on")
        if kind in ("set_value", "assign_person"):
            value = self.text(config.get("value")) if kind == "set_value" else config.get("userIds")
            await self._call(set_value, _input(item_spec.SetValueInput, itemId=self._item_id,
                                               columnId=config["columnId"], value=value))
        elif kind == "move_item":
            await self._call(move_item, _input(item_spec.MoveItemInput, id=self._item_id,
                                               groupId=config["groupId"], boardId=config.get("boardId")))
        elif kind == "archive_item":
            await self._call(archive_item, item_spec.ItemIdInput(id=self._item_id))
        elif kind in ("create_item", "create_subitem"):
            await self._create(kind == "create_subitem", config)
        elif kind == "send_notification":
            await self._notify(config["userIds"], self.text(config["message"]))
        elif kind == "send_email":
            try:
                await outbound.send_email(self.node, self.org_id, self.text(config["to"]),
                                          self.text(config["subject"]), self.text(config["body"]))
            except outbound.OutboundFailed as error:
                raise ActionFailed(str(error)) from None
        elif kind == "call_webhook":
            await self._call_webhook(config)
        elif kind == "create_action":
            await self._create_action(config)
        else:
            raise ActionFailed(f"unknown action {kind}")

    async def _create(self, subitem: bool, config: dict[str, Any]) -> None:
        assert self.item is not None or not subitem
        await self._call(create_item, _input(
            item_spec.CreateItemInput, boardId=self.board_id if subitem else config["boardId"],
            groupId=self.item["groupId"] if subitem and self.item else config["groupId"],
            name=self.text(config["name"]), values=config.get("values") or {},
            parentId=self.item_id if subitem else None))

    async def _call_webhook(self, config: dict[str, Any]) -> None:
        headers = config.get("headers") or {}
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise ActionFailed("headers must be an object of texts")
        body = self.text(config["body"]) if config.get("body") is not None else {
            "automation": {"id": self.rule["id"], "name": self.rule["name"]},
            "board": {"id": self.board_id, "name": self.names["board"]},
            "trigger": self.job["trigger_type"], "item": self.item, "received": self.job["context"].get("body"),
            **({"kpi": self.kpi, "value": self.kpi_value} if self.kpi is not None else {})}
        try:
            await outbound.call_webhook(self.node, self.session, url=self.text(config["url"]),
                                        method=str(config["method"]).upper(), headers=self.text(headers),
                                        body=body)
        except outbound.OutboundFailed as error:
            raise ActionFailed(str(error)) from None

    async def _notify(self, user_ids: Any, message: str) -> None:
        members = await org_members(self.node, self.org_id)
        if not isinstance(user_ids, list) or not all(isinstance(u, str) and u in members for u in user_ids):
            raise ActionFailed("userIds must be members of the organization")
        async with self.node.write(self.caller, org_id=self.org_id) as uow:
            for user_id in dict.fromkeys(user_ids):
                await uow.notify(user_id, "automation", self.rule["name"], message,
                                 "item" if self.item_id else "board", self.item_id or self.board_id)

    async def _create_action(self, config: dict[str, Any]) -> None:
        """A corrective action on the rule's board (actions.create, actors/actions/handlers.create_action, as the
        rule's creator; due `dueInDays` after the run's UTC date, as actions judge overdue). In a KPI run it is
        linked to the KPI (`sourceType` kpi_breach, `sourceId` the KPI, the KPI's SQCDP category) and goes by
        default to the KPI's responsible user; otherwise, and when that user has left, to the rule's creator."""
        days = config.get("dueInDays", ACTION_DUE_DAYS)
        if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days <= MAX_DUE_DAYS:
            raise ActionFailed(f"dueInDays must be a whole number from 0 to {MAX_DUE_DAYS}")
        kpi = self.kpi or {}
        assignee = config.get("assigneeId") or await self._kpi_owner(kpi.get("id")) or self.caller.uid
        due = self.node.clock.now().astimezone(UTC).date() + timedelta(days=days)
        await self._call(create_action, _input(
            action_spec.CreateActionInput, boardId=self.board_id, title=str(self.text(config["title"]))[:500],
            priority=config.get("priority") or ACTION_PRIORITY, assigneeId=assignee, dueDate=due.isoformat(),
            description=self._breach(),
            sourceType="kpi_breach" if kpi else None, sourceId=kpi.get("id"), category=kpi.get("category")))

    async def _kpi_owner(self, kpi_id: str | None) -> str | None:
        """The KPI's responsible user while an active member of the organization."""
        row = await kpi_repo.get(self.node.pool, self.org_id, kpi_id) if kpi_id else None
        user_id = row["responsible_user_id"] if row is not None else None
        member = await members.member(self.node.pool, self.org_id, user_id) if user_id else None
        return user_id if member is not None and member["status"] == "active" else None

    def _breach(self) -> str | None:
        """What a KPI run's action says about the breach, as the breach notification says it."""
        if self.kpi is None:
            return None
        unit = f" {self.kpi['unit']}" if self.kpi.get("unit") else ""
        color = self.kpi_value.get("status")
        return (f"{_figure(self.kpi_value.get('value'))}{unit} was recorded for {self.kpi.get('name')}, in its "
                f"{color} threshold (automation \"{self.rule['name']}\").")


def _figure(value: Any) -> str | None:
    """A KPI value as people write it: 2.5, 98, 1e+06 (the breach notification's format)."""
    return f"{value:g}" if isinstance(value, int | float) else None
