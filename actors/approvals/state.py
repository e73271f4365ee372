"""An approval flow's in-memory state: its definition, its open requests (pending or in progress), the
decisions of each open request's current step and the live decision tokens. Closed requests and all
history stay in PostgreSQL. Rows are immutable and replaced by `apply`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec


class FlowRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    form_id: str
    name: str
    description: str | None
    gxp_required: bool
    is_active: bool
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    created_by: str | None
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None

    def node(self, node_id: str | None) -> dict[str, Any] | None:
        return next((node for node in self.nodes if node["id"] == node_id), None)


class RequestRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    flow_id: str
    form_id: str
    submission_id: str
    item_id: str | None
    status: str
    node_id: str | None
    step: int
    step_started_at: datetime | None
    expires_at: datetime | None
    data: dict[str, Any]
    version: int
    respondent_email: str | None
    revision_token_hash: str | None
    returned_by: str | None
    created_at: datetime
    updated_at: datetime
    completed_at: datetime | None
    gxp_required: bool   # the flow's flag when the request opened: the regime every decision on it is judged by

    @property
    def open(self) -> bool:
        return self.status in ("pending", "in_progress")


class DecisionRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    request_id: str
    node_id: str
    step: int
    user_id: str
    decision: str


class TokenRow(msgspec.Struct, frozen=True, kw_only=True):
    token_hash: str
    request_id: str
    node_id: str
    step: int
    user_id: str
    decision: str


@dataclass(frozen=True)
class FlowState:
    flow: FlowRow | None = None
    requests: dict[str, RequestRow] = field(default_factory=dict)     # the open ones
    decisions: dict[str, tuple[DecisionRow, ...]] = field(default_factory=dict)  # request -> its step's
    tokens: dict[str, TokenRow] = field(default_factory=dict)         # live token hash -> token

    def step_decisions(self, request: RequestRow) -> tuple[DecisionRow, ...]:
        return tuple(d for d in self.decisions.get(request.id, ()) if d.step == request.step)
