"""Token decisions (single use, void once the step completes, refused on GxP flows, the confirmation page),
GxP signatures (wrong password records nothing, the manifestation and its record hash, decisions immutable in
the database), and concurrent decisions serialized by the flow's actor."""

from __future__ import annotations

import asyncio
import hashlib
import json

import asyncpg
import pytest

from tests.harness import PASSWORD
from tests.integration.approvals.conftest import (
    Form,
    decide,
    links,
    mails,
    make_flow,
    request,
    submit,
)
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink
from web.keys import NODE

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


def one_step(approvers: list[str], kind: str = "any") -> dict[str, object]:
    return {"nodes": [
        {"id": "s", "type": "start", "data": {}},
        {"id": "a", "type": "approval", "data": {"approverIds": approvers, "approvalType": kind}},
        {"id": "e", "type": "end", "data": {"status": "approved"}}],
        "edges": [{"id": "1", "source": "s", "target": "a"}, {"id": "2", "source": "a", "target": "e"}]}


async def email_of(form: Form, user_id: str) -> str:
    return str(await form.org.anonymous.client.server.app[NODE].pool.fetchval(
        "SELECT email FROM users WHERE id = $1", user_id))


async def test_token_decisions_are_single_use_and_void_once_the_step_completes(form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    b_id, b = await form.org.add_user("member")
    await make_flow(form, one_step([a_id, b_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    a_links = links((await mails(sink, await email_of(form, a_id), 1))[0])
    b_links = links((await mails(sink, await email_of(form, b_id), 1))[0])
    anonymous = form.org.anonymous

    page = await anonymous.client.get(f"/api/approvals/decide?token={a_links['approve']}",
                                      headers={"Host": form.org.host})
    assert page.status == 200 and "<form" in await page.text()
    assert (await request(form.api, request_id))["decisions"] == []  # a GET never decides

    wrong = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                   {"token": a_links["approve"], "decision": "rejected"})
    assert wrong.status == 400, wrong.body
    used = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                  {"token": a_links["approve"], "decision": "approved", "ipAddress": "10.0.0.9",
                                   "userAgent": "Mail/1.0"})
    assert used.status == 200 and used.data["stepResult"] == "approved", used.body
    again = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                   {"token": a_links["approve"], "decision": "approved"})
    assert again.status == 409, again.body
    void = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                  {"token": b_links["reject"], "decision": "rejected"})
    assert void.status == 409, void.body
    unknown = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                     {"token": "apt_nothing", "decision": "approved"})
    assert unknown.status == 404, unknown.body
    [decision] = (await request(form.api, request_id))["decisions"]
    assert (decision["via"], decision["ipAddress"], decision["userAgent"]) == ("token", "10.0.0.9", "Mail/1.0")
    assert (await request(form.api, request_id))["status"] == "approved"
    late = await decide(b, request_id, "a")
    assert late.status == 409, late.body


async def test_the_confirmation_page_posts_the_decision(form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([a_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    token = links((await mails(sink, await email_of(form, a_id), 1))[0])["reject"]
    client, host = form.org.anonymous.client, form.org.host
    page = await (await client.get(f"/api/approvals/decide?token={token}", headers={"Host": host})).text()
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    forged = await client.post("/api/approvals/decide", data={"token": token, "decision": "rejected", "csrf": "x"},
                               headers={"Host": host})
    assert forged.status == 403
    posted = await client.post("/api/approvals/decide", data={"token": token, "decision": "rejected", "csrf": csrf,
                                                              "comment": "not needed"}, headers={"Host": host})
    assert posted.status == 200 and "rejected" in await posted.text()
    assert (await request(form.api, request_id))["status"] == "rejected"


async def test_gxp_wrong_password_records_nothing_and_a_signature_binds_the_record(form: Form, sink: Sink) -> None:
    a_id, a = await form.org.add_user("member", name="Greta GxP")
    flow = await make_flow(form, one_step([a_id]), gxp=True)
    submission_id, request_id = await submit(form, {"title": "Batch 7", "amount": 3})
    assert request_id is not None
    wrong = await decide(a, request_id, "a", password="not the password", meaning="Approved as QA")
    assert wrong.status == 401, wrong.body
    no_meaning = await decide(a, request_id, "a", password=PASSWORD)
    assert no_meaning.status == 400, no_meaning.body
    assert (await request(form.api, request_id))["decisions"] == []
    token = links((await mails(sink, await email_of(form, a_id), 1))[0])["approve"]
    by_token = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                               {"token": token, "decision": "approved"})
    assert by_token.status == 403, by_token.body

    signed = await decide(a, request_id, "a", password=PASSWORD, meaning="Approved as QA",
                          fieldModifications=[{"fieldId": "amount", "newValue": 4}])
    assert signed.status == 200, signed.body
    [decision] = (await request(form.api, request_id))["decisions"]
    signature = decision["signature"]
    assert (signature["signerName"], signature["meaning"]) == ("Greta GxP", "Approved as QA")
    assert signature["signerEmail"] == await email_of(form, a_id) and signature["signedAt"] == decision["createdAt"]
    canonical = json.dumps({"submissionId": submission_id, "version": 2, "data": {"title": "Batch 7", "amount": 4}},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert signature["recordHash"] == hashlib.sha256(canonical.encode()).hexdigest()

    pool = form.org.anonymous.client.server.app[NODE].pool
    for statement in ("UPDATE approval_decisions SET comment = 'x' WHERE id = $1",
                      "DELETE FROM approval_decisions WHERE id = $1"):
        with pytest.raises(asyncpg.IntegrityConstraintViolationError):
            await pool.execute(statement, decision["id"])
    node = form.org.anonymous.client.server.app[NODE]
    from actors.approvals.intake import blocks_form_deletion
    assert "signed" in (await blocks_form_deletion(node.pool, form.org.id, form.id) or "")
    assert flow["gxpRequired"] is True
    # The organization still goes, with its decisions.
    await pool.execute("DELETE FROM organizations WHERE id = $1", form.org.id)
    assert await pool.fetchval("SELECT count(*) FROM approval_decisions WHERE request_id = $1", request_id) == 0


async def test_two_approvers_at_once_on_an_all_step_both_count(form: Form) -> None:
    a_id, a = await form.org.add_user("member")
    b_id, b = await form.org.add_user("member")
    await make_flow(form, one_step([a_id, b_id], "all"))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    first, second = await asyncio.gather(decide(a, request_id, "a"), decide(b, request_id, "a"))
    assert first.status == second.status == 200, (first.body, second.body)
    assert sorted([first.data["stepResult"], second.data["stepResult"]]) == ["approved", "pending"]
    done = await request(form.api, request_id)
    assert done["status"] == "approved" and len(done["decisions"]) == 2


async def test_two_approvers_at_once_on_an_any_step_exactly_one_completes_it(form: Form) -> None:
    a_id, a = await form.org.add_user("member")
    b_id, b = await form.org.add_user("member")
    await make_flow(form, one_step([a_id, b_id], "any"))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    replies = await asyncio.gather(decide(a, request_id, "a"), decide(b, request_id, "a"))
    assert sorted(reply.status for reply in replies) == [200, 409], [r.body for r in replies]
    done = await request(form.api, request_id)
    assert done["status"] == "approved" and len(done["decisions"]) == 1
