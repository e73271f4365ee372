"""What a flow actor decides, against memory and without I/O: opening a request and running it through
condition and action nodes to its first approval step, an approver's decision (`any`: the first approval
completes the step; `all`: every approver's; a rejection ends the request at once; a return waits for the
respondent), a return for revision, the respondent's revision resuming the returning step, and expiry.

Decisions of one flow are decided one at a time by its actor, so two approvers deciding at the same instant
are seen in order: on an `all` step both count, on an `any` step the second finds the step complete (409)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import msgspec

from actors.approvals import graph
from actors.approvals.changes import FlowChange, Mail, apply_change
from actors.approvals.commands import Command, Decide, Departed, Expire, Open, Return, Revise
from actors.approvals.link_rules import SPENT, LinkFacts, link_refusal
from actors.approvals.state import FlowRow, FlowState, RequestRow, TokenRow
from actors.approvals.views import record_hash, request_view
from actors.kernel.events import event_payload
from actors.kernel.trail import ActivityEntry
from actors.runtime.actor import Decision, Event
from protocol.errors import BadRequest, Conflict, FieldError, Forbidden, NotFound, Unauthorized
from protocol.ids import Prefix, iso, new_id

ENTITY = "approval_request"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def decision_url(base_url: str, token: str, decision: str) -> str:
    """The e-mailed link: a confirmation page (a GET never decides; mail scanners follow links)."""
    return f"{base_url}/api/approvals/decide?token={token}&decision={decision}"


@dataclass
class Outcome:
    command: Command
    state: FlowState
    organization_id: str
    pieces: list[FlowChange] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def flow(self) -> FlowRow:
        assert self.state.flow is not None
        return self.state.flow

    def change(self, piece: FlowChange) -> None:
        self.pieces.append(piece)
        self.state = apply_change(self.state, piece)

    def put(self, request: RequestRow, **more: Any) -> RequestRow:
        self.change(FlowChange(now=self.command.now, requests=[request], **more))
        return request

    def log(self, request: RequestRow, action: str, actor_id: str | None, old: dict[str, Any],
            new: dict[str, Any], **metadata: Any) -> None:
        entry = ActivityEntry(ENTITY, request.id, action, actor_id,
                              {"flowId": request.flow_id, "formId": request.form_id,
                               "submissionId": request.submission_id, "old": old, "new": new, **metadata})
        self.change(FlowChange(now=self.command.now, activity=[entry]))

    def emit(self, name: str, data: dict[str, Any]) -> None:
        self.events.append((name, event_payload(name, self.organization_id, data, self.command.caller,
                                                self.command.now)))

    def decision(self, reply: Any) -> Decision[FlowChange]:
        if not self.pieces:
            return Decision(reply=reply, events=self.events)
        now = self.command.now
        merged = FlowChange(
            now=now, requests=_last_per_id([r for p in self.pieces for r in p.requests]),
            opened=any(p.opened for p in self.pieces),
            decisions=[d for p in self.pieces for d in p.decisions],
            versions=[v for p in self.pieces for v in p.versions],
            new_tokens=[t for p in self.pieces for t in p.new_tokens if t.token_hash in self.state.tokens],
            spent_tokens=[t for p in self.pieces for t in p.spent_tokens],
            voided=[v for p in self.pieces for v in p.voided],
            action_runs=[a for p in self.pieces for a in p.action_runs],
            activity=[a for p in self.pieces for a in p.activity],
            mails=[m for p in self.pieces for m in p.mails])
        return Decision(reply=reply, change=merged, events=self.events)


def _last_per_id(rows: list[RequestRow]) -> list[RequestRow]:
    last: dict[str, RequestRow] = {}
    for row in rows:
        last[row.id] = row
    return list(last.values())


def _status(old: RequestRow, new: RequestRow) -> tuple[dict[str, Any], dict[str, Any]]:
    return ({"status": old.status, "nodeId": old.node_id, "step": old.step, "version": old.version},
            {"status": new.status, "nodeId": new.node_id, "step": new.step, "version": new.version})


def _mail(out: Outcome, kind: str, to: str, subject: str, body: str, secrets_: tuple[str, ...]) -> Mail:
    context = out.command.context
    return Mail(kind, to, subject, body, secrets_, context.smtp_configured)


def _enter_step(out: Outcome, request: RequestRow, node: dict[str, Any]) -> RequestRow:
    """Wait at approval node `node`: a new step, its expiry, and each approver's approve and reject links."""
    now, context = out.command.now, out.command.context
    hours = node["data"].get("expiresInHours")
    entered = msgspec.structs.replace(
        request, node_id=node["id"], step=request.step + 1, step_started_at=now,
        expires_at=None if hours is None else now + timedelta(hours=hours), updated_at=now)
    tokens, mails = [], []
    for user_id in node["data"].get("approverIds", []):
        person = context.people.get(user_id)
        links = {}
        for choice in ("approved", "rejected"):
            token = "apt_" + secrets.token_urlsafe(32)
            links[choice] = token
            tokens.append(TokenRow(token_hash=token_hash(token), request_id=request.id, node_id=node["id"],
                                   step=entered.step, user_id=user_id, decision=choice))
        if person is not None:
            name, email = person
            body = (f"Hello {name},\n\nA submission of the form \"{context.form_name}\" waits for your approval.\n\n"
                    f"Approve: {decision_url(context.base_url, links['approved'], 'approved')}\n"
                    f"Reject: {decision_url(context.base_url, links['rejected'], 'rejected')}\n\n"
                    "Each link works once, and only until this step is complete.\n")
            mails.append(_mail(out, "approval_request", email, f"Approval requested: {context.form_name}", body,
                               (links["approved"], links["rejected"])))
    out.put(entered, new_tokens=tokens, mails=mails)
    out.log(entered, "approval.step_started", None, *_status(request, entered))
    out.emit("approval.requested", {"request": request_view(entered), "nodeId": node["id"],
                                    "approverIds": node["data"].get("approverIds", []),
                                    "approvalType": node["data"].get("approvalType", "any")})
    return entered


def _complete(out: Outcome, request: RequestRow, status: str) -> RequestRow:
    now = out.command.now
    done = msgspec.structs.replace(request, status=status, expires_at=None, revision_token_hash=None,
                                   updated_at=now, completed_at=now)
    out.put(done, voided=[(request.id, request.step, None)])
    out.log(done, "approval.completed", None, *_status(request, done))
    out.emit("approval.completed", {"request": request_view(done), "status": status})
    return done


def _advance(out: Outcome, request: RequestRow, after: str) -> RequestRow:
    """From node `after` to the next stop: action nodes passed are queued to run once after the commit."""
    stop = graph.walk(out.flow.nodes, out.flow.edges, after, request.data)
    runs = [{"id": new_id(Prefix.APPROVAL_ACTION_RUN), "request_id": request.id, "flow_id": request.flow_id,
             "node_id": node["id"], "step": request.step, "item_id": request.item_id,
             "action": {"type": node["data"].get("type"), "config": node["data"].get("config", {})},
             "acting_user_id": out.flow.created_by, "created_at": out.command.now} for node in stop.actions]
    if runs:
        out.change(FlowChange(now=out.command.now, action_runs=runs))
    if stop.node["type"] == "approval":
        return _enter_step(out, request, stop.node)
    return _complete(out, request, stop.node["data"].get("status", "rejected"))


def open_request(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    message = command.message
    assert isinstance(message, Open)
    flow = state.flow
    if flow is None or not flow.is_active or flow.deleted_at is not None:
        raise Conflict("the approval flow is no longer active")  # intake looks for the form's active flow again
    now = command.now
    request = RequestRow(id=new_id(Prefix.APPROVAL_REQUEST), flow_id=flow.id, form_id=flow.form_id,
                         submission_id=message.submission_id, item_id=message.item_id, status="pending", node_id=None,
                         step=0, step_started_at=None, expires_at=None, data=message.data, version=message.version,
                         respondent_email=message.respondent_email, revision_token_hash=None, returned_by=None,
                         created_at=now, updated_at=now, completed_at=None, gxp_required=flow.gxp_required)
    out = Outcome(command, state, organization_id)
    out.put(request, opened=True)
    out.log(request, "approval.opened", None, {}, {"status": "pending"})
    start = next(node for node in flow.nodes if node["type"] == "start")
    _advance(out, request, start["id"])
    return out.decision(request.id)


def _approver(out: Outcome, request: RequestRow, user_id: str | None) -> dict[str, Any]:
    """The request's current approval node, if `user_id` is one of its approvers (else 403)."""
    if request.revision_token_hash is not None:
        raise Conflict("the request waits for the respondent's revision")
    node = out.flow.node(request.node_id)
    if node is None or node["type"] != "approval":
        raise Conflict("the request has no current approval step")
    if user_id is None or user_id not in node["data"].get("approverIds", []):
        raise Forbidden("only an approver of the request's current step may decide it")
    return node


def _open(state: FlowState, request_id: str) -> RequestRow:
    request = state.requests.get(request_id)
    if request is None:
        raise Conflict("the request is no longer open: its decision is final")
    return request


def _modified(out: Outcome, request: RequestRow, changes: dict[str, Any], user_id: str, comment: str | None
              ) -> tuple[RequestRow, dict[str, Any]]:
    """The request on a new version when `changes` alter any answer; the changed fields as {old, new}."""
    diff = {key: {"old": request.data.get(key), "new": value} for key, value in changes.items()
            if request.data.get(key) != value}
    if not diff:
        return request, {}
    now = out.command.now
    name, email = out.command.context.people.get(user_id, (None, None))
    data = {**request.data, **{key: change["new"] for key, change in diff.items()}}
    version = {"submission_id": request.submission_id, "version": request.version + 1, "data": data,
               "changed_by": user_id, "changed_by_name": name, "changed_by_email": email,
               "reason": "field_modification", "comment": comment, "created_at": now}
    modified = msgspec.structs.replace(request, data=data, version=request.version + 1, updated_at=now)
    out.put(modified, versions=[version])
    return modified, diff


def _step_approved(node: dict[str, Any], approved: set[str], members: Collection[str]) -> bool:
    """`any`: one approval. `all`: every approver who is still a member of the organization approved (an
    approver who left no longer counts), and at least one did."""
    if node["data"].get("approvalType", "any") == "any":
        return bool(approved)
    remaining = {a for a in node["data"].get("approverIds", []) if a in members}
    return bool(approved) and remaining <= approved


def decide(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    message = command.message
    assert isinstance(message, Decide)
    out = Outcome(command, state, organization_id)
    flow, now = out.flow, command.now
    user_id = message.user_id
    if message.token_hash is not None:
        token = state.tokens.get(message.token_hash)
        request = None if token is None else state.requests.get(token.request_id)
        if token is None or request is None:  # spent, voided, or its request closed
            raise Conflict(SPENT)
        mine = [d.decision for d in state.step_decisions(request) if d.user_id == token.user_id]
        refusal = link_refusal(LinkFacts(
            decided=mine[0] if mine and token.step == request.step else None, request_status=request.status,
            link_step=token.step, request_step=request.step, voided=False, gxp_required=request.gxp_required,
            approver_is_member=token.user_id in command.context.people))
        if refusal is not None:
            raise refusal
        if token.decision != message.decision:
            raise BadRequest(f"this link is for {token.decision}",
                             details=[FieldError("decision", f"this link is for {token.decision}")])
        user_id = token.user_id
    else:
        request = _open(state, message.request_id)
    if message.node_id is not None and message.node_id != request.node_id:
        raise Conflict(f"node {message.node_id} is not the request's current step")
    node = _approver(out, request, user_id)
    assert user_id is not None
    if any(d.user_id == user_id for d in state.step_decisions(request)):
        raise Conflict("you already decided this step")
    if request.gxp_required and not (message.signed and message.meaning):
        raise Unauthorized("a GxP decision needs the approver's password and the meaning of the signature")
    before = request
    request, diff = _modified(out, request, message.modifications, user_id, message.comment)
    if request.status == "pending":
        request = out.put(msgspec.structs.replace(request, status="in_progress", updated_at=now))
    name, email = command.context.people.get(user_id, (None, None))
    signature = None
    if request.gxp_required:
        signature = {"signerName": name, "signerEmail": email, "signedAt": iso(now), "meaning": message.meaning,
                     "recordHash": record_hash(request.submission_id, request.version, request.data)}
    decision_id = new_id(Prefix.APPROVAL_DECISION)
    row = {"id": decision_id, "request_id": request.id, "flow_id": flow.id, "form_id": flow.form_id,
           "node_id": node["id"], "step": request.step, "user_id": user_id, "user_name": name, "user_email": email,
           "decision": message.decision, "comment": message.comment,
           "field_modifications": [{"fieldId": k, "oldValue": v["old"], "newValue": v["new"]} for k, v in diff.items()],
           "via": "token" if message.token_hash else "session", "ip_address": message.ip_address,
           "user_agent": message.user_agent, "version": request.version, "signature": signature, "created_at": now}
    spent = [message.token_hash] if message.token_hash else []
    out.change(FlowChange(now=now, decisions=[row], spent_tokens=spent, voided=[(request.id, request.step, user_id)]))
    approved = {d.user_id for d in out.state.step_decisions(request) if d.decision == "approved"}
    if message.decision == "rejected":
        result = "rejected"
    elif message.decision == "returned_for_revision":
        result = "returned"
    elif _step_approved(node, approved, command.context.people):
        result = "approved"
    else:
        result = "pending"
    complete = result != "pending"
    out.log(request, "approval.decided", user_id, *_status(before, request), decision=message.decision,
            decisionId=decision_id, nodeId=node["id"], fieldChanges=diff, signed=signature is not None)
    out.emit("approval.decided", {"request": request_view(request), "decisionId": decision_id, "nodeId": node["id"],
                                  "decision": message.decision, "decidedBy": {"id": user_id, "name": name},
                                  "comment": message.comment, "stepComplete": complete, "stepResult": result,
                                  "signature": signature})
    if result == "rejected":
        _complete(out, request, "rejected")
    elif result == "returned":
        _return(out, request, user_id, message.comment)
    elif result == "approved":
        voided = FlowChange(now=now, voided=[(request.id, request.step, None)])
        out.change(voided)
        _advance(out, request, node["id"])
    return out.decision({"decisionId": decision_id, "stepComplete": complete, "stepResult": result})


def _return(out: Outcome, request: RequestRow, user_id: str, comment: str | None) -> RequestRow:
    """Send the submission back to its respondent: a revision link, and the request waits at this node."""
    now, context = out.command.now, out.command.context
    token = "rev_" + secrets.token_urlsafe(32)
    waiting = msgspec.structs.replace(request, revision_token_hash=token_hash(token), returned_by=user_id,
                                      expires_at=None, status="in_progress", updated_at=now)
    mails = []
    if request.respondent_email:
        link = f"{context.public_url}?revision={token}"
        body = (f"Your submission of the form \"{context.form_name}\" was returned for revision.\n\n"
                f"Reason: {comment or ''}\n\nRevise it here: {link}\n")
        mails.append(_mail(out, "approval_revision", request.respondent_email,
                           f"Please revise your submission: {context.form_name}", body, (token,)))
    out.put(waiting, voided=[(request.id, request.step, None)], mails=mails)
    out.log(waiting, "approval.returned", user_id, *_status(request, waiting), comment=comment)
    return waiting


def return_for_revision(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    message = command.message
    assert isinstance(message, Return)
    out = Outcome(command, state, organization_id)
    request = _open(state, message.request_id)
    user_id = command.caller.user_id if command.caller else None
    node = _approver(out, request, user_id)
    assert user_id is not None
    if request.status == "pending":
        request = out.put(msgspec.structs.replace(request, status="in_progress", updated_at=command.now))
    waiting = _return(out, request, user_id, message.comment)
    name = command.context.people.get(user_id, ("", ""))[0]
    out.emit("approval.decided", {"request": request_view(waiting), "decisionId": None, "nodeId": node["id"],
                                  "decision": "returned_for_revision", "decidedBy": {"id": user_id, "name": name},
                                  "comment": message.comment, "stepComplete": True, "stepResult": "returned",
                                  "signature": None})
    return out.decision({"success": True, "requestId": waiting.id, "status": waiting.status,
                         "message": "the submission was returned to its respondent for revision"})


def revise(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    message = command.message
    assert isinstance(message, Revise)
    out = Outcome(command, state, organization_id)
    request = next((r for r in state.requests.values() if r.revision_token_hash == message.token_hash), None)
    if request is None:
        raise NotFound("revision link not found")
    node = out.flow.node(request.node_id)
    now = command.now
    version = {"submission_id": request.submission_id, "version": request.version + 1, "data": message.answers,
               "changed_by": None, "changed_by_name": None, "changed_by_email": request.respondent_email,
               "reason": "revision", "comment": None, "created_at": now}
    revised = out.put(msgspec.structs.replace(request, data=message.answers, version=request.version + 1,
                                              revision_token_hash=None, returned_by=None, updated_at=now),
                      versions=[version])
    out.log(revised, "approval.revised", None, *_status(request, revised))
    if node is None or node["type"] != "approval":
        _complete(out, revised, "rejected")
    else:
        _enter_step(out, revised, node)
    return out.decision({"success": True, "message": command.context.success_message,
                         "submissionId": request.submission_id})


def expire(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    message = command.message
    assert isinstance(message, Expire)
    out = Outcome(command, state, organization_id)
    expired = 0
    for request_id in message.request_ids:
        request = out.state.requests.get(request_id)
        if request is None or request.expires_at is None or request.expires_at > command.now \
                or request.revision_token_hash is not None:
            continue
        _complete(out, request, "expired")
        expired += 1
    return out.decision(expired)


def departed(organization_id: str, state: FlowState, command: Command) -> Decision[FlowChange]:
    """An approver left the organization: each open `all` step of theirs whose remaining approvers have all
    approved completes now (no decision will come from them to complete it)."""
    message = command.message
    assert isinstance(message, Departed)
    out = Outcome(command, state, organization_id)
    completed = 0
    for request in list(state.requests.values()):
        node = out.flow.node(request.node_id)
        if (node is None or node["type"] != "approval" or request.revision_token_hash is not None
                or node["data"].get("approvalType", "any") != "all"
                or message.user_id not in node["data"].get("approverIds", [])):
            continue
        approved = {d.user_id for d in state.step_decisions(request) if d.decision == "approved"}
        if not _step_approved(node, approved, command.context.people):
            continue
        out.log(request, "approval.step_completed", None, *_status(request, request), nodeId=node["id"],
                reason="the remaining approvers approved; an approver left the organization",
                departedUserId=message.user_id)
        out.change(FlowChange(now=command.now, voided=[(request.id, request.step, None)]))
        _advance(out, request, node["id"])
        completed += 1
    return out.decision(completed)
