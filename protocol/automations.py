"""Automations: trigger, condition operator and action type lists, the inputs with their
limits and the procedure declarations. All need the plan feature `automations`; reading needs the
`read:items` key scope, changing `write:items`; changing rules is for members and up."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import Procedure, Role, declare

# Every trigger type and action type. The spec shows the operators `is` (rules) and `equals`
# (results); the rest is Obeya's list (docs/decisions.md "Automation rules, actions and conditions").
TriggerType = Literal["item.created", "item.moved", "value.changed", "date.arrived", "form.submitted",
                      "subitems.completed", "recurring", "webhook.received", "kpi.threshold_breach"]
ActionType = Literal["set_value", "assign_person", "move_item", "create_item", "archive_item",
                     "send_notification", "send_email", "call_webhook", "create_subitem", "create_action"]
Operator = Literal["is", "equals", "is_not", "contains", "not_contains", "gt", "lt", "is_empty", "is_not_empty"]
Status = Literal["success", "partial_failure", "failure", "skipped"]

# Config keys each type requires (`?` keys are optional and not listed).
TRIGGER_REQUIRES: dict[str, tuple[str, ...]] = {
    "value.changed": ("columnId",), "date.arrived": ("columnId",), "form.submitted": ("formId",),
    "recurring": ("cron",)}
ACTION_REQUIRES: dict[str, tuple[str, ...]] = {
    "set_value": ("columnId", "value"), "assign_person": ("columnId", "userIds"), "move_item": ("groupId",),
    "create_item": ("boardId", "groupId", "name"), "send_notification": ("userIds", "message"),
    "send_email": ("to", "subject", "body"), "call_webhook": ("url", "method"), "create_subitem": ("name",),
    "create_action": ("title",)}
# Actions that act on the triggering item: refused on a trigger that never has one (`kpi.threshold_breach`), and
# a run without an item (recurring, an inbound webhook without itemId, ...) fails them.
ITEM_ACTIONS = frozenset({"set_value", "assign_person", "move_item", "archive_item", "create_subitem"})
# The KPI trigger: config `kpiId` (optional: only that KPI of the board) and `threshold` ("red",
# the default, or "amber"). Its runs have a KPI and no item.
KPI_TRIGGER = "kpi.threshold_breach"
KPI_THRESHOLDS = ("red", "amber")

RuleName = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]


class Trigger(msgspec.Struct):
    type: TriggerType
    config: dict[str, Any] = {}


class Condition(msgspec.Struct):
    columnId: Id
    operator: Operator
    value: Any = None


class Action(msgspec.Struct):
    type: ActionType
    config: dict[str, Any] = {}


Conditions = Annotated[list[Condition], msgspec.Meta(max_length=20)]
Actions = Annotated[list[Action], msgspec.Meta(min_length=1, max_length=20)]


class BoardInput(msgspec.Struct):
    boardId: Id


class CreateInput(msgspec.Struct):
    boardId: Id
    name: RuleName
    trigger: Trigger
    actions: Actions
    conditions: Conditions = []
    enabled: bool = True


class UpdateInput(msgspec.Struct):
    id: Id
    name: RuleName | None = None
    enabled: bool | None = None
    trigger: Trigger | None = None
    conditions: Conditions | None = None
    actions: Actions | None = None


# The fields of a rule that automations.update may change.
RULE_FIELDS = ("name", "enabled", "trigger", "conditions", "actions")


class IdInput(msgspec.Struct):
    id: Id


class ToggleInput(msgspec.Struct):
    id: Id
    enabled: bool


class LogInput(msgspec.Struct):
    automationId: Id
    limit: int | None = None
    cursor: Cursor | None = None


class RunNowInput(msgspec.Struct):
    ruleId: Id


class HistoryInput(msgspec.Struct):
    boardId: Id
    ruleId: Id | None = None
    status: Status | None = None
    limit: int | None = None
    cursor: Cursor | None = None


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, feature="automations", summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=Role.MEMBER,
                   feature="automations", summary=summary)


LIST = _read("automations.list", BoardInput, "A board's automations, oldest first")
CREATE = _write("automations.create", CreateInput, "Create an automation on a board")
UPDATE = _write("automations.update", UpdateInput, "Change an automation's name, trigger, conditions, actions "
                "or enabled flag")
DELETE = _write("automations.delete", IdInput, "Delete an automation and its execution records",
                token_scope="delete")
TOGGLE = _write("automations.toggle", ToggleInput, "Enable or disable an automation")
RUN_NOW = _write("automations.runNow", RunNowInput, "Run an automation now on every item of its board (top-level, "
                 "not archived): answers at once with how many runs were queued")
LOG = _read("automations.log", LogInput, "An automation's runs, newest first")
HISTORY = _read("automations.getExecutionHistory", HistoryInput, "A board's automation runs, newest first")
EXECUTION = _read("automations.getExecutionById", IdInput, "One automation run")
