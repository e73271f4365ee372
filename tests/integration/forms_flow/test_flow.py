"""The parts of issue 11 meeting through their real paths: the public form, uploads, submit, one-time codes,
distribution, the approval flow the submission enters, revisions by the respondent, forms.delete against the
flow, and an action node run by the `approval-actions` worker."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import PASSWORD, Org, make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG, upload
from tests.integration.forms.conftest import (
    add_form_session,
    add_recipient,
    column_id,
    form_board,
    published_form,
    submissions,
    submit,
)
from tests.integration.forms_flow.conftest import active_flow, mailed_token, one_step, request_of
from tests.integration.live.conftest import Screen, screens  # noqa: F401  (fixture)
from web.keys import NODE

ANSWERS = {"title": "Leak at press 4", "details": "Oil under the press", "quantity": 3, "line": "Line A"}


async def item_of(board: Board, item_id: str) -> dict[str, Any]:
    reply = await board.api.query("items.get", {"id": item_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def decide(api: Any, request_id: str, decision: str = "approved", **more: Any) -> Any:
    return await api.mutate("formApprovalFlows.submitDecisionAuthenticated",
                            {"requestId": request_id, "nodeId": "step", "decision": decision, **more})


async def test_the_tablets_whole_day(fboard: Board, screens: Any) -> None:  # noqa: F811
    org, anonymous = fboard.org, fboard.org.anonymous
    lead_id, lead = await org.add_user("member", name="Lena Lead")
    form = await published_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([lead_id]))
    screen: Screen = screens()
    await screen.connect(fboard.api)
    assert (await screen.call("subscribe", {"room": f"board:{fboard.id}"}))["ok"]
    assert (await screen.call("subscribe", {"room": f"flow:{flow['id']}"}))["ok"]

    definition = await anonymous.rest("GET", f"/api/forms/{form['slug']}")
    assert definition.status == 200 and definition.data["schema"] == form["schema"]
    uploaded = await upload(anonymous, PNG, "leak.png", path=f"/api/forms/{form['id']}/files")
    assert uploaded.status == 201, uploaded.body
    photo = uploaded.data["id"]
    body = {**ANSWERS, "photos": [photo]}
    first = await submit(anonymous, form["slug"], body, key="tablet-day-1")
    assert first.status == 200, first.body
    again = await submit(anonymous, form["slug"], body, key="tablet-day-1")
    assert again.status == 200 and again.body == first.body and again.headers["Idempotent-Replayed"] == "true"

    [submission] = await submissions(fboard, form["id"])
    assert submission["id"] == first.body["submissionId"]
    item = await item_of(fboard, submission["itemId"])
    assert item["name"] == "Leak at press 4" and item["values"][column_id(fboard, "Quantity")] == 3
    assert item["values"][column_id(fboard, "Photos")] == [{"id": photo, "name": "leak.png", "size": len(PNG),
                                                             "mimeType": "image/png"}]
    assert item["fileCount"] == 1
    listed = await fboard.api.query("items.list", {"boardId": fboard.id})
    assert [i["id"] for i in listed.data["items"]] == [item["id"]]
    submitted = await screen.wait_for_event("form.submitted")
    assert submitted["data"]["submissionId"] == submission["id"] and submitted["data"]["item"]["id"] == item["id"]

    request = await request_of(org.owner, flow["id"])
    assert (request["submissionId"], request["itemId"], request["status"]) == (submission["id"], item["id"], "pending")
    requested = await screen.wait_for_event("approval.requested")
    assert requested["data"]["request"]["id"] == request["id"] and requested["data"]["approverIds"] == [lead_id]
    decided = await decide(lead, request["id"], comment="fixed the seal")
    assert decided.status == 200 and decided.data["stepResult"] == "approved", decided.body
    assert (await request_of(org.owner, flow["id"]))["status"] == "approved"
    completed = await screen.wait_for_event("approval.completed")
    assert completed["data"]["status"] == "approved"


@pytest.mark.workers("form-otp")
async def test_a_form_that_requires_auth_through_a_one_time_code(fboard: Board) -> None:
    org, anonymous = fboard.org, fboard.org.anonymous
    form = await published_form(fboard, settings={"requireAuth": True, "allowMultiple": False})
    other = await published_form(fboard, name="Other form", settings={"requireAuth": True})
    files = f"/api/forms/{form['id']}/files"
    assert (await submit(anonymous, form["id"], ANSWERS)).status == 401
    assert (await upload(anonymous, PNG, path=files)).status == 401

    token = await add_form_session(org, form, "Supplier@Example.com")
    bearer = {"Authorization": f"Bearer {token}"}
    uploaded = await upload(anonymous, PNG, path=files, headers=bearer)
    assert uploaded.status == 201, uploaded.body
    done = await submit(anonymous, form["id"], {**ANSWERS, "photos": [uploaded.data["id"]]}, session=token)
    assert done.status == 200, done.body
    [submission] = await submissions(fboard, form["id"])
    assert submission["submittedBy"] is None
    assert (await item_of(fboard, submission["itemId"]))["fileCount"] == 1

    assert (await submit(anonymous, other["id"], ANSWERS, session=token)).status == 401
    assert (await upload(anonymous, PNG, path=f"/api/forms/{other['id']}/files", headers=bearer)).status == 401
    # allowMultiple false: the respondent is the e-mail, whatever session or spelling it comes with.
    second = await add_form_session(org, form, "supplier@example.COM")
    assert second != token
    refused = await submit(anonymous, form["id"], ANSWERS, session=second)
    assert refused.status == 409, refused.body
    assert len(await submissions(fboard, form["id"])) == 1


@pytest.mark.workers("form-otp")
async def test_a_distribution_recipient_opens_starts_and_completes(fboard: Board) -> None:
    org, anonymous = fboard.org, fboard.org.anonymous
    form = await published_form(fboard)
    first_id, first = await add_recipient(org, form["id"], "first@example.com")
    second_id, second = await add_recipient(org, form["id"], "second@example.com")
    await add_recipient(org, form["id"], "third@example.com")

    assert (await anonymous.rest("GET", f"/api/forms/{form['slug']}?t={first}")).status == 200
    uploaded = await upload(anonymous, PNG, path=f"/api/forms/{form['id']}/files?t={first}")
    assert uploaded.status == 201, uploaded.body
    asked = await anonymous.mutate("forms.requestOtp", {"formSlug": form["slug"], "organizationSlug": org.slug,
                                                        "email": "second@example.com", "t": second})
    assert asked.status == 200 and asked.data == {"sent": True}
    await anonymous.client.server.app[NODE].workers.idle()
    status = await org.owner.query("forms.getDistributionStatus", {"formId": form["id"]})
    stages = {r["id"]: r["status"] for r in status.data["recipients"]}
    assert (stages[first_id], stages[second_id]) == ("started", "started")

    done = await submit(anonymous, form["id"], {**ANSWERS, "photos": [uploaded.data["id"]]}, query=f"?t={first}")
    assert done.status == 200, done.body
    status = await org.owner.query("forms.getDistributionStatus", {"formId": form["id"]})
    [row] = [r for r in status.data["recipients"] if r["id"] == first_id]
    assert row["status"] == "completed" and row["openedAt"] and row["startedAt"] and row["completedAt"]
    assert status.data["stats"] == {"total": 3, "opened": 2, "started": 2, "completed": 1, "responseRate": 33.3}


async def test_a_revision_through_the_public_paths(fboard: Board) -> None:
    org, anonymous = fboard.org, fboard.org.anonymous
    lead_id, lead = await org.add_user("member")
    form = await published_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([lead_id]))
    _, token = await add_recipient(org, form["id"], "resp@example.com")
    done = await submit(anonymous, form["id"], {**ANSWERS, "distributionToken": token})
    assert done.status == 200, done.body
    request = await request_of(org.owner, flow["id"])
    returned = await decide(lead, request["id"], "returned_for_revision", comment="which press?")
    assert returned.status == 200, returned.body

    revision = await mailed_token(org, "resp@example.com", "approval_revision", r"\?revision=(\S+)")
    shown = await anonymous.rest("GET", f"/api/forms/{form['slug']}?revision={revision}")
    assert shown.status == 200 and shown.data["answers"]["title"] == "Leak at press 4", shown.body
    revised = await submit(anonymous, form["slug"], {**ANSWERS, "title": "Leak at press 5",
                                                     "revisionToken": revision})
    assert revised.status == 200 and revised.body["submissionId"] == done.body["submissionId"], revised.body
    resumed = await request_of(org.owner, flow["id"])
    assert (resumed["version"], resumed["currentNodeId"], resumed["awaitingRevision"]) == (2, "step", False)
    assert resumed["data"]["title"] == "Leak at press 5"
    [submission] = await submissions(fboard, form["id"])
    assert submission["version"] == 2 and submission["data"]["title"] == "Leak at press 5"
    assert (await anonymous.rest("GET", f"/api/forms/{form['slug']}?revision={revision}")).status == 404
    again = await submit(anonymous, form["slug"], {**ANSWERS, "revisionToken": revision})
    assert again.status == 404, again.body
    assert (await decide(lead, request["id"])).data["stepResult"] == "approved"


async def test_forms_delete_waits_for_requests_and_keeps_gxp_signatures(fboard: Board) -> None:
    org, anonymous = fboard.org, fboard.org.anonymous
    form = await published_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([org.owner_id]))
    assert (await submit(anonymous, form["id"], ANSWERS)).status == 200
    pending = await org.owner.mutate("forms.delete", {"id": form["id"]})
    assert pending.status == 409, pending.body
    request = await request_of(org.owner, flow["id"])
    assert (await decide(org.owner, request["id"])).status == 200
    deleted = await org.owner.mutate("forms.delete", {"id": form["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": form["id"]}, deleted.body

    signed = await published_form(fboard, name="Batch release")
    gxp_flow = await active_flow(org.owner, signed["id"], one_step([org.owner_id]), gxp=True)
    assert (await submit(anonymous, signed["id"], ANSWERS)).status == 200
    gxp_request = await request_of(org.owner, gxp_flow["id"])
    decided = await decide(org.owner, gxp_request["id"], password=PASSWORD, meaning="Approved for release")
    assert decided.status == 200 and decided.data["stepResult"] == "approved", decided.body
    assert (await request_of(org.owner, gxp_flow["id"]))["status"] == "approved"
    kept = await org.owner.mutate("forms.delete", {"id": signed["id"]})
    assert kept.status == 409, kept.body
    assert (await org.owner.query("forms.get", {"id": signed["id"]})).status == 200


@pytest.mark.workers("approval-actions")
async def test_an_action_node_runs_once_on_the_submissions_item(clocked_client: Any, clock: Any) -> None:
    org: Org = await make_org(clocked_client)
    board = await form_board(org)
    form = await published_form(board)
    status_column = column_id(board, "Status")
    action = {"id": "mark", "type": "action",
              "data": {"type": "set_value", "config": {"columnId": status_column, "value": "Stuck"}}}
    flow = await active_flow(org.owner, form["id"], one_step([org.owner_id], before=[action]))
    done = await submit(org.anonymous, form["id"], ANSWERS)
    assert done.status == 200, done.body
    node = org.anonymous.client.server.app[NODE]
    for _ in range(3):
        clock.advance(60)
        await node.workers.idle()
    request = await request_of(org.owner, flow["id"])
    assert request["currentNodeId"] == "step"
    assert [(r["nodeId"], r["status"]) for r in request["actionRuns"]] == [("mark", "done")]
    item = await item_of(board, request["itemId"])
    assert item["values"][status_column]["label"] == "Stuck"
