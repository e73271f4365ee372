"""KPIs: the SQCDP categories, directions, frequencies, threshold bands, the inputs with
their limits and the procedure declarations. Every procedure needs the plan feature `kpis`; reading needs
the `read:kpis` key scope; recording values `write:kpis`, changing a KPI (definition, target, alerts)
`write:items` (docs/scopes.md), both with the member role or higher."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Cursor, Id
from protocol.registry import Procedure, Role, declare

Category = Literal["safety", "quality", "cost", "delivery", "people"]
CATEGORIES: tuple[str, ...] = ("safety", "quality", "cost", "delivery", "people")
Direction = Literal["higher_is_better", "lower_is_better"]
Frequency = Literal["daily", "weekly", "monthly", "quarterly"]
Color = Literal["green", "amber", "red"]
AlertStatus = Literal["active", "acknowledged", "resolved"]

KpiName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Unit = Annotated[str, msgspec.Meta(min_length=1, max_length=50)]
Comment = Annotated[str, msgspec.Meta(max_length=2000)]
# Measurements are finite; 1e15 keeps every whole number exact in a double and refuses infinities.
Number = Annotated[float, msgspec.Meta(ge=-1e15, le=1e15)]
Version = Annotated[int, msgspec.Meta(ge=1)]
# Bulk operations take at most 100 entries, as bulk item operations do.
BATCH_MAX = 100
# KPI history: default 100 data points; a window, not a page, so a larger maximum than lists.
HISTORY_DEFAULT = 100
HISTORY_MAX = 1000
MILESTONES_MAX = 50


class Band(msgspec.Struct):
    """One colour's range: closed at both ends, open-ended where a bound is missing."""

    min: Number | None = None
    max: Number | None = None


class Thresholds(msgspec.Struct):
    green: Band | None = None
    amber: Band | None = None
    red: Band | None = None


class DefineInput(msgspec.Struct):
    boardId: Id
    name: KpiName
    category: Category
    direction: Direction
    frequency: Frequency
    unit: Unit | None = None
    thresholds: Thresholds | None = None
    responsibleUserId: Id | None = None


class UpdateInput(msgspec.Struct):
    """Fields left out stay; `unit`, `thresholds` and `responsibleUserId` are cleared with null."""

    id: Id
    name: KpiName | UnsetType = UNSET
    category: Category | UnsetType = UNSET
    direction: Direction | UnsetType = UNSET
    frequency: Frequency | UnsetType = UNSET
    unit: Unit | None | UnsetType = UNSET
    thresholds: Thresholds | None | UnsetType = UNSET
    responsibleUserId: Id | None | UnsetType = UNSET
    expectedVersion: Version | None = None


# The definition fields kpis.update may change, with the KPI view's names.
DEFINITION_FIELDS = ("name", "category", "direction", "frequency", "unit", "thresholds", "responsibleUserId")


class IdInput(msgspec.Struct):
    id: Id


class BoardInput(msgspec.Struct):
    boardId: Id


class ListInput(msgspec.Struct):
    boardId: Id
    limit: int | None = None
    cursor: Cursor | None = None


class KpiIdInput(msgspec.Struct):
    kpiId: Id


class HistoryInput(msgspec.Struct):
    kpiId: Id
    # ISO 8601 timestamps or dates (a date is its whole UTC day), both ends included.
    from_: Annotated[str, msgspec.Meta(max_length=40)] | None = msgspec.field(default=None, name="from")
    to: Annotated[str, msgspec.Meta(max_length=40)] | None = None
    limit: int | None = None


class SetValueInput(msgspec.Struct):
    kpiId: Id
    value: Number
    comment: Comment | None = None


class BatchEntry(msgspec.Struct):
    kpiId: Id
    value: Number
    comment: Comment | None = None


class BatchSetValuesInput(msgspec.Struct):
    entries: Annotated[list[BatchEntry], msgspec.Meta(min_length=1, max_length=BATCH_MAX)]


class AlertsInput(msgspec.Struct):
    boardId: Id
    kpiId: Id | None = None
    status: AlertStatus | None = None
    limit: int | None = None
    cursor: Cursor | None = None


class Milestone(msgspec.Struct):
    value: Number
    deadline: date


class SetTargetInput(msgspec.Struct):
    kpiId: Id
    value: Number
    deadline: date
    milestones: Annotated[list[Milestone], msgspec.Meta(max_length=MILESTONES_MAX)] = msgspec.field(
        default_factory=list)


class AlertIdInput(msgspec.Struct):
    alertId: Id


# `write:kpis` is "record KPI measurements" (docs/scopes.md); creating and modifying KPIs is `write:items`.
READ, RECORD, CHANGE = "read:kpis", "write:kpis", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, feature="kpis", summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, key_scope: str = CHANGE,
           token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=key_scope, token_scope=token_scope, min_role=Role.MEMBER,
                   feature="kpis", summary=summary)


DEFINE = _write("kpis.define", DefineInput, "Define a KPI on a board")
UPDATE = _write("kpis.update", UpdateInput, "Change a KPI's definition")
DELETE = _write("kpis.delete", IdInput, "Delete a KPI with all its values, targets and alerts (irreversible)",
                token_scope="delete")
GET = _read("kpis.get", IdInput, "One KPI with its latest value, target and responsible user")
LIST = _read("kpis.list", ListInput, "A board's KPIs, newest first, with latest value, target and responsible "
             "user")
LIST_BY_CATEGORY = _read("kpis.listByCategory", BoardInput, "A board's KPIs grouped by SQCDP category")
GET_VALUE = _read("kpis.getValue", KpiIdInput, "A KPI's latest value (null before the first)")
GET_HISTORY = _read("kpis.getHistory", HistoryInput, "A KPI's values between `from` and `to`, newest first")
SET_VALUE = _write("kpis.setValue", SetValueInput, "Record a KPI value; its status is computed from the "
                   "thresholds, and a breach raises an alert and notifies the responsible user", key_scope=RECORD)
BATCH_SET_VALUES = _write("kpis.batchSetValues", BatchSetValuesInput, "Record up to 100 values of one or more "
                          "KPIs; each entry is answered separately", key_scope=RECORD)
GET_ALERTS = _read("kpis.getAlerts", AlertsInput, "A board's KPI alerts, newest first")
GET_TARGETS = _read("kpis.getTargets", KpiIdInput, "A KPI's current target and the targets set before it")
SET_TARGET = _write("kpis.setTarget", SetTargetInput, "Set a KPI's target with optional milestones")
ACKNOWLEDGE_ALERT = _write("kpis.acknowledgeAlert", AlertIdInput, "Acknowledge an active KPI alert")
RESOLVE_ALERT = _write("kpis.resolveAlert", AlertIdInput, "Resolve an active or acknowledged KPI alert")
