"""Approval flows (docs/forms-and-approvals.md): the graph's node and edge
Structs, the inputs with their limits and the twelve `formApprovalFlows.*` declarations. Reading is for
anyone who sees the form's board (key scope read:items), changing flows for members and up (write:items);
deciding is for the step's approvers, and `submitDecisionByToken` needs no credential but the e-mailed token."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Id
from protocol.registry import Access, Procedure, Role, declare

NodeType = Literal["start", "approval", "condition", "action", "end"]
RequestStatus = Literal["pending", "in_progress", "approved", "rejected", "expired"]
DecisionValue = Literal["approved", "rejected", "returned_for_revision"]
TokenDecision = Literal["approved", "rejected", "returned_for_revision"]
OPEN_STATUSES = ("pending", "in_progress")
REQUEST_STATUSES = ("pending", "in_progress", "approved", "rejected", "expired")
CONDITION_OPERATORS = ("equals", "not_equals", "contains", "gt", "gte", "lt", "lte", "is_empty", "is_not_empty")

FlowName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
FlowDescription = Annotated[str, msgspec.Meta(max_length=2000)]
NodeId = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Comment = Annotated[str, msgspec.Meta(max_length=5000)]
RequiredComment = Annotated[str, msgspec.Meta(min_length=1, max_length=5000)]
Meaning = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
PasswordText = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class Position(msgspec.Struct):
    x: float = 0
    y: float = 0


class Node(msgspec.Struct):
    """`data` by type: approval {approverIds, approvalType any|all, expiresInHours?}; condition {field,
    operator, value}; action {type, config} as an automation action; end {status approved|rejected}."""

    id: NodeId
    type: NodeType
    position: Position = msgspec.field(default_factory=Position)
    data: dict[str, Any] = {}


class Edge(msgspec.Struct):
    """A condition's two outgoing edges carry `label` "true" and "false"."""

    id: NodeId
    source: NodeId
    target: NodeId
    label: str | None = None


Nodes = Annotated[list[Node], msgspec.Meta(max_length=200)]
Edges = Annotated[list[Edge], msgspec.Meta(max_length=400)]


class CreateFlowInput(msgspec.Struct):
    formId: Id
    name: FlowName
    description: FlowDescription | None = None
    gxpRequired: bool = False
    nodes: Nodes | None = None
    edges: Edges | None = None


class UpdateFlowInput(msgspec.Struct):
    """Only the given fields change."""

    id: Id
    name: FlowName | UnsetType = UNSET
    description: FlowDescription | None | UnsetType = UNSET
    gxpRequired: bool | UnsetType = UNSET
    nodes: Nodes | UnsetType = UNSET
    edges: Edges | UnsetType = UNSET


class IdInput(msgspec.Struct):
    id: Id


class FormInput(msgspec.Struct):
    formId: Id


class RequestsInput(msgspec.Struct):
    flowId: Id
    page: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 1
    pageSize: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20
    status: RequestStatus | None = None


class FieldModification(msgspec.Struct):
    fieldId: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    newValue: Any = None


Modifications = Annotated[list[FieldModification], msgspec.Meta(max_length=200)]


class DecisionInput(msgspec.Struct):
    """`password` and `meaning` are required on GxP flows (the approver signs again)."""

    requestId: Id
    nodeId: NodeId
    decision: DecisionValue
    comment: Comment | None = None
    fieldModifications: Modifications | None = None
    password: PasswordText | None = None
    meaning: Meaning | None = None


class TokenDecisionInput(msgspec.Struct):
    token: Token
    decision: TokenDecision
    comment: Comment | None = None
    fieldModifications: Modifications | None = None
    ipAddress: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    userAgent: Annotated[str, msgspec.Meta(max_length=1000)] | None = None


class ReturnInput(msgspec.Struct):
    requestId: Id
    comment: RequiredComment


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, min_role: Role = Role.MEMBER,
           token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, min_role=min_role, token_scope=token_scope,
                   summary=summary)


CREATE = _write("formApprovalFlows.create", CreateFlowInput, "Create an (inactive) approval flow for a form; "
                "without nodes and edges it is start → end (approved)")
UPDATE = _write("formApprovalFlows.update", UpdateFlowInput, "Change a flow's name, description, GxP flag or "
                "graph (only the given fields; an active flow's graph is validated again)")
DELETE = _write("formApprovalFlows.delete", IdInput, "Soft-delete a flow without pending or in-progress "
                "requests", token_scope="delete")
ACTIVATE = _write("formApprovalFlows.activate", IdInput, "Validate the graph and make the flow the form's active "
                  "one (its other active flow is deactivated)")
DEACTIVATE = _write("formApprovalFlows.deactivate", IdInput, "Stop opening requests on this flow")
GET = _read("formApprovalFlows.getById", IdInput, "A flow with its request counts per status")
LIST = _read("formApprovalFlows.listByForm", FormInput, "A form's flows with their request counts")
REQUESTS = _read("formApprovalFlows.getRequests", RequestsInput, "A flow's requests, newest first, by page")
REQUEST = _read("formApprovalFlows.getRequestById", IdInput, "A request with its decisions (and signature "
                "manifestations), version history and parent flow")
DECIDE = _write("formApprovalFlows.submitDecisionAuthenticated", DecisionInput, "An approver's decision on the "
                "request's current step; GxP flows need the password and the meaning of the signature",
                min_role=Role.GUEST)
DECIDE_BY_TOKEN = declare("formApprovalFlows.submitDecisionByToken", "mutation", TokenDecisionInput,
                          access=Access.PUBLIC, summary="A decision through an e-mailed single-use token "
                          "(refused on GxP flows)")
RETURN = _write("formApprovalFlows.returnForRevision", ReturnInput, "Send the submission back to its respondent "
                "with a revision link; the request waits and resumes at the returning step",
                min_role=Role.GUEST)
