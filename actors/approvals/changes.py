"""What a flow actor's decision changes: requests written, decisions recorded, submission versions made,
decision tokens issued, used or voided, action-node runs queued, activity entries and e-mails. `apply_change`
folds a change into the state (pure); `persist_changes` writes a turn's changes in its transaction (e-mails
go to the outbox there, so a mail leaves only for a committed change)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from actors.approvals.state import DecisionRow, FlowState, RequestRow, TokenRow
from actors.kernel.mailer import queue_mail
from actors.kernel.trail import ActivityEntry, persist_trail
from protocol.errors import Conflict
from storage import approvals as repo


@dataclass(frozen=True)
class Mail:
    kind: str
    to: str
    subject: str
    body: str
    secrets: tuple[str, ...]
    smtp_configured: bool


@dataclass(frozen=True)
class FlowChange:
    now: datetime
    requests: Sequence[RequestRow] = ()
    opened: bool = False                          # a request was opened: the flow must still be active
    decisions: Sequence[dict[str, Any]] = ()      # full rows to insert
    versions: Sequence[dict[str, Any]] = ()
    new_tokens: Sequence[TokenRow] = ()
    spent_tokens: Sequence[str] = ()
    voided: Sequence[tuple[str, int, str | None]] = ()  # (request, step, approver or None for all)
    action_runs: Sequence[dict[str, Any]] = ()
    activity: Sequence[ActivityEntry] = ()
    mails: Sequence[Mail] = ()


def apply_change(state: FlowState, change: FlowChange) -> FlowState:
    requests, decisions, tokens = dict(state.requests), dict(state.decisions), dict(state.tokens)
    for row in change.decisions:
        decisions[row["request_id"]] = (*decisions.get(row["request_id"], ()), DecisionRow(
            id=row["id"], request_id=row["request_id"], node_id=row["node_id"], step=row["step"],
            user_id=row["user_id"], decision=row["decision"]))
    for token in change.new_tokens:
        tokens[token.token_hash] = token
    for token_hash in change.spent_tokens:
        tokens.pop(token_hash, None)
    for request_id, step, user_id in change.voided:
        for token_hash, token in list(tokens.items()):
            if token.request_id == request_id and token.step == step and user_id in (None, token.user_id):
                del tokens[token_hash]
    for request in change.requests:
        if request.open:
            requests[request.id] = request
            decisions[request.id] = tuple(d for d in decisions.get(request.id, ()) if d.step == request.step)
        else:
            requests.pop(request.id, None)
            decisions.pop(request.id, None)
            tokens = {h: t for h, t in tokens.items() if t.request_id != request.id}
    return FlowState(flow=state.flow, requests=requests, decisions=decisions, tokens=tokens)


async def persist_changes(conn: asyncpg.Connection, org_id: str, flow_id: str, changes: Sequence[FlowChange],
                          secret_key: str | None) -> None:
    """Write the turn's changes; mails are sealed under `secret_key` (the owner node's; None: the database's)."""
    if any(change.opened for change in changes) and not await repo.require_active_flow(conn, org_id, flow_id):
        raise Conflict("the approval flow is no longer active")
    for change in changes:
        if change.requests:
            await repo.upsert_requests(conn, org_id, change.requests)
        if change.versions:
            await repo.insert_versions(conn, org_id, change.versions)
        if change.decisions:
            await repo.insert_decisions(conn, org_id, change.decisions)
        for token_hash in change.spent_tokens:
            await repo.use_token(conn, org_id, token_hash, change.now)
        for request_id, step, user_id in change.voided:
            await repo.void_tokens(conn, org_id, request_id, step, user_id, change.now)
        if change.new_tokens:
            await repo.insert_tokens(conn, org_id, flow_id, change.new_tokens, change.now)
        if change.action_runs:
            await repo.insert_action_runs(conn, org_id, change.action_runs)
        for mail in change.mails:
            await queue_mail(conn, org_id=org_id, kind=mail.kind, to=mail.to, subject=mail.subject, body=mail.body,
                             smtp_configured=mail.smtp_configured, secrets=mail.secrets, secret_key=secret_key)
    await persist_trail(conn, org_id, activity=[entry for change in changes for entry in change.activity])
