"""What a KPI actor decides for each procedure, against its in-memory state and without I/O: the definition
(define, update, delete), values with their status and alerts (setValue, batchSetValues), targets, and the
alert transitions (acknowledge, resolve). The rules are in docs/decisions.md, "KPIs"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from actors.kernel.events import changes as changed_fields
from actors.kpi.changes import KpiChange
from actors.kpi.commands import Command, Outcome
from actors.kpi.state import AlertRow, KpiRow, KpiState, TargetRow, ValueRow
from actors.kpi.status import SEVERITY, status_of
from actors.kpi.views import alert_view, definition_view, kpi_brief, kpi_view, target_view, value_view
from actors.runtime.actor import Decision
from protocol import kpis as spec
from protocol.caller import CredentialKind
from protocol.errors import Conflict, ValidationFailed
from protocol.ids import Prefix, new_id

# Values entered with these credentials are `source: "api"`; with a session, "manual".
_API_CREDENTIALS = (CredentialKind.API_KEY, CredentialKind.PERSONAL_TOKEN, CredentialKind.OAUTH_TOKEN,
                    CredentialKind.MCP_KEY)
BREACH_NOTIFICATION = "kpi_breach"

Decider = Callable[[KpiState, Command], Decision[KpiChange]]


def stored_thresholds(thresholds: spec.Thresholds | None) -> dict[str, Any] | None:
    """The bands given, each checked (`min` not above `max`); no band at all is no thresholds."""
    if thresholds is None:
        return None
    bands: dict[str, Any] = {}
    for color in ("green", "amber", "red"):
        band: spec.Band | None = getattr(thresholds, color)
        if band is None:
            continue
        if band.min is not None and band.max is not None and band.min > band.max:
            raise ValidationFailed.of(f"thresholds.{color}.min", f"must not be greater than max ({band.max:g})")
        bands[color] = {"min": band.min, "max": band.max}
    return bands or None


def _event_view(view: dict[str, Any]) -> dict[str, Any]:
    """The KPI as events carry it: `responsibleUserId` without the user's name, which the actor does not hold."""
    return {name: value for name, value in view.items() if name != "responsibleUser"}


def define(kpi_id: str, organization_id: str, command: Command) -> Decision[KpiChange]:
    data: spec.DefineInput = command.data
    kpi = KpiRow(id=kpi_id, organization_id=organization_id, board_id=data.boardId, name=data.name,
                 category=data.category, unit=data.unit, direction=data.direction, frequency=data.frequency,
                 thresholds=stored_thresholds(data.thresholds), responsible_user_id=data.responsibleUserId,
                 version=1, created_by=command.caller.user_id, created_at=command.now, updated_at=command.now)
    out = Outcome(command, KpiState())
    out.change(KpiChange(kpi=kpi))
    out.log("kpi.created", category=kpi.category)
    view = kpi_view(kpi, None, None)
    out.emit("kpi.created", {"kpi": _event_view(view)})
    return out.decision(view)


def update(state: KpiState, command: Command) -> Decision[KpiChange]:
    data: spec.UpdateInput = command.data
    kpi = _kpi(state)
    if data.expectedVersion is not None and data.expectedVersion != kpi.version:
        raise Conflict(f"the KPI is at version {kpi.version}, not {data.expectedVersion}",
                       data={"currentVersion": kpi.version})
    given = {name: getattr(data, name) for name in spec.DEFINITION_FIELDS if getattr(data, name) is not msgspec.UNSET}
    new = msgspec.structs.replace(
        kpi, name=given.get("name", kpi.name), category=given.get("category", kpi.category),
        unit=given.get("unit", kpi.unit), direction=given.get("direction", kpi.direction),
        frequency=given.get("frequency", kpi.frequency),
        thresholds=stored_thresholds(given["thresholds"]) if "thresholds" in given else kpi.thresholds,
        responsible_user_id=given.get("responsibleUserId", kpi.responsible_user_id))
    changes = changed_fields(definition_view(kpi), definition_view(new))
    if not changes:
        return Decision(reply=kpi_view(kpi, state.latest, state.target))
    new = msgspec.structs.replace(new, version=kpi.version + 1, updated_at=command.now)
    out = Outcome(command, state)
    out.change(KpiChange(kpi=new))
    out.log("kpi.updated", changed=sorted(changes))
    view = kpi_view(new, state.latest, state.target)
    out.emit("kpi.updated", {"kpi": _event_view(view), "changes": changes})
    return out.decision(view)


def delete(state: KpiState, command: Command) -> Decision[KpiChange]:
    kpi = _kpi(state)
    out = Outcome(command, state)
    out.log("kpi.deleted")
    out.emit("kpi.deleted", {"kpi": kpi_brief(kpi)})
    out.change(KpiChange(kpi=kpi, deleted=True))
    return out.decision({"success": True, "id": kpi.id})


def _source(command: Command) -> str:
    return "api" if command.caller.credential in _API_CREDENTIALS else "manual"


def record_value(out: Outcome, value: float, comment: str | None) -> dict[str, Any]:
    """One value: its status, and what a breach or a return to green does to the KPI's alerts."""
    kpi, now = out.kpi, out.command.now
    status = status_of(value, kpi.thresholds, kpi.direction)
    row = ValueRow(id=new_id(Prefix.KPI_VALUE), kpi_id=kpi.id, value=value, status=status, recorded_at=now,
                   recorded_by=out.command.caller.user_id, source=_source(out.command), comment=comment)
    open_alerts = list(out.state.alerts.values())
    out.change(KpiChange(values=[row]))
    view = value_view(row)
    out.emit("kpi.value_entered", {"kpi": kpi_brief(kpi), "value": view})
    alert = None
    if status in ("amber", "red") and not any(SEVERITY[a.threshold] >= SEVERITY[status] for a in open_alerts):
        alert = _raise_alert(out, row, status)
    elif status == "green":
        for open_alert in open_alerts:
            _move_alert(out, open_alert, "resolved", automatic=True)
    out.log("kpi.value_entered", valueId=row.id, value=value, status=status,
            alertId=alert["id"] if alert else None)
    return {**view, "alert": alert}


def _raise_alert(out: Outcome, value: ValueRow, color: str) -> dict[str, Any]:
    kpi = out.kpi
    alert = AlertRow(id=new_id(Prefix.KPI_ALERT), kpi_id=kpi.id, board_id=kpi.board_id, value_id=value.id,
                     value=value.value, threshold=color, status="active", triggered_at=out.command.now)
    out.change(KpiChange(alerts=[alert]))
    view = alert_view(alert, kpi.name)
    out.emit("kpi.target_breached", {"kpi": kpi_brief(kpi), "alert": view, "value": value_view(value)})
    # A responsible user who has left the organization stays named but is no longer notified.
    if kpi.responsible_user_id in out.command.members:
        unit = f" {kpi.unit}" if kpi.unit else ""
        out.notify(kpi.responsible_user_id, BREACH_NOTIFICATION, f"{kpi.name} is {color}",
                   f"{value.value:g}{unit} was recorded for {kpi.name}, in its {color} threshold.")
    return view


def _move_alert(out: Outcome, alert: AlertRow, status: str, *, automatic: bool = False) -> dict[str, Any]:
    now = out.command.now
    user = None if automatic else out.command.caller.user_id
    if status == "acknowledged":
        moved = msgspec.structs.replace(alert, status=status, acknowledged_at=now, acknowledged_by=user)
    else:
        moved = msgspec.structs.replace(alert, status=status, resolved_at=now, resolved_by=user)
    out.change(KpiChange(alerts=[moved]))
    view = alert_view(moved, out.kpi.name)
    out.log(f"kpi.alert_{status}", alertId=alert.id, automatic=automatic)
    out.emit("kpi.alert_updated", {"kpi": kpi_brief(out.kpi), "alert": view, "automatic": automatic})
    return view


def set_value(state: KpiState, command: Command) -> Decision[KpiChange]:
    data: spec.SetValueInput = command.data
    out = Outcome(command, state)
    _kpi(state)
    return out.decision(record_value(out, data.value, data.comment))


def set_values(state: KpiState, command: Command) -> Decision[KpiChange]:
    """A batch's entries for this KPI, in order, committed together."""
    entries: list[spec.BatchEntry] = command.data
    out = Outcome(command, state)
    _kpi(state)
    return out.decision([record_value(out, entry.value, entry.comment) for entry in entries])


def set_target(state: KpiState, command: Command) -> Decision[KpiChange]:
    data: spec.SetTargetInput = command.data
    kpi = _kpi(state)
    for index, milestone in enumerate(data.milestones):
        if milestone.deadline > data.deadline:
            raise ValidationFailed.of(f"milestones.{index}.deadline", "must not be after the target's deadline")
    milestones = [{"value": m.value, "deadline": m.deadline.isoformat()}
                  for m in sorted(data.milestones, key=lambda m: m.deadline)]
    target = TargetRow(id=new_id(Prefix.KPI_TARGET), kpi_id=kpi.id, value=data.value, deadline=data.deadline,
                       milestones=milestones, set_by=command.caller.user_id, set_at=command.now)
    out = Outcome(command, state)
    out.change(KpiChange(target=target))
    view = target_view(target)
    out.log("kpi.target_set", value=data.value, deadline=data.deadline.isoformat())
    out.emit("kpi.updated", {"kpi": _event_view(kpi_view(kpi, state.latest, target)),
                             "changes": {"target": {"old": target_view(state.target), "new": view}}})
    return out.decision(view)


def _alert_transition(status: str) -> Decider:
    def decide(state: KpiState, command: Command) -> Decision[KpiChange]:
        """None when the alert is not open: the service answers from the stored (resolved) alert."""
        alert = state.alerts.get(command.data.alertId)
        if alert is None:
            return Decision(reply=None)
        if alert.status == status:
            return Decision(reply=alert_view(alert, _kpi(state).name))
        out = Outcome(command, state)
        return out.decision(_move_alert(out, alert, status))
    return decide


def get(state: KpiState, command: Command) -> Decision[KpiChange]:
    return Decision(reply=kpi_view(_kpi(state), state.latest, state.target))


def get_value(state: KpiState, command: Command) -> Decision[KpiChange]:
    _kpi(state)
    return Decision(reply=None if state.latest is None else value_view(state.latest))


def _kpi(state: KpiState) -> KpiRow:
    assert state.kpi is not None, "the actor answers NotFound before a decider runs on an undefined KPI"
    return state.kpi


DECIDERS: dict[str, Decider] = {
    spec.UPDATE.name: update,
    spec.DELETE.name: delete,
    spec.GET.name: get,
    spec.GET_VALUE.name: get_value,
    spec.SET_VALUE.name: set_value,
    spec.BATCH_SET_VALUES.name: set_values,
    spec.SET_TARGET.name: set_target,
    spec.ACKNOWLEDGE_ALERT.name: _alert_transition("acknowledged"),
    spec.RESOLVE_ALERT.name: _alert_transition("resolved"),
}
# The type of `Command.data` per procedure (`define` included): how a command is decoded when it comes from
# another node. A batch of values reaches each KPI's actor as that KPI's entries.
DATA_TYPES: dict[str, Any] = {
    **{procedure.name: procedure.input for procedure in (spec.DEFINE, spec.UPDATE, spec.DELETE, spec.GET,
                                                         spec.GET_VALUE, spec.SET_VALUE, spec.SET_TARGET,
                                                         spec.ACKNOWLEDGE_ALERT, spec.RESOLVE_ALERT)},
    spec.BATCH_SET_VALUES.name: list[spec.BatchEntry],
}
