"""Approval-flow fixtures: a server that mails through the real SMTP sink, a published form made with
`forms.create`, submissions through `POST /api/forms/<id>/submit` entering its active flow, and the links
approvers and respondents are mailed."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import server_settings
from tests.harness import Api, Org, Reply, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.smtp_sink import Sink, sink_fixture, smtp_url_fixture  # noqa: F401  (fixtures)
from web.keys import NODE

SCHEMA = {"components": [
    {"type": "textfield", "key": "title", "label": "Title", "validate": {"required": True}},
    {"type": "number", "key": "amount", "label": "Amount"},
    {"type": "select", "key": "site", "label": "Site",
     "data": {"values": [{"label": "North", "value": "north"}, {"label": "South", "value": "south"}]}}]}
_LINK = re.compile(r"(https?://\S+\?(?:token|revision)=([^&\s]+))")



@pytest.fixture
def settings(request: pytest.FixtureRequest, smtp_url: str) -> Any:
    return server_settings(request, OBEYA_SMTP_URL=smtp_url)


@dataclass
class Form:
    org: Org
    board: Board
    id: str
    slug: str

    @property
    def api(self) -> Api:
        return self.org.owner


async def make_form(org: Org) -> Form:
    """A published form on a new board, made by the owner with `forms.create`."""
    board = await make_board(org)
    made = await org.owner.mutate("forms.create", {"boardId": board.id, "name": "Purchase request", "schema": SCHEMA,
                                                   "settings": {"successMessage": "Thanks!"}, "status": "published"})
    assert made.status == 200, made.body
    return Form(org, board, made.data["id"], made.data["slug"])


async def recipient_token(form: Form, sink: Sink, email: str) -> str:
    """Send the form to `email` with forms.createDistribution; the tracking token its e-mail links to (a
    respondent known by e-mail: the one revision links go to)."""
    sent = await form.api.mutate("forms.createDistribution", {"formId": form.id, "recipients": [{"email": email}]})
    assert sent.status == 200, sent.body
    [body] = await mails(sink, email, 1)
    found = re.search(rf"/forms/{re.escape(form.slug)}\?t=(\S+)", body)
    assert found, body
    return found[1]


async def submit(form: Form, data: dict[str, Any], *, token: str | None = None) -> tuple[str, str | None]:
    """An anonymous respondent's submission through the public submit path (as the distribution recipient of
    `token` when given), handed by it to the form's active flow: (submission id, request id or None)."""
    body = {**data, "distributionToken": token} if token else data
    reply = await form.org.anonymous.rest("POST", f"/api/forms/{form.id}/submit", body)
    assert reply.status == 200, reply.body
    submission_id = str(reply.body["submissionId"])
    node = form.org.anonymous.client.server.app[NODE]
    request_id = await node.pool.fetchval("SELECT id FROM approval_requests WHERE submission_id = $1", submission_id)
    return submission_id, request_id


def three_step_graph(first: list[str], second: list[str], *, expires: float | None = None) -> dict[str, Any]:
    """condition (amount > 1000) → two approvers `all` → one approver `any` → approved; false → approved."""
    all_step: dict[str, Any] = {"approverIds": first, "approvalType": "all"}
    if expires is not None:
        all_step["expiresInHours"] = expires
    return {"nodes": [
        {"id": "start", "type": "start", "position": {"x": 0, "y": 0}, "data": {}},
        {"id": "big", "type": "condition", "data": {"field": "amount", "operator": "gt", "value": 1000}},
        {"id": "leads", "type": "approval", "data": all_step},
        {"id": "director", "type": "approval", "data": {"approverIds": second, "approvalType": "any"}},
        {"id": "ok", "type": "end", "data": {"status": "approved"}}],
        "edges": [
        {"id": "e1", "source": "start", "target": "big"},
        {"id": "e2", "source": "big", "target": "leads", "label": "true"},
        {"id": "e3", "source": "big", "target": "ok", "label": "false"},
        {"id": "e4", "source": "leads", "target": "director"},
        {"id": "e5", "source": "director", "target": "ok"}]}


async def make_flow(form: Form, graph: dict[str, Any] | None = None, *, gxp: bool = False,
                    activate: bool = True) -> dict[str, Any]:
    made = await form.api.mutate("formApprovalFlows.create", {"formId": form.id, "name": "Spend approval",
                                                              "gxpRequired": gxp, **(graph or {})})
    assert made.status == 200, made.body
    if activate:
        active = await form.api.mutate("formApprovalFlows.activate", {"id": made.data["id"]})
        assert active.status == 200, active.body
        return dict(active.data)
    return dict(made.data)


def one_step(approvers: list[str], kind: str = "any") -> dict[str, object]:
    return {"nodes": [
        {"id": "s", "type": "start", "data": {}},
        {"id": "a", "type": "approval", "data": {"approverIds": approvers, "approvalType": kind}},
        {"id": "e", "type": "end", "data": {"status": "approved"}}],
        "edges": [{"id": "1", "source": "s", "target": "a"}, {"id": "2", "source": "a", "target": "e"}]}


async def email_of(form: Form, user_id: str) -> str:
    node = form.org.anonymous.client.server.app[NODE]
    return str(await node.pool.fetchval("SELECT email FROM users WHERE id = $1", user_id))


async def mails(sink: Sink, recipient: str, count: int) -> list[str]:
    """The bodies of the first `count` e-mails the sink received for `recipient` (the sender is a worker)."""
    deadline = asyncio.get_running_loop().time() + 10
    while len(sink.to(recipient)) < count:
        assert asyncio.get_running_loop().time() < deadline, f"{recipient}: {len(sink.to(recipient))} mails"
        await asyncio.sleep(0.02)
    return [str(message.get_content()) for message in sink.to(recipient)[:count]]


def links(body: str) -> dict[str, str]:
    """The tokens of an e-mail's links: approve/reject for approvers, revision for respondents."""
    found: dict[str, str] = {}
    for line in body.splitlines():
        match = _LINK.search(line)
        if match:
            key = "revision" if "revision=" in match[1] else line.split(":", 1)[0].strip().lower()
            found[key] = match[2]
    return found


async def decide(api: Api, request_id: str, node_id: str, decision: str = "approved", **more: Any) -> Reply:
    return await api.mutate("formApprovalFlows.submitDecisionAuthenticated",
                            {"requestId": request_id, "nodeId": node_id, "decision": decision, **more})


async def request(api: Api, request_id: str) -> dict[str, Any]:
    reply = await api.query("formApprovalFlows.getRequestById", {"id": request_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def flow_events(api: Api, flow_id: str) -> list[dict[str, Any]]:
    reply = await api.rest("GET", "/api/v1/events", params={"stream": f"flow:{flow_id}", "limit": 200})
    assert reply.status == 200, reply.body
    return list(reply.body["data"])


@pytest.fixture
async def form(client: Any) -> Form:
    return await make_form(await make_org(client))
