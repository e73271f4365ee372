"""A KPI's in-memory state: its definition, latest value, open alerts and current target, as immutable rows
replaced (never mutated) by `apply`. Older values, resolved alerts and earlier targets stay in PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import msgspec


class KpiRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    board_id: str
    name: str
    category: str
    unit: str | None
    direction: str
    frequency: str
    thresholds: dict[str, Any] | None
    responsible_user_id: str | None
    version: int
    created_by: str | None
    created_at: datetime
    updated_at: datetime


class ValueRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kpi_id: str
    value: float
    status: str | None
    recorded_at: datetime
    recorded_by: str | None
    source: str
    comment: str | None


class AlertRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kpi_id: str
    board_id: str
    value_id: str
    value: float
    threshold: str
    status: str
    triggered_at: datetime
    acknowledged_at: datetime | None = None
    acknowledged_by: str | None = None
    resolved_at: datetime | None = None
    resolved_by: str | None = None

    @property
    def open(self) -> bool:
        return self.status != "resolved"


class TargetRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    kpi_id: str
    value: float
    deadline: date
    milestones: list[dict[str, Any]]
    set_by: str | None
    set_at: datetime


@dataclass(frozen=True)
class KpiState:
    kpi: KpiRow | None = None  # None: not defined yet, or deleted
    latest: ValueRow | None = None
    alerts: dict[str, AlertRow] = field(default_factory=dict)  # the open ones (active or acknowledged)
    target: TargetRow | None = None
