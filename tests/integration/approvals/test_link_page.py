"""The page an approver's e-mailed link opens: what is being decided (form, who asks, when, the first answers, the
step of the flow) before anything is pressed, both decisions offered with the link's own chosen, everything
escaped; a link that can no longer decide says why at once, with no form, in the status and words its POST and
the procedure answer; a GET decides nothing, the form's POST records the decision (either way, through the link's
pair in the same e-mail)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import pytest

from actors.approvals.workers import expire_due
from actors.runtime.clock import ManualClock
from tests.harness import make_org
from tests.integration.approvals.conftest import (
    Form,
    email_of,
    links,
    mails,
    make_flow,
    make_form,
    one_step,
    request,
    submit,
    three_step_graph,
)
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink
from web.keys import NODE
from web.routes_approvals import _csrf as page_csrf

pytestmark = [pytest.mark.workers("mail-sender"), QUIET_PLAIN_AUTH]


class _Text(HTMLParser):
    """A page as a person reads it: its text, one line per element, and its form controls."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.controls: list[dict[str, str | None]] = []
        self._in_body = False

    def handle_data(self, data: str) -> None:
        if self._in_body and data.strip():
            self.lines.append(data.strip())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_body = self._in_body or tag == "body"
        if tag in ("form", "input", "button", "textarea"):
            self.controls.append({"tag": tag, **dict(attrs)})


async def _page(form: Form, token: str, host: str | None = None) -> tuple[int, str, _Text]:
    reply = await form.org.anonymous.client.get(f"/api/approvals/decide?token={token}&decision=approved",
                                                headers={"Host": host or form.org.host})
    body = await reply.text()
    parsed = _Text()
    parsed.feed(body)
    return reply.status, body, parsed


def _terms(page: _Text) -> dict[str, str]:
    """Each definition-list term with the text that follows it."""
    return {page.lines[i]: page.lines[i + 1] for i in range(len(page.lines) - 1)}


async def _refused_alike(form: Form, token: str, decision: str, status: int, message: str) -> None:
    """The link's page, its form's POST and the procedure refuse the link with one status and one message."""
    page_status, body, page = await _page(form, token)
    assert page_status == status and "<form" not in body and "<button" not in body, body
    assert message in page.lines, page.lines
    node = form.org.anonymous.client.server.app[NODE]
    posted = await form.org.anonymous.client.post(
        "/api/approvals/decide", headers={"Host": form.org.host},
        data={"token": token, "csrf": page_csrf(node.settings.secret_key, token), "decision": decision})
    posted_page = _Text()
    posted_page.feed(await posted.text())
    assert posted.status == status and message in posted_page.lines, posted_page.lines
    called = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                             {"token": token, "decision": decision})
    assert (called.status, called.error["message"]) == (status, message), called.body


def _csrf(body: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', body)
    assert found, body
    return found[1]


async def test_the_page_says_what_is_decided_before_anything_is_pressed(form: Form, sink: Sink) -> None:
    lead_id, _ = await form.org.add_user("member")
    director_id, _ = await form.org.add_user("member")
    await make_flow(form, three_step_graph([lead_id], [director_id]))
    reply = await form.api.rest("POST", f"/api/forms/{form.id}/submit",
                                {"title": "Standing desk", "amount": 1500, "site": "south"})
    assert reply.status == 200, reply.body
    token = links((await mails(sink, await email_of(form, lead_id), 1))[0])["reject"]

    status, body, page = await _page(form, token)
    assert status == 200, body
    assert page.lines[0] == "Approval requested: Purchase request"  # the page's heading, as the e-mail's subject
    terms = _terms(page)
    assert terms["Form"] == "Purchase request"
    assert terms["Asked by"] == f"Olga Owner <{form.org.owner_email}>"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", terms["Submitted"])
    assert terms["Step"] == "1 of 2: leads, in the approval flow \u201cSpend approval\u201d"
    assert (terms["Title"], terms["Amount"], terms["Site"]) == ("Standing desk", "1500", "South")
    radios = [c for c in page.controls if c.get("type") == "radio"]
    # Both decisions, the link's own (reject) first and chosen.
    assert [(r["value"], "checked" in r) for r in radios] == [("rejected", True), ("approved", False)]
    assert "<script" not in body


def _branching_graph(big: str, small: str, last: str) -> dict[str, Any]:
    """start → amount > 1000? → `big` | `small` → `last` → approved: two approval steps whichever way."""
    def approval(node_id: str, approver: str) -> dict[str, Any]:
        return {"id": node_id, "type": "approval", "data": {"approverIds": [approver], "approvalType": "any"}}

    return {"nodes": [
        {"id": "start", "type": "start", "data": {}},
        {"id": "amount", "type": "condition", "data": {"field": "amount", "operator": "gt", "value": 1000}},
        approval("big", big), approval("small", small), approval("last", last),
        {"id": "ok", "type": "end", "data": {"status": "approved"}}],
        "edges": [
        {"id": "e1", "source": "start", "target": "amount"},
        {"id": "e2", "source": "amount", "target": "big", "label": "true"},
        {"id": "e3", "source": "amount", "target": "small", "label": "false"},
        {"id": "e4", "source": "big", "target": "last"}, {"id": "e5", "source": "small", "target": "last"},
        {"id": "e6", "source": "last", "target": "ok"}]}


async def test_a_branching_flow_counts_the_steps_on_the_requests_own_path(form: Form, sink: Sink) -> None:
    big_id, _ = await form.org.add_user("member")
    small_id, _ = await form.org.add_user("member")
    last_id, _ = await form.org.add_user("member")
    await make_flow(form, _branching_graph(big_id, small_id, last_id))
    await submit(form, {"title": "Pens", "amount": 10})
    small_link = links((await mails(sink, await email_of(form, small_id), 1))[0])["approve"]
    status, body, page = await _page(form, small_link)
    assert status == 200, body
    assert _terms(page)["Step"] == "1 of 2: small, in the approval flow \u201cSpend approval\u201d"
    approved = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                               {"token": small_link, "decision": "approved"})
    assert approved.status == 200 and approved.data["stepResult"] == "approved", approved.body
    # Three approval nodes in the flow, two on this request's path: the last is its second step of two.
    status, body, page = await _page(form, links((await mails(sink, await email_of(form, last_id), 1))[0])["approve"])
    assert status == 200, body
    assert _terms(page)["Step"] == "2 of 2: last, in the approval flow \u201cSpend approval\u201d"


async def test_an_anonymous_response_is_asked_by_the_flow_and_long_forms_are_cut(form: Form, sink: Sink) -> None:
    approver_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([approver_id]))
    await submit(form, {"title": "<script>alert(1)</script> & <b>more</b>", "amount": 3})
    token = links((await mails(sink, await email_of(form, approver_id), 1))[0])["approve"]

    status, body, page = await _page(form, token)
    assert status == 200, body
    terms = _terms(page)
    assert terms["Asked by"] == "the approval flow \u201cSpend approval\u201d (an anonymous response)"
    assert terms["Title"] == "<script>alert(1)</script> & <b>more</b>"  # shown as text ...
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;more&lt;/b&gt;" in body  # ... because escaped
    assert "<script" not in body and "<b>" not in body
    assert "Site" not in terms  # not answered, not shown


async def test_a_get_decides_nothing_and_the_post_records_either_decision(form: Form, sink: Sink) -> None:
    approver_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([approver_id]))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    assert request_id is not None
    token = links((await mails(sink, await email_of(form, approver_id), 1))[0])["approve"]
    for _ in range(2):  # a mail scanner, then the approver
        status, body, _page_text = await _page(form, token)
        assert status == 200 and "<form" in body
    assert (await request(form.api, request_id))["decisions"] == []
    assert (await request(form.api, request_id))["status"] == "pending"

    client, host = form.org.anonymous.client, form.org.host
    posted = await client.post("/api/approvals/decide", headers={"Host": host, "User-Agent": "Phone/1.0"},
                               data={"token": token, "csrf": _csrf(body), "decision": "rejected", "comment": "no"})
    assert posted.status == 200 and "rejected" in await posted.text()
    decided = await request(form.api, request_id)
    assert decided["status"] == "rejected"
    assert [(d["decision"], d["via"], d["comment"], d["userAgent"]) for d in decided["decisions"]] == [
        ("rejected", "token", "no", "Phone/1.0")]


async def test_a_used_link_and_its_pair_say_so_at_once(form: Form, sink: Sink) -> None:
    approver_id, approver = await form.org.add_user("member")
    await make_flow(form, one_step([approver_id, (await form.org.add_user("member"))[0]], "all"))
    _, request_id = await submit(form, {"title": "Desk", "amount": 10})
    sent = links((await mails(sink, await email_of(form, approver_id), 1))[0])
    used = await form.org.anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                           {"token": sent["approve"], "decision": "approved"})
    assert used.status == 200 and used.data["stepResult"] == "pending", used.body
    for token, decision in ((sent["approve"], "approved"), (sent["reject"], "rejected")):
        await _refused_alike(form, token, decision, 409,
                             "You already decided this step: you approved it. A decision is final.")


async def test_a_link_of_a_step_another_approver_completed_or_a_decided_request_no_longer_decides(
        form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    b_id, _ = await form.org.add_user("member")
    graph = three_step_graph([a_id, b_id], [form.org.owner_id])
    graph["nodes"][2]["data"]["approvalType"] = "any"
    await make_flow(form, graph)
    a_email, b_email = await email_of(form, a_id), await email_of(form, b_id)
    anonymous = form.org.anonymous

    await submit(form, {"title": "Desk", "amount": 5000})
    a_first, b_first = links((await mails(sink, a_email, 1))[0]), links((await mails(sink, b_email, 1))[0])
    approved = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                      {"token": a_first["approve"], "decision": "approved"})
    assert approved.status == 200 and approved.data["stepResult"] == "approved", approved.body
    status, body, page = await _page(form, b_first["approve"])  # the request went on to its next step
    assert "This link is no longer valid" in page.lines
    await _refused_alike(form, b_first["approve"], "approved", 409,
                         "This step no longer waits for you: another approver completed it, or the submission "
                         "went back to its respondent (a new step sends new links).")

    await submit(form, {"title": "Chair", "amount": 5000})
    a_second, b_second = links((await mails(sink, a_email, 2))[1]), links((await mails(sink, b_email, 2))[1])
    rejected = await anonymous.mutate("formApprovalFlows.submitDecisionByToken",
                                      {"token": a_second["reject"], "decision": "rejected"})
    assert rejected.status == 200, rejected.body
    await _refused_alike(form, b_second["reject"], "rejected", 409, "This request is already decided: it was rejected.")


async def test_an_unknown_link_or_another_organizations_link_is_not_found(form: Form, sink: Sink) -> None:
    approver_id, _ = await form.org.add_user("member")
    await make_flow(form, one_step([approver_id]))
    await submit(form, {"title": "Desk", "amount": 10})
    token = links((await mails(sink, await email_of(form, approver_id), 1))[0])["approve"]
    other = await make_org(form.org.anonymous.client)
    for page_of in (_page(form, "apt_nothing"), _page(form, token, other.host), _page(form, "", None),
                    _page(form, token, "localhost")):
        status, body, page = await page_of
        assert status == 404, body
        assert "Decision link not found" in page.lines and "<form" not in body


async def test_a_gxp_request_or_an_approver_who_left_cannot_decide_by_link(form: Form, sink: Sink) -> None:
    a_id, _ = await form.org.add_user("member")
    b_id, _ = await form.org.add_user("member")
    flow = await make_flow(form, one_step([a_id, b_id]), gxp=True)
    await submit(form, {"title": "Desk", "amount": 10})
    await _refused_alike(form, links((await mails(sink, await email_of(form, a_id), 1))[0])["approve"], "approved",
                         403, "Decisions on this request need your signature: sign in to Obeya and decide it there.")
    await mails(sink, await email_of(form, b_id), 1)

    assert (await form.api.mutate("formApprovalFlows.update", {"id": flow["id"], "gxpRequired": False})).status == 200
    await submit(form, {"title": "Chair", "amount": 10})
    token = links((await mails(sink, await email_of(form, b_id), 2))[1])["approve"]
    assert (await form.api.mutate("organizations.members.remove", {"userId": b_id})).status == 200
    await _refused_alike(form, token, "approved", 403,
                         "The approver of this link is no longer a member of the organization.")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2031, 5, 1, 8, 0, tzinfo=UTC))


async def test_a_link_of_an_expired_request_no_longer_decides(clocked_client: Any, clock: ManualClock,
                                                              sink: Sink) -> None:
    form = await make_form(await make_org(clocked_client))
    approver_id, _ = await form.org.add_user("member")
    graph = one_step([approver_id])
    graph["nodes"][1]["data"]["expiresInHours"] = 2  # type: ignore[index]
    await make_flow(form, graph)
    await submit(form, {"title": "Desk"})
    token = links((await mails(sink, await email_of(form, approver_id), 1))[0])["approve"]
    clock.advance(timedelta(hours=3).total_seconds())
    assert await expire_due(clocked_client.server.app[NODE]) == 1
    await _refused_alike(form, token, "approved", 409, "This request expired before it was decided.")
