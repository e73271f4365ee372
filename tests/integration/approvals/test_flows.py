"""Flow procedures: create (default start → end), update (only given fields; an active graph validated
again), each graph rule of activation (400 naming the node ids), one active flow per form, soft delete
refused with open requests, lists with request counts and pages, tenant isolation of every id, and expiry on
the fake clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from actors.approvals.workers import expire_due
from actors.runtime.clock import ManualClock
from tests.harness import make_org
from tests.integration.approvals.conftest import Form, decide, make_flow, make_form, request, submit
from tests.integration.approvals.test_decisions import one_step
from tests.integration.automations.conftest import rule
from tests.smtp_sink import QUIET_PLAIN_AUTH
from web.keys import NODE

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


def _node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "type": kind, "data": data}


def _edge(source: str, target: str, label: str | None = None) -> dict[str, Any]:
    return {"id": f"{source}-{target}", "source": source, "target": target, "label": label}


async def test_create_default_update_and_list(form: Form) -> None:
    made = await form.api.mutate("formApprovalFlows.create", {"formId": form.id, "name": "Simple"})
    assert made.status == 200, made.body
    flow = made.data
    assert [n["type"] for n in flow["nodes"]] == ["start", "end"] and flow["nodes"][1]["data"]["status"] == "approved"
    assert flow["isActive"] is False and flow["gxpRequired"] is False and flow["id"].startswith("flow_")
    renamed = await form.api.mutate("formApprovalFlows.update", {"id": flow["id"], "name": "Renamed"})
    assert renamed.data["name"] == "Renamed" and renamed.data["nodes"] == flow["nodes"]
    listed = await form.api.query("formApprovalFlows.listByForm", {"formId": form.id})
    assert [f["id"] for f in listed.data["flows"]] == [flow["id"]]
    assert listed.data["flows"][0]["requestCounts"] == {s: 0 for s in
                                                        ("pending", "in_progress", "approved", "rejected", "expired")}


@pytest.mark.parametrize(("nodes", "edges", "named"), [
    ([_node("s", "start"), _node("s2", "start"), _node("e", "end", status="approved")],
     [_edge("s", "e"), _edge("s2", "e")], {"s", "s2"}),
    ([_node("s", "start"), _node("e", "end", status="approved"), _node("lost", "end", status="rejected")],
     [_edge("s", "e")], {"lost"}),
    ([_node("s", "start"), _node("a", "approval", approverIds=["OWNER"]), _node("b", "approval",
                                                                              approverIds=["OWNER"])],
     [_edge("s", "a"), _edge("a", "b"), _edge("b", "a")], {"a", "b"}),
    ([_node("s", "start"), _node("a", "approval", approverIds=["OWNER"]), _node("e", "end", status="approved")],
     [_edge("s", "a")], {"a", "e"}),  # a has no way out, so e is not reachable either
    ([_node("s", "start"), _node("c", "condition", field="amount", operator="gt", value=1),
      _node("e", "end", status="approved")], [_edge("s", "c"), _edge("c", "e", "true")], {"c"}),
    ([_node("s", "start"), _node("a", "approval", approverIds=[]), _node("e", "end", status="approved")],
     [_edge("s", "a"), _edge("a", "e")], {"a"}),
])
async def test_activation_validates_each_graph_rule(form: Form, nodes: list[dict[str, Any]],
                                                    edges: list[dict[str, Any]], named: set[str]) -> None:
    for node in nodes:
        if node["data"].get("approverIds") == ["OWNER"]:
            node["data"]["approverIds"] = [form.org.owner_id]
    flow = await make_flow(form, {"nodes": nodes, "edges": edges}, activate=False)
    reply = await form.api.mutate("formApprovalFlows.activate", {"id": flow["id"]})
    assert reply.status == 400, reply.body
    assert {d["field"].removeprefix("nodes.") for d in reply.error["data"]["details"]} == named


async def test_node_data_is_checked_on_save(form: Form) -> None:
    reply = await form.api.mutate("formApprovalFlows.create", {"formId": form.id, "name": "Bad", "nodes": [
        _node("s", "start"), _node("a", "approval", approverIds=["usr_nobody"], approvalType="most"),
        _node("c", "condition", field="nope", operator="gt"), _node("x", "action", type="explode"),
        _node("e", "end", status="maybe")], "edges": [_edge("s", "ghost")]})
    assert reply.status == 400, reply.body
    assert {d["field"] for d in reply.error["data"]["details"]} == {"nodes.a", "nodes.c", "nodes.x", "nodes.e",
                                                                   "nodes.ghost"}


async def test_node_data_of_the_wrong_json_type_is_a_400_naming_the_node(form: Form) -> None:
    # An action's type or a condition's field given as an array or object once answered 500 (unhashable).
    reply = await form.api.mutate("formApprovalFlows.create", {"formId": form.id, "name": "Bad", "nodes": [
        _node("s", "start"), _node("x", "action", type=["set_value"]), _node("y", "action", type={"a": 1}),
        _node("c", "condition", field=["amount"], operator="gt"), _node("d", "condition", field={"k": 1},
                                                                        operator=["gt"])], "edges": []})
    assert reply.status == 400, reply.body
    assert {d["field"] for d in reply.error["data"]["details"]} == {"nodes.x", "nodes.y", "nodes.c", "nodes.d"}


def _with_action(action: dict[str, Any]) -> dict[str, Any]:
    return {"nodes": [_node("s", "start"), {"id": "w", "type": "action", "data": action}, _node("e", "end",
                                                                                               status="approved")],
            "edges": [_edge("s", "w"), _edge("w", "e")]}


@pytest.mark.parametrize(("action", "field"), [
    ({"type": "call_webhook", "config": {"url": "https://93.184.215.14/hook", "method": "FETCH"}}, "config.method"),
    ({"type": "call_webhook", "config": {"url": "ftp://x", "method": "POST"}}, "config.url"),
    ({"type": "set_value", "config": {"columnId": "col_x", "value": ""}}, "config.value"),
    ({"type": "send_notification", "config": {"userIds": [], "message": "hi"}}, "config.userIds"),
])
async def test_an_action_node_is_refused_exactly_as_the_same_automation_action(
        form: Form, action: dict[str, Any], field: str) -> None:
    automation = await form.api.mutate("automations.create", rule(form.board.id, actions=[action]))
    assert automation.status == 400, automation.body
    assert [d["field"] for d in automation.error["data"]["details"]] == [f"actions.0.{field}"]
    reply = await form.api.mutate("formApprovalFlows.create", {"formId": form.id, "name": "Hook",
                                                               **_with_action(action)})
    assert reply.status == 400, reply.body
    [detail] = reply.error["data"]["details"]
    assert detail["field"] == "nodes.w" and detail["message"].startswith(f"{field}: "), detail
    assert reply.error["data"]["nodeIds"] == ["w"]
    assert (await form.api.query("formApprovalFlows.listByForm", {"formId": form.id})).data["flows"] == []

    # A flow saved before with that action is refused at activation, as on save.
    fine = await make_flow(form, _with_action({"type": "archive_item", "config": {}}), activate=False)
    pool = form.org.anonymous.client.server.app[NODE].pool
    await pool.execute("UPDATE approval_flows SET nodes = $2 WHERE id = $1", fine["id"],
                       _with_action(action)["nodes"])
    refused = await form.api.mutate("formApprovalFlows.activate", {"id": fine["id"]})
    assert refused.status == 400 and [d["field"] for d in refused.error["data"]["details"]] == ["nodes.w"], \
        refused.body


async def test_an_action_node_the_automation_takes_is_taken(form: Form) -> None:
    action = {"type": "call_webhook", "config": {"url": "https://93.184.215.14/hook", "method": "post"}}
    assert (await form.api.mutate("automations.create", rule(form.board.id, actions=[action]))).status == 200
    flow = await make_flow(form, _with_action(action))
    assert flow["isActive"] is True


async def test_one_active_flow_per_form_and_an_active_graph_is_validated_again(form: Form) -> None:
    first = await make_flow(form)
    second = await make_flow(form)
    flows = {f["id"]: f["isActive"] for f in
             (await form.api.query("formApprovalFlows.listByForm", {"formId": form.id})).data["flows"]}
    assert flows == {first["id"]: False, second["id"]: True}
    broken = await form.api.mutate("formApprovalFlows.update", {"id": second["id"], "edges": []})
    assert broken.status == 400, broken.body
    off = await form.api.mutate("formApprovalFlows.deactivate", {"id": second["id"]})
    assert off.data["isActive"] is False
    _, request_id = await submit(form, {"title": "x"})
    assert request_id is None


async def test_a_submission_enters_a_flow_activated_before_its_actor_heard_of_it(form: Form) -> None:
    first = await make_flow(form)
    _, opened = await submit(form, {"title": "first"})  # the first flow's actor is running, active
    second = await make_flow(form, activate=False)
    await form.api.mutate("formApprovalFlows.deactivate", {"id": second["id"]})  # its actor: inactive
    # The switch as another node commits it, before either actor's Refresh arrives.
    pool = form.org.anonymous.client.server.app[NODE].pool
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("UPDATE approval_flows SET is_active = false WHERE id = $1", first["id"])
        await conn.execute("UPDATE approval_flows SET is_active = true WHERE id = $1", second["id"])
    _, request_id = await submit(form, {"title": "second"})
    assert opened is not None and request_id is not None
    assert (await request(form.api, request_id))["flowId"] == second["id"]


async def test_delete_is_soft_and_refused_with_open_requests(form: Form) -> None:
    approver_id, approver = await form.org.add_user("member")
    flow = await make_flow(form, one_step([approver_id]))
    _, request_id = await submit(form, {"title": "Desk"})
    assert request_id is not None
    refused = await form.api.mutate("formApprovalFlows.delete", {"id": flow["id"]})
    assert refused.status == 409, refused.body
    await decide(approver, request_id, "a")
    deleted = await form.api.mutate("formApprovalFlows.delete", {"id": flow["id"]})
    assert deleted.data == {"success": True, "id": flow["id"]}
    gone = await form.api.query("formApprovalFlows.getById", {"id": flow["id"]})
    assert gone.status == 404
    page = await form.api.query("formApprovalFlows.getRequests", {"flowId": flow["id"]})
    assert page.data["total"] == 1 and page.data["requests"][0]["status"] == "approved"


async def test_requests_are_paged(form: Form) -> None:
    flow = await make_flow(form)
    for n in range(3):
        await submit(form, {"title": f"t{n}"})
    page = await form.api.query("formApprovalFlows.getRequests", {"flowId": flow["id"], "page": 2, "pageSize": 2})
    assert (page.data["total"], page.data["page"], len(page.data["requests"])) == (3, 2, 1)
    too_big = await form.api.query("formApprovalFlows.getRequests", {"flowId": flow["id"], "pageSize": 101})
    assert too_big.status == 400
    approved = await form.api.query("formApprovalFlows.getRequests", {"flowId": flow["id"], "status": "pending"})
    assert approved.data["total"] == 0


async def test_another_organizations_ids_are_not_found(form: Form) -> None:
    approver_id, _ = await form.org.add_user("member")
    flow = await make_flow(form, one_step([approver_id]))
    _, request_id = await submit(form, {"title": "Desk"})
    other = await make_org(form.org.anonymous.client)
    api = other.owner
    calls = [("query", "formApprovalFlows.getById", {"id": flow["id"]}),
             ("query", "formApprovalFlows.listByForm", {"formId": form.id}),
             ("query", "formApprovalFlows.getRequests", {"flowId": flow["id"]}),
             ("query", "formApprovalFlows.getRequestById", {"id": request_id}),
             ("mutate", "formApprovalFlows.create", {"formId": form.id, "name": "x"}),
             ("mutate", "formApprovalFlows.update", {"id": flow["id"], "name": "x"}),
             ("mutate", "formApprovalFlows.activate", {"id": flow["id"]}),
             ("mutate", "formApprovalFlows.deactivate", {"id": flow["id"]}),
             ("mutate", "formApprovalFlows.delete", {"id": flow["id"]}),
             ("mutate", "formApprovalFlows.submitDecisionAuthenticated",
              {"requestId": request_id, "nodeId": "a", "decision": "approved"}),
             ("mutate", "formApprovalFlows.returnForRevision", {"requestId": request_id, "comment": "x"})]
    for kind, name, data in calls:
        reply = await (api.query(name, data) if kind == "query" else api.mutate(name, data))
        assert reply.status == 404, (name, reply.body)
    events = await api.rest("GET", "/api/v1/events", params={"stream": f"flow:{flow['id']}"})
    assert events.status == 404
    assert (await request(form.api, str(request_id)))["decisions"] == []


@pytest.fixture
def clock() -> ManualClock:
    from datetime import UTC, datetime
    return ManualClock(datetime(2031, 5, 1, 8, 0, tzinfo=UTC))


async def test_a_step_that_outlives_its_hours_expires(clocked_client: Any, clock: ManualClock) -> None:
    form = await make_form(await make_org(clocked_client))
    approver_id, approver = await form.org.add_user("member")
    graph = one_step([approver_id])
    graph["nodes"][1]["data"]["expiresInHours"] = 2  # type: ignore[index]
    flow = await make_flow(form, graph)
    _, request_id = await submit(form, {"title": "Desk"})
    assert request_id is not None
    node = clocked_client.server.app[NODE]
    clock.advance(timedelta(hours=1, minutes=59).total_seconds())
    assert await expire_due(node) == 0
    clock.advance(timedelta(minutes=2).total_seconds())
    assert await expire_due(node) == 1
    expired = await request(form.api, request_id)
    assert expired["status"] == "expired"
    late = await decide(approver, request_id, "a")
    assert late.status == 409, late.body
    events = await form.api.rest("GET", "/api/v1/events", params={"stream": f"flow:{flow['id']}"})
    completed = [e for e in events.body["data"] if e["event"] == "approval.completed"]
    assert completed[0]["data"]["status"] == "expired"


async def test_more_requests_due_than_one_batch_all_expire_in_one_pass(clocked_client: Any, clock: ManualClock
                                                                       ) -> None:
    form = await make_form(await make_org(clocked_client))
    approver_id, _ = await form.org.add_user("member")
    graph = one_step([approver_id])
    graph["nodes"][1]["data"]["expiresInHours"] = 1  # type: ignore[index]
    await make_flow(form, graph)
    request_ids = [(await submit(form, {"title": f"t{n}"}))[1] for n in range(5)]
    clock.advance(timedelta(hours=1).total_seconds())
    # Once a minute the worker passes; a backlog larger than its batch once waited a minute per batch.
    assert await expire_due(clocked_client.server.app[NODE], batch=2) == 5
    assert {(await request(form.api, str(rid)))["status"] for rid in request_ids} == {"expired"}
