"""Helpers for the tests where the parts of issue 11 meet: an approval flow on a form made through
`formApprovalFlows.create` + `activate`, and the tokens the e-mails carry (read from the stored e-mails)."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest

from tests.harness import Api, Org
from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import form_board, mailed_text


@pytest.fixture
async def fboard(org: Org) -> Board:
    return await form_board(org)


def one_step(approver_ids: list[str], *, before: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """start → (the `before` nodes, in a row) → approval `step` by `approver_ids` → end approved."""
    chain = [{"id": "start", "type": "start", "data": {}}, *(before or []),
             {"id": "step", "type": "approval", "data": {"approverIds": approver_ids, "approvalType": "any"}},
             {"id": "end", "type": "end", "data": {"status": "approved"}}]
    edges = [{"id": f"e{n}", "source": a["id"], "target": b["id"]} for n, (a, b) in enumerate(pairwise(chain))]
    return {"nodes": chain, "edges": edges}


async def active_flow(api: Api, form_id: str, graph: dict[str, Any], *, gxp: bool = False) -> dict[str, Any]:
    made = await api.mutate("formApprovalFlows.create", {"formId": form_id, "name": "Review", "gxpRequired": gxp,
                                                         **graph})
    assert made.status == 200, made.body
    active = await api.mutate("formApprovalFlows.activate", {"id": made.data["id"]})
    assert active.status == 200, active.body
    return dict(active.data)


async def request_of(api: Api, flow_id: str) -> dict[str, Any]:
    """The flow's one request, in full (getRequestById)."""
    listed = await api.query("formApprovalFlows.getRequests", {"flowId": flow_id})
    assert listed.status == 200, listed.body
    [summary] = listed.data["requests"]
    reply = await api.query("formApprovalFlows.getRequestById", {"id": summary["id"]})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def mailed_token(org: Org, to: str, kind: str, pattern: str) -> str:
    found = re.search(pattern, await mailed_text(org, to, kind))
    assert found, f"no token in the {kind} e-mail"
    return found[1]
