"""How KPIs, values, alerts and targets look on the wire, from the actor's rows; shared by the
actor's replies and events and by the services' reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actors.kpi.state import AlertRow, KpiRow, TargetRow, ValueRow
from actors.kpi.status import COLORS
from protocol.ids import iso


def thresholds_view(thresholds: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Every colour, null when its band is not given; every band with both bounds, null when open."""
    if thresholds is None:
        return None
    return {color: {"min": band.get("min"), "max": band.get("max")} if isinstance(band := thresholds.get(color),
                                                                               Mapping) else None
            for color in COLORS}


def latest_view(row: ValueRow | None) -> dict[str, Any] | None:
    """The KPI's `latestValue`."""
    if row is None:
        return None
    return {"value": row.value, "status": row.status, "recordedAt": iso(row.recorded_at)}


def value_view(row: ValueRow) -> dict[str, Any]:
    """A value record."""
    return {"id": row.id, "kpiId": row.kpi_id, "value": row.value, "status": row.status,
            "recordedAt": iso(row.recorded_at), "recordedBy": row.recorded_by, "source": row.source,
            "comment": row.comment}


def target_view(row: TargetRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"value": row.value, "deadline": row.deadline.isoformat(), "milestones": row.milestones,
            "setBy": row.set_by, "setAt": iso(row.set_at)}


def alert_view(row: AlertRow, kpi_name: str) -> dict[str, Any]:
    return {"id": row.id, "kpiId": row.kpi_id, "kpiName": kpi_name, "boardId": row.board_id, "value": row.value,
            "threshold": row.threshold, "status": row.status, "triggeredAt": iso(row.triggered_at),
            "acknowledgedAt": iso(row.acknowledged_at), "acknowledgedBy": row.acknowledged_by,
            "resolvedAt": iso(row.resolved_at), "resolvedBy": row.resolved_by}


def kpi_brief(kpi: KpiRow) -> dict[str, Any]:
    """What value and breach events say about their KPI."""
    return {"id": kpi.id, "boardId": kpi.board_id, "name": kpi.name, "category": kpi.category, "unit": kpi.unit}


def definition_view(kpi: KpiRow) -> dict[str, Any]:
    """The fields kpis.define sets and kpis.update changes, by their wire names."""
    return {"name": kpi.name, "category": kpi.category, "unit": kpi.unit, "direction": kpi.direction,
            "frequency": kpi.frequency, "thresholds": thresholds_view(kpi.thresholds),
            "responsibleUserId": kpi.responsible_user_id}


def kpi_view(kpi: KpiRow, latest: ValueRow | None, target: TargetRow | None,
             responsible_name: str | None = None) -> dict[str, Any]:
    """The KPI; `responsibleUser` carries the name when the reader looked it up (the actor does not)."""
    responsible = None if kpi.responsible_user_id is None else {"id": kpi.responsible_user_id,
                                                                "name": responsible_name}
    return {"id": kpi.id, "boardId": kpi.board_id, **definition_view(kpi), "responsibleUser": responsible,
            "latestValue": latest_view(latest), "target": target_view(target), "version": kpi.version,
            "createdBy": kpi.created_by, "createdAt": iso(kpi.created_at), "updatedAt": iso(kpi.updated_at)}
