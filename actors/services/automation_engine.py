"""Runs automations (domain 4.3) on board events: `item.created`, `item.moved`, `value.changed` (an
`item.updated` whose changes name the trigger's column). For each enabled rule of the event's board whose
trigger matches, it evaluates the conditions against the item, runs the actions as the rule's creator
and writes one execution record; records older than 30 days are purged.

Actions that change items call the item procedures' own implementations, so every change goes through
the board actor with the creator's access checks, and `actor` in the events is the creator.

Cascades: one worker per node takes events in order from a queue fed by the bus. Before it asks the board
for a change, nothing of that change can have been handled, so after the reply it records which event the
change will cause (stream, name, item id) with the depth of the run plus one; when that event is taken
from the queue it carries that depth (events of people are depth 0). A rule reached at depth
`MAX_DEPTH` does not run: its record is a failure "cascade depth limit reached". An expectation no event
came for (a change that changed nothing) is forgotten after `EXPECTATION_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import asyncpg
import msgspec
import structlog

from actors.board.routing import org_members
from actors.env import Env
from actors.events import emit, user_stream
from actors.handlers import HANDLERS
from actors.services.notifications import notify
from actors.ttl_cache import TtlCache
from protocol import items as item_spec
from protocol.caller import Caller, Organization
from protocol.errors import ApiError
from protocol.ids import new_id
from protocol.registry import Role
from storage import automations as repo
from storage.events import StoredEvent

log = structlog.get_logger("obeya.automations")

MAX_DEPTH = 3
EXPECTATION_SECONDS = 30.0
RETENTION = timedelta(days=30)
PURGE_EVERY_SECONDS = 3600.0
# Board event name -> the trigger types it may fire.
_TRIGGERS = {"item.created": "item.created", "item.moved": "item.moved", "item.updated": "value.changed"}
_VARIABLE = re.compile(r"\{(item\.name|item\.id|item\.url|board\.name|group\.name|user\.name|value\.old|"
                       r"value\.new)\}")

Key = tuple[str, str, str]


class ActionFailed(Exception):
    """An action that could not be carried out; the message goes to the record's error."""


def plain(value: Any) -> Any:
    """A value as rules compare it: a status is its label."""
    return value.get("label") if isinstance(value, dict) and "label" in value else value


def same(value: Any, expected: Any) -> bool:
    return value == expected or plain(value) == expected


def _number(value: Any) -> float | None:
    try:
        return float(plain(value))
    except (TypeError, ValueError):
        return None


def condition_passes(operator: str, actual: Any, expected: Any) -> bool:
    """The operators of docs/decisions.md "Automation conditions"."""
    value = plain(actual)
    if operator in ("is", "equals"):
        return same(actual, expected)
    if operator == "is_not":
        return not same(actual, expected)
    if operator in ("contains", "not_contains"):
        if isinstance(value, list):
            found = expected in value
        else:
            found = value is not None and str(expected).lower() in str(value).lower()
        return found if operator == "contains" else not found
    if operator in ("gt", "lt"):
        left, right = _number(actual), _number(expected)
        if left is None or right is None:
            return False
        return left > right if operator == "gt" else left < right
    empty = value in (None, "", [], {})
    return empty if operator == "is_empty" else not empty


def trigger_matches(trigger: dict[str, Any], event: StoredEvent) -> bool:
    config = trigger.get("config") or {}
    data = event.payload["data"]
    if trigger["type"] == "item.created":
        return config.get("groupId") in (None, data["item"].get("groupId"))
    if trigger["type"] == "item.moved":
        origin, target = data.get("from") or {}, data.get("to") or {}
        return (config.get("fromGroupId") in (None, origin.get("groupId"))
                and config.get("toGroupId") in (None, target.get("groupId")))
    change = (data.get("changes") or {}).get(config.get("columnId"))
    if not isinstance(change, dict):
        return False
    return (("fromValue" not in config or same(change.get("old"), config["fromValue"]))
            and ("toValue" not in config or same(change.get("new"), config["toValue"])))


# Every board event looks up its board's rules: cached so that a board without rules costs no query. A rule
# changed on this node is seen at once (`forget_rules`), one changed on another node within this time.
RULES_CACHE_SECONDS = 5.0
_rules: TtlCache[tuple[str, str], list[asyncpg.Record]] = TtlCache(RULES_CACHE_SECONDS)


async def enabled_rules(env: Env, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return await _rules.get((org_id, board_id), lambda: repo.enabled_for_board(env.pool, org_id, board_id))


def forget_rules(org_id: str, board_id: str) -> None:
    _rules.drop((org_id, board_id))


class AutomationEngine:
    def __init__(self, env: Env) -> None:
        self.env = env
        self.queue: asyncio.Queue[StoredEvent] = asyncio.Queue()
        self._expected: dict[Key, tuple[int, float]] = {}

    def on_events(self, events: Sequence[StoredEvent]) -> None:
        """Bus subscriber: board events that may trigger a rule are queued for the worker."""
        for event in events:
            if event.stream.startswith("board:") and event.name in _TRIGGERS:
                data = event.payload.get("data") or {}
                if isinstance(data.get("item"), dict) and not data.get("reordered"):
                    self.queue.put_nowait(event)

    async def work(self) -> None:
        while True:
            event = await self.queue.get()
            try:
                await self.handle(event)
            except Exception:
                log.exception("automation_event_failed", event_id=event.id, event=event.name)

    def _depth_of(self, event: StoredEvent) -> int:
        now = time.monotonic()
        for key in [k for k, (_, at) in self._expected.items() if now - at > EXPECTATION_SECONDS]:
            del self._expected[key]
        depth, _ = self._expected.pop((event.stream, event.name, event.payload["data"]["item"]["id"]), (0, 0.0))
        return depth

    def _expect(self, board_id: str, name: str, item_id: str, depth: int) -> None:
        self._expected[(f"board:{board_id}", name, item_id)] = (depth, time.monotonic())

    async def handle(self, event: StoredEvent) -> None:
        depth = self._depth_of(event)
        board_id = event.stream.removeprefix("board:")
        rules = await enabled_rules(self.env, event.organization_id, board_id)
        for rule in rules:
            if rule["trigger"]["type"] == _TRIGGERS[event.name] and trigger_matches(rule["trigger"], event):
                await Run(self, rule, event, depth).execute()


class Run:
    """One rule run on one triggering event, ending in its execution record."""

    def __init__(self, engine: AutomationEngine, rule: asyncpg.Record, event: StoredEvent, depth: int) -> None:
        self.engine, self.env, self.rule, self.event, self.depth = engine, engine.env, rule, event, depth
        self.org_id, self.board_id = event.organization_id, rule["board_id"]
        data = event.payload["data"]
        self.item_id: str = data["item"]["id"]
        self.user_id: str | None = (data.get("actor") or {}).get("id")
        change = (data.get("changes") or {}).get((rule["trigger"].get("config") or {}).get("columnId"))
        self.change: dict[str, Any] = change if isinstance(change, dict) else {}
        self.started = time.monotonic()
        self.conditions: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []

    async def execute(self) -> None:
        if self.depth >= MAX_DEPTH:
            await self._record("failure", "cascade depth limit reached")
            return
        creator = self.rule["created_by"]
        member = await repo.acting_member(self.env.pool, self.org_id, creator) if creator else None
        if member is None:
            await self._record("failure", "the automation's creator is no longer an active member")
            return
        self.caller = Caller(request_id=f"automation:{self.rule['id']}",
                             organization=Organization(member["id"], member["slug"], member["name"], member["plan"]),
                             user_id=creator, user_email=member["email"], role=Role.parse(member["role"]))
        self.slug = member["slug"]
        try:
            item = await self._call(item_spec.GET, item_spec.ItemIdInput(id=self.item_id))
        except ActionFailed as error:
            await self._record("failure", f"the item could not be read: {error}")
            return
        self.item = item
        for condition in self.rule["conditions"]:
            passed = condition_passes(condition["operator"], item["values"].get(condition["columnId"]),
                                      condition.get("value"))
            self.conditions.append({"field": condition["columnId"], "operator": condition["operator"],
                                    "value": condition.get("value"), "passed": passed})
        if not all(result["passed"] for result in self.conditions):
            await self._record("skipped", None)
            return
        self.names = await repo.names(self.env.pool, self.org_id, self.board_id, item["groupId"], self.user_id)
        errors = []
        for action in self.rule["actions"]:
            try:
                await self._act(action["type"], action.get("config") or {})
                self.actions.append({"type": action["type"], "success": True})
            except ActionFailed as error:
                errors.append(f"{action['type']}: {error}")
                self.actions.append({"type": action["type"], "success": False, "error": str(error)})
        status = "success" if not errors else "failure" if len(errors) == len(self.actions) else "partial_failure"
        await self._record(status, "; ".join(errors) or None)

    async def _record(self, status: str, error: str | None) -> None:
        async with self.env.pool.acquire() as conn:
            await repo.record_execution(
                conn, execution_id=new_id("exe"), org_id=self.org_id, automation_id=self.rule["id"],
                board_id=self.board_id, status=status, trigger_type=self.rule["trigger"]["type"],
                item_id=self.item_id, user_id=self.user_id, event_id=self.event.id,
                condition_results=self.conditions, action_results=self.actions, error=error,
                duration_ms=round((time.monotonic() - self.started) * 1000), executed_at=self.env.clock.now())

    async def _call(self, procedure: Any, data: msgspec.Struct) -> Any:
        try:
            return await HANDLERS[procedure.name](self.env, self.caller, data)
        except ApiError as error:
            raise ActionFailed(error.message) from None

    def text(self, template: Any) -> Any:
        """A text of an action config with its template variables replaced (domain 4.3)."""
        if not isinstance(template, str):
            return template
        item_url = f"{self.env.base_url(self.slug)}/boards/{self.board_id}?item={self.item_id}"
        values = {"item.name": self.item["name"], "item.id": self.item_id, "item.url": item_url,
                  "board.name": self.names["board"], "group.name": self.names["group"],
                  "user.name": self.names["user"], "value.old": plain(self.change.get("old")),
                  "value.new": plain(self.change.get("new"))}
        return _VARIABLE.sub(lambda match: "" if values[match[1]] is None else str(values[match[1]]), template)

    async def _act(self, kind: str, config: dict[str, Any]) -> None:
        next_depth = self.depth + 1
        if kind in ("set_value", "assign_person"):
            value = self.text(config.get("value")) if kind == "set_value" else config.get("userIds")
            await self._call(item_spec.SET_VALUE, item_spec.SetValueInput(
                itemId=self.item_id, columnId=config["columnId"], value=value))
            self.engine._expect(self.board_id, "item.updated", self.item_id, next_depth)
        elif kind == "move_item":
            target_board = config.get("boardId") or self.board_id
            await self._call(item_spec.MOVE, item_spec.MoveItemInput(
                id=self.item_id, groupId=config["groupId"], boardId=config.get("boardId")))
            self.engine._expect(target_board, "item.moved", self.item_id, next_depth)
        elif kind == "archive_item":
            await self._call(item_spec.ARCHIVE, item_spec.ItemIdInput(id=self.item_id))
        elif kind in ("create_item", "create_subitem"):
            subitem = kind == "create_subitem"
            board_id = self.board_id if subitem else config["boardId"]
            try:
                data = msgspec.convert({"boardId": board_id, "groupId": self.item["groupId"] if subitem
                                        else config["groupId"], "name": self.text(config["name"]),
                                        "values": config.get("values") or {},
                                        "parentId": self.item_id if subitem else None}, item_spec.CreateItemInput)
            except msgspec.ValidationError as error:
                raise ActionFailed(str(error)) from None
            created = await self._call(item_spec.CREATE, data)
            self.engine._expect(board_id, "item.created", created["id"], next_depth)
        elif kind == "send_notification":
            await self._notify(config["userIds"], self.text(config["message"]))
        else:
            raise ActionFailed(f"{kind} is not available yet")

    async def _notify(self, user_ids: Any, message: str) -> None:
        members = await org_members(self.env, self.org_id)
        if not isinstance(user_ids, list) or not all(isinstance(u, str) and u in members for u in user_ids):
            raise ActionFailed("userIds must be members of the organization")
        now = self.env.clock.now()
        events = []
        async with self.env.pool.acquire() as conn, conn.transaction():
            for user_id in dict.fromkeys(user_ids):
                view = await notify(conn, user_id=user_id, org_id=self.org_id, type="automation",
                                    title=self.rule["name"], body=message, entity_type="item",
                                    entity_id=self.item_id)
                events.append(await emit(conn, org_id=self.org_id, stream=user_stream(user_id),
                                         name="notification.created", data=view, caller=self.caller, moment=now))
        await self.env.bus.publish(events)


async def purge_forever(env: Env) -> None:
    """Delete execution records older than 30 days (domain 4.3: logs are kept 30 days), hourly."""
    while True:
        try:
            await repo.purge_executions(env.pool, env.clock.now() - RETENTION)
        except Exception:
            log.exception("automation_purge_failed")
        await asyncio.sleep(PURGE_EVERY_SECONDS)


async def run_automations(env: Env) -> None:
    """The node's automation engine for as long as the app serves: subscribed to the bus, one worker."""
    engine = AutomationEngine(env)
    env.bus.subscribe(engine.on_events)
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(engine.work())
            group.create_task(purge_forever(env))
    finally:
        with contextlib.suppress(ValueError):
            env.bus.unsubscribe(engine.on_events)
