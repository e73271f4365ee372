"""Token decisions (single use, void once the step completes, refused on GxP flows, the confirmation page),
GxP signatures (wrong password records nothing, the manifestation and its record hash, decisions immutable in
the database), and concurrent decisions serialized by the flow's actor."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import asyncpg
import pytest

from actors.runtime.clock import ManualClock
from tests.harness import PASSWORD, make_org
from tests.integration.approvals.conftest import (
    Form,
    decide,
    email_of,
    links,
    mails,
    make_flow,
    make_form,
    one_step,
    request,
    submit,
)
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink
from web.keys import NODE

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


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
    assert (again.status, again.error["message"]) == (
        409, "You already decided this step: you approved it. A decision is final."), again.body
    void = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                  {"token": b_links["reject"], "decision": "rejected"})
    assert (void.status, void.error["message"]) == (409, "This request is already decided: it was approved."), \
        void.body
    unknown = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                     {"token": "apt_nothing", "decision": "approved"})
    assert unknown.status == 404, unknown.body
    [decision] = (await request(form.api, request_id))["decisions"]
    assert (decision["via"], decision["ipAddress"], decision["userAgent"]) == ("token", "10.0.0.9", "Mail/1.0")
    assert (await request(form.api, request_id))["status"] == "approved"
    late = await decide(b, request_id, "a")
    assert late.status == 409, late.body


async def test_a_link_no_longer_decides_once_its_approver_left_the_organization(form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    b_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([a_id, b_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    token = links((await mails(sink, await email_of(form, a_id), 1))[0])["approve"]
    removed = await form.api.mutate("organizations.members.remove", {"userId": a_id})
    assert removed.status == 200, removed.body
    refused = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                              {"token": token, "decision": "approved"})
    assert refused.status == 403, refused.body
    assert (await request(form.api, request_id))["decisions"] == []


async def test_the_confirmation_page_posts_the_decision(form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([a_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    token = links((await mails(sink, await email_of(form, a_id), 1))[0])["reject"]
    client, host = form.org.anonymous.client, form.org.host
    shown = await client.get(f"/api/approvals/decide?token={token}", headers={"Host": host})
    assert (shown.headers["Referrer-Policy"], shown.headers["X-Content-Type-Options"]) == ("no-referrer", "nosniff")
    assert "default-src 'none'" in shown.headers["Content-Security-Policy"]
    page = await shown.text()
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    forged = await client.post("/api/approvals/decide", data={"token": token, "decision": "rejected", "csrf": "x"},
                               headers={"Host": host})
    assert forged.status == 403
    posted = await client.post("/api/approvals/decide", data={"token": token, "decision": "rejected", "csrf": csrf,
                                                              "comment": "not needed"}, headers={"Host": host})
    assert posted.status == 200 and "rejected" in await posted.text()
    assert (await request(form.api, request_id))["status"] == "rejected"


async def test_the_confirmation_page_refuses_a_malformed_body_with_a_page(form: Form) -> None:
    client, host = form.org.anonymous.client, form.org.host
    for content_type, body in (("multipart/form-data; boundary=xx", b"--xx\r\nbroken"),
                               ("application/x-www-form-urlencoded", b"\xff\xfe=\x00")):
        reply = await client.post("/api/approvals/decide", data=body,
                                  headers={"Host": host, "Content-Type": content_type})
        assert reply.status == 400 and "could not be read" in await reply.text()


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


async def test_gxp_passwords_are_throttled_like_a_login(clocked_client: Any, clock: ManualClock) -> None:
    form = await make_form(await make_org(clocked_client))
    a_id, a = await form.org.add_user("member")
    await make_flow(form, one_step([a_id]), gxp=True)
    _, request_id = await submit(form, {"title": "Batch 8", "amount": 3})
    assert request_id is not None
    for _ in range(5):
        wrong = await decide(a, request_id, "a", password="guess", meaning="Approved as QA")
        assert wrong.status == 401, wrong.body
    # Inside the delay even the right password is not checked, and nothing is recorded.
    waiting = await decide(a, request_id, "a", password=PASSWORD, meaning="Approved as QA")
    assert waiting.status == 429 and waiting.error["data"]["code"] == "TOO_MANY_REQUESTS", waiting.body
    assert 1 <= int(waiting.headers["Retry-After"]) <= 2
    assert (await request(form.api, request_id))["decisions"] == []
    # The signing password and the login share the account's budget.
    login = await form.org.anonymous.rest("POST", "/api/v1/auth/login",
                                          {"email": await email_of(form, a_id), "password": PASSWORD})
    assert login.status == 429, login.body
    clock.advance(2)
    signed = await decide(a, request_id, "a", password=PASSWORD, meaning="Approved as QA")
    assert signed.status == 200 and signed.data["stepResult"] == "approved", signed.body


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


async def test_a_request_keeps_the_gxp_regime_it_opened_under(form: Form, sink: Sink) -> None:
    a_id, a = await form.org.add_user("member")
    email = await email_of(form, a_id)
    flow = await make_flow(form, one_step([a_id]), gxp=True)
    _, gxp_request = await submit(form, {"title": "Batch 9", "amount": 3})
    assert gxp_request is not None
    token = links((await mails(sink, email, 1))[0])["approve"]
    off = await form.api.mutate("formApprovalFlows.update", {"id": flow["id"], "gxpRequired": False})
    assert off.status == 200 and off.data["gxpRequired"] is False, off.body
    # The flag switched off under it: the request opened under GxP still refuses its e-mailed link and an
    # unsigned decision, and keeps its regime.
    by_token = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                               {"token": token, "decision": "approved"})
    assert by_token.status == 403, by_token.body
    unsigned = await decide(a, gxp_request, "a")
    assert unsigned.status in (400, 401), unsigned.body
    assert (await request(form.api, gxp_request))["decisions"] == []
    assert (await request(form.api, gxp_request))["gxpRequired"] is True
    signed = await decide(a, gxp_request, "a", password=PASSWORD, meaning="Approved as QA")
    assert signed.status == 200, signed.body
    [decision] = (await request(form.api, gxp_request))["decisions"]
    assert decision["signature"]["meaning"] == "Approved as QA"

    # Opened without GxP, then switched on: still decided as it started (no password asked, no signature).
    _, plain_request = await submit(form, {"title": "Batch 10", "amount": 3})
    assert plain_request is not None
    on = await form.api.mutate("formApprovalFlows.update", {"id": flow["id"], "gxpRequired": True})
    assert on.status == 200, on.body
    plain = await decide(a, plain_request, "a")
    assert plain.status == 200, plain.body
    shown = await request(form.api, plain_request)
    assert shown["gxpRequired"] is False and shown["decisions"][0]["signature"] is None


async def test_a_board_project_or_workspace_with_signed_decisions_is_kept_with_a_clear_409(form: Form) -> None:
    a_id, a = await form.org.add_user("member")
    await make_flow(form, one_step([a_id]), gxp=True)
    _, request_id = await submit(form, {"title": "Batch 11", "amount": 3})
    assert request_id is not None
    signed = await decide(a, request_id, "a", password=PASSWORD, meaning="Approved as QA")
    assert signed.status == 200, signed.body
    project = await form.api.query("projects.get", {"id": form.board.project_id})
    assert project.status == 200, project.body
    workspace_id = project.data["workspaceId"]
    for procedure, target in (("boards.delete", form.board.id), ("projects.delete", form.board.project_id),
                              ("workspaces.delete", workspace_id)):
        refused = await form.api.mutate(procedure, {"id": target})
        assert refused.status == 409, (procedure, refused.body)
        message = refused.error["message"]
        assert "GxP signatures must be kept" in message and "'Purchase request'" in message, message
        assert (await request(form.api, request_id))["decisions"][0]["signature"] is not None
    assert (await form.api.query("boards.get", {"id": form.board.id})).status == 200
    # A board with no signed decisions still goes.
    other = await form.api.mutate("boards.create", {"projectId": form.board.project_id, "name": "Other"})
    assert (await form.api.mutate("boards.delete", {"id": other.data["id"]})).status == 200
