"""Faults found reviewing the forms pipeline a second time (issue 11, forms-followup): the sweeper walking every
unfinished submission, an item trashed before its submission finished, a retry of an acknowledged submission,
forms.delete against a request opened meanwhile, a revision of a closed form, and one public URL."""

from __future__ import annotations

from typing import Any

from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import add_recipient, published_form, submissions, submit
from tests.integration.forms_flow.conftest import active_flow, mailed_token, one_step, request_of

ANSWERS = {"title": "Leak at press 4", "details": "Oil under the press", "quantity": 3, "line": "Line A"}


async def decide(api: Any, request_id: str, decision: str = "approved", **more: Any) -> Any:
    return await api.mutate("formApprovalFlows.submitDecisionAuthenticated",
                            {"requestId": request_id, "nodeId": "step", "decision": decision, **more})


async def returned_for_revision(fboard: Board) -> tuple[dict[str, Any], dict[str, Any], str, str, Any]:
    """A published form with a one-step flow, a recipient's submission returned for revision: (form, flow,
    submission id, the revision token the respondent was mailed, the approver's Api)."""
    org = fboard.org
    lead_id, lead = await org.add_user("member")
    form = await published_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([lead_id]))
    _, token = await add_recipient(org, form["id"], "resp@example.com")
    done = await submit(org.anonymous, form["id"], {**ANSWERS, "distributionToken": token})
    assert done.status == 200, done.body
    request = await request_of(org.owner, flow["id"])
    returned = await decide(lead, request["id"], "returned_for_revision", comment="which press?")
    assert returned.status == 200, returned.body
    revision = await mailed_token(org, "resp@example.com", "approval_revision", r"\?revision=(\S+)")
    return form, flow, done.body["submissionId"], revision, lead


async def test_the_public_url_distribution_and_revision_links_are_one_address(fboard: Board) -> None:
    org = fboard.org
    form, _, _, revision, _ = await returned_for_revision(fboard)
    public_url = (await org.owner.query("forms.get", {"id": form["id"]})).data["publicUrl"]
    assert public_url.endswith(f"/forms/{form['slug']}")
    link = await mailed_token(org, "resp@example.com", "form_distribution", r"(\S+)\?t=")
    revision_link = await mailed_token(org, "resp@example.com", "approval_revision", r"(\S+)\?revision=")
    assert link == revision_link == public_url
    assert revision
async def test_a_revision_is_taken_on_a_form_closed_meanwhile(fboard: Board) -> None:
    org, anonymous = fboard.org, fboard.org.anonymous
    form, flow, submission_id, revision, _ = await returned_for_revision(fboard)
    closed = await org.owner.mutate("forms.update", {"id": form["id"], "status": "closed"})
    assert closed.status == 200, closed.body
    assert (await submit(anonymous, form["slug"], ANSWERS)).status == 409  # a new response: the form is closed

    shown = await anonymous.rest("GET", f"/api/forms/{form['slug']}?revision={revision}")
    assert shown.status == 200 and shown.data["answers"]["title"] == "Leak at press 4", shown.body
    revised = await submit(anonymous, form["slug"], {**ANSWERS, "title": "Leak at press 5",
                                                     "revisionToken": revision})
    assert revised.status == 200 and revised.body["submissionId"] == submission_id, revised.body
    resumed = await request_of(org.owner, flow["id"])
    assert (resumed["version"], resumed["currentNodeId"], resumed["awaitingRevision"]) == (2, "step", False)
    [submission] = await submissions(fboard, form["id"])
    assert submission["version"] == 2 and submission["data"]["title"] == "Leak at press 5"
