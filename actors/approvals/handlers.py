"""The twelve `formApprovalFlows.*` procedures. Flow definitions are a service of plain
transactions (create, update, activate, deactivate, delete), each followed by a `Refresh` of the flow's actor;
decisions and returns go to the actor after the handler checked what needs I/O (the GxP password, the
modified answers against the form's schema and the organization's files); reads come from PostgreSQL, where
every change the actor answered is committed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from actors.approvals import graph
from actors.approvals.commands import Decide, Refresh, Return
from actors.approvals.deciders import token_hash
from actors.approvals.link_rules import LinkFacts, link_refusal
from actors.approvals.routing import ask_flow, context, form_keys, schema_of, visible_flow
from actors.approvals.views import answer_summary, decision_view, flow_view, request_view, version_view
from actors.automations.handlers import check_action
from actors.forms.access import visible_form
from actors.forms.answers import file_ids, validate_answers
from actors.identity import throttle
from actors.identity.passwords import verify_secret
from actors.kernel.handlers import Implementations
from actors.kernel.membership_cache import member_role, org_members
from actors.kernel.node import Node
from protocol import approvals as spec
from protocol.caller import Caller
from protocol.errors import (
    ApiError,
    BadRequest,
    Conflict,
    FieldError,
    NotFound,
    Unauthorized,
    ValidationFailed,
)
from protocol.ids import Prefix, new_id
from storage import accounts
from storage import approvals as repo
from storage import forms as form_repo

procedures = Implementations()

_COLUMNS = {"name": "name", "description": "description", "gxpRequired": "gxp_required", "nodes": "nodes",
            "edges": "edges"}


def _graph(nodes: list[spec.Node], edges: list[spec.Edge]) -> graph.Graph:
    return ([msgspec.to_builtins(node) for node in nodes], [msgspec.to_builtins(edge) for edge in edges])


async def _action_faults(node: Node, nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each action node's config checked as the same action in an automation is (the automations package's
    own check): (node id, `config.<key>: why`) for each refusal."""
    faults: list[tuple[str, str]] = []
    for step in nodes:
        if step["type"] != "action":
            continue
        try:
            await check_action(node, step["data"]["type"], step["data"].get("config", {}))
        except ValidationFailed as refused:
            faults.extend((step["id"], f"{d.field}: {d.message}") for d in refused.details)
    return faults


async def _checked(node: Node, caller: Caller, form: asyncpg.Record, nodes: list[dict[str, Any]],
                   edges: list[dict[str, Any]], *, integrity: bool) -> None:
    graph.check_shape(nodes, edges, members=await org_members(node, caller.org_id), form_keys=form_keys(form))
    faults = await _action_faults(node, nodes)
    if faults:
        raise graph.refuse("the flow's graph is malformed", faults)
    if integrity:
        graph.check_integrity(nodes, edges)


async def _refresh(node: Node, caller: Caller, flow_ids: list[str]) -> None:
    for flow_id in flow_ids:
        await ask_flow(node, caller, caller.org_id, flow_id, Refresh())


async def _view(node: Node, caller: Caller, row: asyncpg.Record) -> dict[str, Any]:
    counts = await repo.request_counts(node.pool, caller.org_id, [row["id"]])
    return flow_view(row, counts[row["id"]])


@procedures.implement(spec.CREATE)
async def create(node: Node, caller: Caller, data: spec.CreateFlowInput) -> dict[str, Any]:
    form = await visible_form(node, caller, data.formId)
    if data.nodes is None and data.edges is None:
        nodes, edges = graph.default_graph()
    else:
        nodes, edges = _graph(data.nodes or [], data.edges or [])
    await _checked(node, caller, form, nodes, edges, integrity=False)
    async with node.write(caller, missing=NotFound("form not found")) as uow:
        row = await repo.insert_flow(uow.conn, flow_id=new_id(Prefix.APPROVAL_FLOW), org_id=caller.org_id,
                                     form_id=form["id"], name=data.name, description=data.description,
                                     gxp=data.gxpRequired, nodes=nodes, edges=edges, created_by=caller.user_id,
                                     now=uow.now)
        await uow.activity("approval_flow", row["id"], "approval_flow.created",
                           {"formId": form["id"], "name": data.name, "gxpRequired": data.gxpRequired})
    return flow_view(row, {})


@procedures.implement(spec.UPDATE)
async def update(node: Node, caller: Caller, data: spec.UpdateFlowInput) -> dict[str, Any]:
    given = {column: getattr(data, name) for name, column in _COLUMNS.items()
             if getattr(data, name) is not msgspec.UNSET}
    if not given:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    flow, form = await visible_flow(node, caller, data.id)
    if "nodes" in given:
        given["nodes"] = [msgspec.to_builtins(n) for n in given["nodes"]]
    if "edges" in given:
        given["edges"] = [msgspec.to_builtins(e) for e in given["edges"]]
    async with node.write(caller) as uow:
        current = await repo.get_flow(uow.conn, caller.org_id, data.id, lock=True)
        if current is None:
            raise NotFound("approval flow not found")
        nodes, edges = given.get("nodes", current["nodes"]), given.get("edges", current["edges"])
        if "nodes" in given or "edges" in given:
            await _checked(node, caller, form, nodes, edges, integrity=current["is_active"])
        row = await repo.update_flow(uow.conn, caller.org_id, data.id, given, uow.now)
        old = {name: current[column] for name, column in _COLUMNS.items() if column in given}
        new = {name: row[column] for name, column in _COLUMNS.items() if column in given}
        await uow.activity("approval_flow", row["id"], "approval_flow.updated", {"old": old, "new": new})
    await _refresh(node, caller, [row["id"]])
    return await _view(node, caller, row)


@procedures.implement(spec.ACTIVATE)
async def activate(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    flow, form = await visible_flow(node, caller, data.id)
    await _checked(node, caller, form, flow["nodes"], flow["edges"], integrity=True)
    async with node.write(caller) as uow:
        if not await repo.lock_form(uow.conn, caller.org_id, form["id"]):
            raise NotFound("approval flow not found")
        current = await repo.get_flow(uow.conn, caller.org_id, data.id, lock=True)
        if current is None:
            raise NotFound("approval flow not found")
        graph.check_integrity(current["nodes"], current["edges"])
        others = await repo.deactivate_others(uow.conn, caller.org_id, form["id"], data.id, uow.now)
        row = await repo.update_flow(uow.conn, caller.org_id, data.id, {"is_active": True}, uow.now)
        await uow.activity("approval_flow", row["id"], "approval_flow.activated",
                           {"old": {"isActive": current["is_active"]}, "new": {"isActive": True},
                            "deactivated": others})
    await _refresh(node, caller, [*others, row["id"]])
    return await _view(node, caller, row)


@procedures.implement(spec.DEACTIVATE)
async def deactivate(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    await visible_flow(node, caller, data.id)
    async with node.write(caller) as uow:
        current = await repo.get_flow(uow.conn, caller.org_id, data.id, lock=True)
        if current is None:
            raise NotFound("approval flow not found")
        row = await repo.update_flow(uow.conn, caller.org_id, data.id, {"is_active": False}, uow.now)
        await uow.activity("approval_flow", row["id"], "approval_flow.deactivated",
                           {"old": {"isActive": current["is_active"]}, "new": {"isActive": False}})
    await _refresh(node, caller, [row["id"]])
    return await _view(node, caller, row)


@procedures.implement(spec.DELETE)
async def delete(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    await visible_flow(node, caller, data.id)
    async with node.write(caller) as uow:
        # The lock keeps a request from opening meanwhile (the actor's commit takes it FOR SHARE).
        current = await repo.get_flow(uow.conn, caller.org_id, data.id, lock=True)
        if current is None:
            raise NotFound("approval flow not found")
        if await repo.open_request_count(uow.conn, caller.org_id, data.id):
            raise Conflict("the flow has pending or in-progress requests")
        await repo.update_flow(uow.conn, caller.org_id, data.id, {"is_active": False, "deleted_at": uow.now},
                               uow.now)
        await uow.activity("approval_flow", data.id, "approval_flow.deleted", {"name": current["name"]})
    await _refresh(node, caller, [data.id])
    return {"success": True, "id": data.id}


@procedures.implement(spec.GET)
async def get(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    flow, _ = await visible_flow(node, caller, data.id)
    return await _view(node, caller, flow)


@procedures.implement(spec.LIST)
async def list_by_form(node: Node, caller: Caller, data: spec.FormInput) -> dict[str, Any]:
    await visible_form(node, caller, data.formId)
    rows = await repo.flows_of_form(node.pool, caller.org_id, data.formId)
    counts = await repo.request_counts(node.pool, caller.org_id, [row["id"] for row in rows])
    return {"flows": [flow_view(row, counts[row["id"]]) for row in rows]}


@procedures.implement(spec.REQUESTS)
async def get_requests(node: Node, caller: Caller, data: spec.RequestsInput) -> dict[str, Any]:
    await visible_flow(node, caller, data.flowId, deleted=True)
    rows, total = await repo.list_requests(node.pool, caller.org_id, data.flowId, data.status, data.pageSize,
                                           (data.page - 1) * data.pageSize)
    return {"requests": [request_view(row) for row in rows], "total": total, "page": data.page,
            "pageSize": data.pageSize, "totalPages": (total + data.pageSize - 1) // data.pageSize}


async def _visible_request(node: Node, caller: Caller, request_id: str) -> tuple[asyncpg.Record, asyncpg.Record,
                                                                               asyncpg.Record]:
    request = await repo.get_request(node.pool, caller.org_id, request_id)
    if request is None:
        raise NotFound("approval request not found")
    try:
        flow, form = await visible_flow(node, caller, request["flow_id"], deleted=True)
    except NotFound:
        raise NotFound("approval request not found") from None
    return request, flow, form


@procedures.implement(spec.REQUEST)
async def get_request(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    request, flow, _ = await _visible_request(node, caller, data.id)
    decisions = await repo.decisions(node.pool, caller.org_id, request["id"])
    versions = await repo.versions(node.pool, caller.org_id, request["submission_id"])
    runs = await repo.action_runs(node.pool, caller.org_id, request["id"])
    return {**request_view(request), "data": request["data"],
            "decisions": [decision_view(row) for row in decisions],
            "versions": [version_view(row) for row in versions],
            "actionRuns": [{"nodeId": r["node_id"], "type": r["action"].get("type"), "status": r["status"],
                            "error": r["error"]} for r in runs],
            "flow": flow_view(flow)}


async def modifications(node: Node, org_id: str, form: asyncpg.Record,
                        given: list[spec.FieldModification] | None) -> dict[str, Any]:
    """The modified answers, checked against the form's schema (422 naming every bad key) and the
    organization's files."""
    if not given:
        return {}
    keys = form_keys(form)
    unknown = [FieldError(f"fieldModifications.{m.fieldId}", "is not a field of the form")
               for m in given if m.fieldId not in keys]
    if unknown:
        raise ValidationFailed.naming(unknown)
    answers = {m.fieldId: m.newValue for m in given}
    schema = schema_of(form)
    clean = validate_answers(schema, answers, only=answers)
    named = file_ids(schema, clean)
    missing = set(named) - await form_repo.existing_files(node.pool, org_id, named)
    if missing:
        bad = [c.key for c in schema.components if c.type == "file" and set(clean.get(c.key) or ()) & missing]
        raise ValidationFailed.naming([FieldError(key, "names a file that does not exist") for key in bad])
    return {key: clean.get(key) for key in answers}


async def _signed(node: Node, caller: Caller, data: spec.DecisionInput) -> bool:
    """A GxP signature: the meaning given and the approver's password right (401 otherwise, nothing kept),
    each try counted by the account's guessing throttle as a login is."""
    if data.meaning is None:
        raise ValidationFailed.of("meaning", "a GxP decision needs the meaning of the signature")
    if data.password is None:
        raise Unauthorized("a GxP decision needs the approver's password", details=[
            FieldError("password", "required to sign")])
    signer = await repo.signer(node.pool, caller.uid)
    if signer is None:
        raise Unauthorized("the password is not right; nothing was recorded",
                           details=[FieldError("password", "is not right")])
    # The password is guessed here as at login: the same account throttle (429 while it waits).
    key = throttle.account_key(signer["email"])
    await throttle.attempt(node, throttle.ACCOUNT, key)
    if not await verify_secret(data.password, signer["password_hash"]):
        raise Unauthorized("the password is not right; nothing was recorded",
                           details=[FieldError("password", "is not right")])
    await throttle.succeeded(node, key)
    return True


@procedures.implement(spec.DECIDE)
async def decide(node: Node, caller: Caller, data: spec.DecisionInput) -> dict[str, Any]:
    request, _, form = await _visible_request(node, caller, data.requestId)
    changes = await modifications(node, caller.org_id, form, data.fieldModifications)
    # Judged by the regime the request opened under, not the flow's flag now.
    signed = await _signed(node, caller, data) if request["gxp_required"] else False
    message = Decide(request_id=request["id"], node_id=data.nodeId, decision=data.decision, comment=data.comment,
                     modifications=changes, meaning=data.meaning, signed=signed, user_id=caller.user_id)
    reply: dict[str, Any] = await ask_flow(node, caller, caller.org_id, request["flow_id"], message,
                                           await context(node, caller.org_id, form))
    return reply


@dataclass(frozen=True)
class DecisionLink:
    """What an e-mailed decision link asks its approver to decide, as its page shows it."""

    decision: str                      # the link's own: approved or rejected
    form_name: str
    flow_name: str
    step_name: str
    step_number: int                   # of `step_count` approval steps, on the request's path through the flow
    step_count: int | None             # None: the link's step is not on the path its answers take now
    submitted_by: str | None           # "Name <e-mail>", the respondent's e-mail, or None (anonymous)
    submitted_at: datetime
    answers: list[tuple[str, str]]     # (field label, answer) of the first answered fields
    more_answers: int


SUMMARY_ANSWERS = 5


async def _link_refusal(node: Node, org_id: str, link: asyncpg.Record, request: asyncpg.Record
                        ) -> ApiError | None:
    """The rules of link_rules applied to the link and its request as the database has them."""
    mine = [row["decision"] for row in await repo.decisions(node.pool, org_id, request["id"])
            if row["user_id"] == link["user_id"] and row["step"] == link["step"]]
    used = mine[0] if mine else (link["decision"] if link["used_at"] is not None else None)
    return link_refusal(LinkFacts(
        decided=used, request_status=request["status"], link_step=link["step"], request_step=request["step"],
        voided=link["voided_at"] is not None, gxp_required=request["gxp_required"],
        approver_is_member=await member_role(node, org_id, link["user_id"]) is not None))


async def read_decision_link(node: Node, org_id: str, token: str) -> DecisionLink:
    """What the link `token` of organization `org_id` asks to decide, read without deciding anything; 404 when
    it is unknown here, else the refusal its decision would meet (actors/approvals/link_rules.py)."""
    link = await repo.token(node.pool, org_id, token_hash(token))
    request = None if link is None else await repo.get_request(node.pool, org_id, link["request_id"])
    form = None if request is None else await form_repo.get_form(node.pool, org_id, request["form_id"])
    flow = None if request is None else await repo.any_flow(node.pool, org_id, request["flow_id"])
    if link is None or request is None or form is None or flow is None:
        raise NotFound("This decision link is not known here. Check that you opened the whole link from your "
                       "e-mail.")
    refusal = await _link_refusal(node, org_id, link, request)
    if refusal is not None:
        raise refusal
    return await _link_view(node, org_id, link, request, form, flow)


async def _link_view(node: Node, org_id: str, link: asyncpg.Record, request: asyncpg.Record, form: asyncpg.Record,
                     flow: asyncpg.Record) -> DecisionLink:
    submission = await form_repo.get_submission(node.pool, org_id, request["submission_id"])
    submitter = None
    if submission is not None and submission["submitted_by"] is not None:
        submitter = await accounts.user_by_id(node.pool, submission["submitted_by"])
    if submitter is not None:
        submitted_by: str | None = f"{submitter['name']} <{submitter['email']}>"
    else:
        submitted_by = request["respondent_email"] or (submission["respondent_email"] if submission else None)
    path = graph.approval_path(flow["nodes"], flow["edges"], request["data"])
    step: dict[str, Any] = next((n for n in flow["nodes"] if n["id"] == link["node_id"]), {"data": {}})
    answers, more = answer_summary(schema_of(form), request["data"], SUMMARY_ANSWERS)
    on_path = link["node_id"] in path
    return DecisionLink(decision=link["decision"], form_name=form["name"], flow_name=flow["name"],
                        step_name=str(step["data"].get("label") or link["node_id"]),
                        step_number=path.index(link["node_id"]) + 1 if on_path else link["step"],
                        step_count=len(path) if on_path else None, submitted_by=submitted_by,
                        submitted_at=submission["submitted_at"] if submission else request["created_at"],
                        answers=answers, more_answers=more)


async def decide_by_token(node: Node, org_id: str, data: spec.TokenDecisionInput, *,
                          either_decision: bool = False) -> dict[str, Any]:
    """A decision through an e-mailed link (the procedure and the confirmation page's form post). With
    `either_decision` (the page, which offers both) the link decides the other way through its pair in the
    same e-mail, as the approver's other link would."""
    token = await repo.token(node.pool, org_id, token_hash(data.token))
    if token is not None and either_decision and token["decision"] != data.decision:
        token = await repo.paired_token(node.pool, org_id, token["token_hash"], data.decision)
    if token is None:
        raise NotFound("decision link not found")
    request = await repo.get_request(node.pool, org_id, token["request_id"])
    form = None if request is None else await form_repo.get_form(node.pool, org_id, request["form_id"])
    if request is None or form is None:
        raise NotFound("decision link not found")
    refusal = await _link_refusal(node, org_id, token, request)  # as the link's page says it
    if refusal is not None:
        raise refusal
    changes = await modifications(node, org_id, form, data.fieldModifications)
    message = Decide(request_id=request["id"], node_id=None, decision=data.decision, comment=data.comment,
                     modifications=changes, token_hash=token["token_hash"], ip_address=data.ipAddress,
                     user_agent=data.userAgent)
    reply: dict[str, Any] = await ask_flow(node, None, org_id, token["flow_id"], message,
                                           await context(node, org_id, form))
    return reply


@procedures.implement(spec.DECIDE_BY_TOKEN)
async def submit_decision_by_token(node: Node, caller: Caller, data: spec.TokenDecisionInput) -> dict[str, Any]:
    if caller.organization is None:
        raise NotFound("decision link not found")
    return await decide_by_token(node, caller.organization.id, data)


@procedures.implement(spec.RETURN)
async def return_for_revision(node: Node, caller: Caller, data: spec.ReturnInput) -> dict[str, Any]:
    request, _, form = await _visible_request(node, caller, data.requestId)
    ctx = await context(node, caller.org_id, form)
    reply: dict[str, Any] = await ask_flow(node, caller, caller.org_id, request["flow_id"],
                                           Return(request["id"], data.comment), ctx)
    return reply
