"""FlowActor: one in-memory approval flow per id (kind `flow`, key, event stream and Socket.IO room
`flow:<id>`), owning its requests and decisions. Each request's decisions are decided here one at a time
against memory, committed in the turn's one transaction, then applied. The flow's definition is written by
the services (actors/approvals/flows.py), which then send `Refresh`: the actor reads it again in `prepare`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import asyncpg

from actors.approvals import deciders
from actors.approvals.changes import FlowChange, apply_change, persist_changes
from actors.approvals.commands import Command, Decide, Departed, Expire, Open, Refresh, Return, Revise
from actors.approvals.state import DecisionRow, FlowRow, FlowState, RequestRow, TokenRow
from actors.kernel.records import row_from_record
from actors.runtime.actor import Actor, Decision
from actors.runtime.forwarding import ActorCodec, MsgspecCodec
from protocol.errors import NotFound
from storage import approvals as repo

Decider = Callable[[str, FlowState, Command], Decision[FlowChange]]
_DECIDERS: dict[type, Decider] = {Open: deciders.open_request, Decide: deciders.decide,
                                  Return: deciders.return_for_revision, Revise: deciders.revise,
                                  Expire: deciders.expire, Departed: deciders.departed}


class FlowActor(Actor[FlowState, Command, FlowChange]):
    kind = "flow"
    # Replies are plain values: a request id, a count, True, dicts of them.
    codec: ClassVar[ActorCodec] = MsgspecCodec(Command, Any)

    async def _flow(self, conn: asyncpg.Connection | asyncpg.Pool) -> FlowRow:
        row = await repo.any_flow(conn, self.organization_id, self.actor_id)
        if row is None:
            raise NotFound("approval flow not found")
        flow: FlowRow = row_from_record(FlowRow, row)
        return flow

    async def load(self, conn: asyncpg.Connection) -> FlowState:
        flow = await self._flow(conn)
        org, flow_id = self.organization_id, self.actor_id
        requests = {r["id"]: row_from_record(RequestRow, r) for r in await repo.open_requests(conn, org, flow_id)}
        decisions: dict[str, tuple[DecisionRow, ...]] = {}
        for record in await repo.step_decisions(conn, org, flow_id):
            decision: DecisionRow = row_from_record(DecisionRow, record)
            decisions[decision.request_id] = (*decisions.get(decision.request_id, ()), decision)
        tokens = {t["token_hash"]: row_from_record(TokenRow, t) for t in await repo.live_tokens(conn, org, flow_id)}
        return FlowState(flow=flow, requests=requests, decisions=decisions, tokens=tokens)

    async def prepare(self, pool: asyncpg.Pool, state: FlowState, messages: list[Command]) -> FlowState:
        # An Open decides on the flow as committed now, not as memory last heard of it: a flow activated a
        # moment ago whose Refresh has not arrived yet would otherwise refuse the submission entering it.
        if any(isinstance(command.message, Refresh | Open) for command in messages):
            return FlowState(flow=await self._flow(pool), requests=state.requests, decisions=state.decisions,
                             tokens=state.tokens)
        return state

    @staticmethod
    def call_key(message: Command) -> str | None:
        return None if message.caller is None else message.caller.call_key(type(message.message).__name__)

    def decide(self, state: FlowState, message: Command) -> Decision[FlowChange]:
        if isinstance(message.message, Refresh):
            return Decision(reply=True)
        return _DECIDERS[type(message.message)](self.organization_id, state, message)

    async def persist(self, conn: asyncpg.Connection, changes: list[FlowChange]) -> None:
        await persist_changes(conn, self.organization_id, self.actor_id, changes, self.secret_key)

    @staticmethod
    def apply(state: FlowState, change: FlowChange) -> FlowState:
        return apply_change(state, change)
