"""What a KPI decision changes: the definition, values recorded, alerts raised or moved, a target set, the
activity entries and notifications. `apply_change` folds a change into the state (pure); `persist_changes`
writes a turn's changes with one batched statement per table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from actors.board.changes import ActivityEntry, BoardChange, NotificationEntry
from actors.board.changes import persist_changes as persist_trail
from actors.kpi.state import AlertRow, KpiRow, KpiState, TargetRow, ValueRow
from storage import kpis as repo


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


async def persist_changes(conn: asyncpg.Connection, organization_id: str, changes: Sequence[KpiChange]) -> None:
    """The definition first (values refer to it), then values, alerts and targets, deletion last (a turn
    decides nothing after a delete); the activity trail and notifications as the board actor writes them."""
    turn = merge(changes)
    if turn.kpi is not None:
        await repo.upsert_kpis(conn, [c.kpi for c in changes if c.kpi is not None])
    if turn.values:
        await repo.insert_values(conn, organization_id, turn.values)
    if turn.alerts:
        await repo.upsert_alerts(conn, organization_id, turn.alerts)
    if turn.target is not None:
        await repo.insert_targets(conn, organization_id, [c.target for c in changes if c.target is not None])
    if turn.deleted and turn.kpi is not None:
        await repo.delete_kpis(conn, organization_id, [turn.kpi.id])
    if turn.activity or turn.notifications:
        await persist_trail(conn, organization_id, [BoardChange((), turn.activity, turn.notifications)])
