"""What a KPI decision changes: the definition, values recorded, alerts raised or moved, a target set, the
activity entries and notifications. `apply_change` folds a change into the state (pure); `add_change_writes`
writes a turn's changes as parts of the turn's one statement, `persist_changes` in a transaction when it deletes the
KPI."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from actors.kernel.trail import ActivityEntry, NotificationEntry, activity_rows, persist_trail
from actors.kpi.state import AlertRow, KpiRow, KpiState, TargetRow, ValueRow
from storage import kpis as repo
from storage.notifications import add_entries as add_notifications
from storage.turn_statement import TurnStatement


@dataclass(frozen=True)
class KpiChange:
    kpi: KpiRow | None = None  # the definition as it now stands
    deleted: bool = False      # with `kpi`: the KPI is gone, with its values, alerts and targets
    values: Sequence[ValueRow] = ()
    alerts: Sequence[AlertRow] = ()  # raised, acknowledged or resolved
    target: TargetRow | None = None
    activity: Sequence[ActivityEntry] = ()
    notifications: Sequence[NotificationEntry] = ()


def apply_change(state: KpiState, change: KpiChange) -> KpiState:
    if change.deleted:
        return KpiState()
    alerts = state.alerts
    if change.alerts:
        alerts = dict(alerts)
        for alert in change.alerts:
            if alert.open:
                alerts[alert.id] = alert
            else:
                alerts.pop(alert.id, None)
    return KpiState(kpi=change.kpi or state.kpi, latest=change.values[-1] if change.values else state.latest,
                    alerts=alerts, target=change.target or state.target)


def merge(changes: Sequence[KpiChange]) -> KpiChange:
    """One change doing what `changes` do in order (a decision built piece by piece)."""
    return KpiChange(
        kpi=next((c.kpi for c in reversed(changes) if c.kpi is not None), None),
        deleted=any(c.deleted for c in changes),
        values=[value for c in changes for value in c.values],
        alerts=[alert for c in changes for alert in c.alerts],
        target=next((c.target for c in reversed(changes) if c.target is not None), None),
        activity=[entry for c in changes for entry in c.activity],
        notifications=[note for c in changes for note in c.notifications])


def _add_turn(statement: TurnStatement, organization_id: str, turn: KpiChange, targets: list[TargetRow]) -> None:
    repo.add_turn(statement, organization_id, kpis=[turn.kpi] if turn.kpi is not None else [], values=turn.values,
                  # An alert raised and moved in one turn is written once, as it ends the turn.
                  alerts=list({alert.id: alert for alert in turn.alerts}.values()), targets=targets,
                  activity=activity_rows(turn.activity))


def add_change_writes(statement: TurnStatement, organization_id: str, changes: Sequence[KpiChange]) -> bool:
    """The turn's changes as parts of one statement (`Actor.add_writes`): the definition, values, alerts, targets,
    activity entries and notifications. False, with nothing added, for a turn that deletes the KPI (the deletion
    must follow the other writes)."""
    turn = merge(changes)
    if turn.deleted:
        return False
    _add_turn(statement, organization_id, turn, [c.target for c in changes if c.target is not None])
    if turn.notifications:
        add_notifications(statement, organization_id, turn.notifications)
    return True


async def persist_changes(conn: asyncpg.Connection, organization_id: str, changes: Sequence[KpiChange]) -> None:
    """The turn's definition, values, alerts, targets and activity entries in one statement, deletion after it
    (a turn decides nothing after a delete); notifications after them (actors/kernel/trail.py)."""
    turn = merge(changes)
    statement = TurnStatement()
    _add_turn(statement, organization_id, turn, [c.target for c in changes if c.target is not None])
    await statement.execute(conn)
    if turn.deleted and turn.kpi is not None:
        await repo.delete_kpis(conn, organization_id, [turn.kpi.id])
    await persist_trail(conn, organization_id, notifications=turn.notifications)
