"""KpiActor: one in-memory KPI per id (key and event stream `kpi:<id>`). Every change of a KPI's definition,
values, status, alerts and targets is decided here against memory, committed in the turn's one transaction
(group commit), then applied; its events also go to the KPI's board stream."""

from __future__ import annotations

from typing import Any, ClassVar

import asyncpg

from actors.kernel.records import row_from_record
from actors.kpi.changes import KpiChange, add_change_writes, apply_change, persist_changes
from actors.kpi.commands import Command
from actors.kpi.deciders import DATA_TYPES, DECIDERS, define
from actors.kpi.state import AlertRow, KpiRow, KpiState, TargetRow, ValueRow
from actors.runtime.actor import Actor, Decision
from actors.runtime.codecs import ProcedureCodec
from actors.runtime.forwarding import ActorCodec
from protocol import kpis as spec
from protocol.errors import Conflict, NotFound
from storage import kpis as repo
from storage.turn_statement import TurnStatement


class KpiActor(Actor[KpiState, Command, KpiChange]):
    kind = "kpi"
    codec: ClassVar[ActorCodec] = ProcedureCodec(Command, DATA_TYPES)

    async def load(self, conn: asyncpg.Connection) -> KpiState:
        row = await repo.get(conn, self.organization_id, self.actor_id)
        if row is None:
            return KpiState()  # only `kpis.define` is accepted by a KPI that does not exist
        latest = await repo.latest_value(conn, self.organization_id, self.actor_id)
        target = await repo.current_target(conn, self.organization_id, self.actor_id)
        alerts = [row_from_record(AlertRow, r) for r in await repo.open_alerts(conn, self.organization_id,
                                                                               self.actor_id)]
        return KpiState(kpi=row_from_record(KpiRow, row),
                        latest=None if latest is None else row_from_record(ValueRow, latest),
                        alerts={alert.id: alert for alert in alerts},
                        target=None if target is None else row_from_record(TargetRow, target))

    @staticmethod
    def call_key(message: Command) -> str | None:
        return message.caller.call_key(message.procedure)

    def decide(self, state: KpiState, message: Command) -> Decision[KpiChange]:
        if message.procedure == spec.DEFINE.name:
            if state.kpi is not None:
                raise Conflict("the KPI already exists")
            return define(self.actor_id, self.organization_id, message)
        if state.kpi is None:
            raise NotFound("KPI not found")
        return DECIDERS[message.procedure](state, message)

    @staticmethod
    def query(state: KpiState, message: Command) -> Any:
        """A read's reply from committed state (`ActorSystem.query`): a query decider, nothing changed."""
        if state.kpi is None:
            raise NotFound("KPI not found")
        decision = DECIDERS[message.procedure](state, message)
        assert decision.change is None and not decision.events, f"{message.procedure} is not a read"
        return decision.reply

    def add_writes(self, statement: TurnStatement, changes: list[KpiChange]) -> bool:
        return add_change_writes(statement, self.organization_id, changes)

    async def persist(self, conn: asyncpg.Connection, changes: list[KpiChange]) -> None:
        await persist_changes(conn, self.organization_id, changes)

    @staticmethod
    def apply(state: KpiState, change: KpiChange) -> KpiState:
        return apply_change(state, change)
