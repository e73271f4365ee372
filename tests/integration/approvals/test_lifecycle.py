"""A three-step flow (condition → two approvers `all` → one approver `any`) driven to approved, to rejected,
and returned then revised; field modifications and version history; the `flow:<id>` events."""

from __future__ import annotations

from typing import Any

import pytest

from actors.approvals.intake import revision_answers, submit_revision
from server.config import DEFAULT_PORT
from tests.harness import Api
from tests.integration.approvals.conftest import (
    Form,
    decide,
    email_of,
    flow_events,
    links,
    mails,
    make_flow,
    recipient_token,
    request,
    submit,
    three_step_graph,
)
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink
from web.keys import NODE

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


async def approvers(form: Form) -> tuple[list[tuple[str, Api]], tuple[str, Api]]:
    first = [await form.org.add_user("member", name=f"Lead {n}") for n in (1, 2)]
    return first, await form.org.add_user("member", name="Dana Director")


async def test_three_steps_to_approved(form: Form, sink: Sink) -> None:
    (lead1, lead2), director = await approvers(form)
    flow = await make_flow(form, three_step_graph([lead1[0], lead2[0]], [director[0]]))
    _, request_id = await submit(form, {"title": "New press", "amount": 5000})
    assert request_id is not None
    opened = await request(form.api, request_id)
    assert (opened["status"], opened["currentNodeId"]) == ("pending", "leads")
    [mail] = await mails(sink, await email_of(form, lead1[0]), 1)
    assert set(links(mail)) == {"approve", "reject"}

    first = await decide(lead1[1], request_id, "leads", comment="fine")
    assert first.status == 200, first.body
    assert first.data["stepComplete"] is False and first.data["stepResult"] == "pending"
    assert (await request(form.api, request_id))["status"] == "in_progress"
    second = await decide(lead2[1], request_id, "leads")
    assert second.data == {"decisionId": second.data["decisionId"], "stepComplete": True, "stepResult": "approved"}
    assert (await request(form.api, request_id))["currentNodeId"] == "director"
    last = await decide(director[1], request_id, "director")
    assert last.data["stepResult"] == "approved"
    done = await request(form.api, request_id)
    assert done["status"] == "approved" and done["completedAt"] is not None
    assert [d["decidedBy"]["id"] for d in done["decisions"]] == [lead1[0], lead2[0], director[0]]
    assert done["flow"]["id"] == flow["id"] and [v["version"] for v in done["versions"]] == [1]

    events = [e["event"] for e in await flow_events(form.api, flow["id"])]
    assert events == ["approval.requested", "approval.decided", "approval.decided", "approval.requested",
                      "approval.decided", "approval.completed"]
    counts = (await form.api.query("formApprovalFlows.getById", {"id": flow["id"]})).data["requestCounts"]
    assert counts["approved"] == 1 and counts["pending"] == 0
    trail = await form.api.query("activity.listByEntity", {"entityType": "approval_request", "entityId": request_id})
    assert trail.status == 200, trail.body
    completed = next(e for e in trail.data["entries"] if e["action"] == "approval.completed")
    assert completed["metadata"]["old"]["status"] == "in_progress"
    assert completed["metadata"]["new"]["status"] == "approved"


async def test_false_condition_skips_the_approvals(form: Form) -> None:
    (lead1, lead2), director = await approvers(form)
    await make_flow(form, three_step_graph([lead1[0], lead2[0]], [director[0]]))
    _, request_id = await submit(form, {"title": "Pens", "amount": 20})
    assert request_id is not None
    assert (await request(form.api, request_id))["status"] == "approved"


async def test_a_rejection_ends_the_request_at_once(form: Form) -> None:
    (lead1, lead2), director = await approvers(form)
    await make_flow(form, three_step_graph([lead1[0], lead2[0]], [director[0]]))
    _, request_id = await submit(form, {"title": "New press", "amount": 5000})
    assert request_id is not None
    reply = await decide(lead2[1], request_id, "leads", "rejected", comment="no budget")
    assert reply.data["stepComplete"] is True and reply.data["stepResult"] == "rejected"
    assert (await request(form.api, request_id))["status"] == "rejected"
    late = await decide(lead1[1], request_id, "leads")
    assert late.status == 409, late.body


async def test_returned_for_revision_and_revised_resumes_at_the_returning_step(form: Form, sink: Sink) -> None:
    (lead1, lead2), director = await approvers(form)
    await make_flow(form, three_step_graph([lead1[0], lead2[0]], [director[0]]))
    token = await recipient_token(form, sink, "resp@example.test")
    submission_id, request_id = await submit(form, {"title": "New press", "amount": 5000}, token=token)
    assert request_id is not None
    await decide(lead1[1], request_id, "leads")
    await decide(lead2[1], request_id, "leads")
    returned = await decide(director[1], request_id, "director", "returned_for_revision", comment="add a quote")
    assert returned.data["stepResult"] == "returned" and returned.data["stepComplete"] is True
    waiting = await request(form.api, request_id)
    assert waiting["awaitingRevision"] is True and waiting["status"] == "in_progress"
    blocked = await decide(director[1], request_id, "director")
    assert blocked.status == 409, blocked.body

    [_, mail] = await mails(sink, "resp@example.test", 2)  # the distribution's, then the revision link
    assert f"Revise it here: http://{form.org.host}:{DEFAULT_PORT}/forms/{form.slug}?revision=" in mail
    token = links(mail)["revision"]
    node = form.org.anonymous.client.server.app[NODE]
    assert await revision_answers(node, form.org.id, form.id, token) == {"title": "New press", "amount": 5000}
    reply = await submit_revision(node, form.org.id, form.id, token, {"title": "New press", "amount": 4800})
    assert reply == {"success": True, "message": "Thanks!", "submissionId": submission_id}
    assert await revision_answers(node, form.org.id, form.id, token) is None

    resumed = await request(form.api, request_id)
    assert (resumed["currentNodeId"], resumed["awaitingRevision"], resumed["version"]) == ("director", False, 2)
    assert [(v["version"], v["reason"]) for v in resumed["versions"]] == [(1, "submitted"), (2, "revision")]
    final = await decide(director[1], request_id, "director")
    assert final.status == 200, final.body
    assert (await request(form.api, request_id))["status"] == "approved"


async def test_return_for_revision_procedure(form: Form, sink: Sink) -> None:
    lead_id, lead = await form.org.add_user("member")
    await make_flow(form, {"nodes": [
        {"id": "s", "type": "start", "data": {}},
        {"id": "a", "type": "approval", "data": {"approverIds": [lead_id]}},
        {"id": "e", "type": "end", "data": {"status": "approved"}}],
        "edges": [{"id": "1", "source": "s", "target": "a"}, {"id": "2", "source": "a", "target": "e"}]})
    token = await recipient_token(form, sink, "resp@example.test")
    _, request_id = await submit(form, {"title": "Chair", "amount": 50}, token=token)
    assert request_id is not None
    outsider = await form.api.mutate("formApprovalFlows.returnForRevision", {"requestId": request_id,
                                                                             "comment": "why"})
    assert outsider.status == 403, outsider.body
    reply = await lead.mutate("formApprovalFlows.returnForRevision", {"requestId": request_id,
                                                                      "comment": "which chair?"})
    assert reply.status == 200 and reply.data["success"] is True, reply.body
    [_, mail] = await mails(sink, "resp@example.test", 2)  # the distribution's, then the revision link
    assert "which chair?" in mail and "revision" in links(mail)


async def test_field_modifications_make_versions(form: Form) -> None:
    lead_id, lead = await form.org.add_user("member", name="Lena Lead")
    await make_flow(form, {"nodes": [
        {"id": "s", "type": "start", "data": {}},
        {"id": "a", "type": "approval", "data": {"approverIds": [lead_id]}},
        {"id": "e", "type": "end", "data": {"status": "approved"}}],
        "edges": [{"id": "1", "source": "s", "target": "a"}, {"id": "2", "source": "a", "target": "e"}]})
    submission_id, request_id = await submit(form, {"title": "Chair", "amount": 50, "site": "north"})
    assert request_id is not None
    bad = await decide(lead, request_id, "a", fieldModifications=[{"fieldId": "amount", "newValue": "lots"},
                                                                   {"fieldId": "site", "newValue": "east"}])
    assert bad.status == 400, bad.body
    assert {d["field"] for d in bad.error["data"]["details"]} == {"amount", "site"}
    unknown = await decide(lead, request_id, "a", fieldModifications=[{"fieldId": "nope", "newValue": 1}])
    assert unknown.status == 400 and unknown.error["data"]["details"][0]["field"] == "fieldModifications.nope"

    ok = await decide(lead, request_id, "a", comment="cheaper model",
                      fieldModifications=[{"fieldId": "amount", "newValue": 45}])
    assert ok.status == 200, ok.body
    seen = await request(form.api, request_id)
    assert seen["data"]["amount"] == 45 and seen["version"] == 2
    assert seen["versions"][1] == {**seen["versions"][1], "version": 2, "reason": "field_modification",
                                   "changedBy": lead_id, "changedByName": "Lena Lead", "comment": "cheaper model"}
    assert seen["decisions"][0]["fieldModifications"] == [{"fieldId": "amount", "oldValue": 50, "newValue": 45}]
    node = form.org.anonymous.client.server.app[NODE]
    row = await node.pool.fetchrow("SELECT data, version FROM form_submissions WHERE id = $1", submission_id)
    assert row["data"]["amount"] == 45 and row["version"] == 2


async def test_only_an_approver_of_the_current_step_decides(form: Form) -> None:
    (lead1, lead2), director = await approvers(form)
    await make_flow(form, three_step_graph([lead1[0], lead2[0]], [director[0]]))
    _, request_id = await submit(form, {"title": "New press", "amount": 5000})
    assert request_id is not None
    wrong_person = await decide(director[1], request_id, "leads")
    assert wrong_person.status == 403, wrong_person.body
    not_current = await decide(director[1], request_id, "director")
    assert not_current.status == 409, not_current.body
    await decide(lead1[1], request_id, "leads")
    twice = await decide(lead1[1], request_id, "leads")
    assert twice.status == 409, twice.body
    trail: Any = await request(form.api, request_id)
    assert len(trail["decisions"]) == 1


async def test_an_approver_who_left_no_longer_holds_up_an_all_step(form: Form) -> None:
    a_id, a = await form.org.add_user("member")
    b_id, b = await form.org.add_user("member")
    c_id, _ = await form.org.add_user("member")
    graph = {"nodes": [{"id": "s", "type": "start", "data": {}},
                       {"id": "a", "type": "approval", "data": {"approverIds": [a_id, b_id, c_id],
                                                                "approvalType": "all"}},
                       {"id": "e", "type": "end", "data": {"status": "approved"}}],
             "edges": [{"id": "1", "source": "s", "target": "a"}, {"id": "2", "source": "a", "target": "e"}]}
    await make_flow(form, graph)
    _, waiting = await submit(form, {"title": "Desk", "amount": 10})
    _, later = await submit(form, {"title": "Chair", "amount": 10})
    assert waiting is not None and later is not None
    for approver in (a, b):
        assert (await decide(approver, waiting, "a")).data["stepResult"] == "pending"
    assert (await decide(a, later, "a")).data["stepResult"] == "pending"

    removed = await form.api.mutate("organizations.members.remove", {"userId": c_id})
    assert removed.status == 200, removed.body
    # Everyone still a member approved: the step completes when the last one left, with no new decision.
    done = await request(form.api, waiting)
    assert done["status"] == "approved" and len(done["decisions"]) == 2
    # And the other request completes with the last remaining approver's approval.
    last = await decide(b, later, "a")
    assert last.status == 200 and (last.data["stepComplete"], last.data["stepResult"]) == (True, "approved")
    assert (await request(form.api, later))["status"] == "approved"
