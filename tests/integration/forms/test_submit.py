"""The respondent's side: the public definition, submitting (durable, retry-safe, the item with the mapped
values, form.submitted), the status meanings, validation, respondents and allowMultiple, requireAuth."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.harness import Org
from tests.integration.automations.conftest import create as create_rule
from tests.integration.automations.conftest import runs
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG
from tests.integration.forms.conftest import (
    add_file,
    add_form_session,
    add_recipient,
    column_id,
    create_form,
    published_form,
    submissions,
    submit,
)
from tests.integration.live.conftest import Screen, screens  # noqa: F401  (fixture)
from web.keys import NODE

ANSWERS = {"title": "Leak at press 4", "details": "Oil under the press", "severity": "high", "quantity": 3,
           "line": "Line A"}


async def item_of(board: Board, item_id: str) -> dict[str, Any]:
    reply = await board.api.query("items.get", {"id": item_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_public_definition_shows_published_and_closed_forms_only(fboard: Board) -> None:
    anonymous = fboard.org.anonymous
    draft = await create_form(fboard)
    assert (await anonymous.rest("GET", f"/api/forms/{draft['id']}")).status == 404
    assert (await anonymous.rest("GET", "/api/forms/frm_aaaaaaaaaaaaaaaaaaaa")).status == 404
    await fboard.api.mutate("forms.update", {"id": draft["id"], "status": "published"})
    for ref in (draft["id"], draft["slug"]):
        reply = await anonymous.rest("GET", f"/api/forms/{ref}")
        assert reply.status == 200, reply.body
        assert reply.data == {"id": draft["id"], "slug": draft["slug"], "name": "Defect report", "description": None,
                              "schema": draft["schema"], "settings": {"successMessage": "Thanks, we are on it."},
                              "requireAuth": False, "status": "published"}
    await fboard.api.mutate("forms.update", {"id": draft["id"], "status": "closed"})
    reply = await anonymous.rest("GET", f"/api/forms/{draft['slug']}")
    assert reply.status == 200 and reply.data["status"] == "closed"


async def test_status_meanings_for_submit(fboard: Board) -> None:
    anonymous = fboard.org.anonymous
    form = await create_form(fboard)
    assert (await submit(anonymous, form["id"], ANSWERS)).status == 404
    await fboard.api.mutate("forms.update", {"id": form["id"], "status": "closed"})
    closed = await submit(anonymous, form["id"], ANSWERS)
    assert closed.status == 409 and closed.error["message"] == "form is closed"
    assert await submissions(fboard, form["id"]) == []


@pytest.mark.workers("automations")
async def test_tablet_round_trip(fboard: Board, screens: Any) -> None:  # noqa: F811
    """Fetch the definition, upload a photo, submit twice with one Idempotency-Key: one submission, one item
    with the mapped values and the file, form.submitted on the board's room and run by an automation."""
    org, anonymous = fboard.org, fboard.org.anonymous
    form = await published_form(fboard)
    rule = await create_rule(fboard, name="Triage", trigger={"type": "form.submitted",
                                                             "config": {"formId": form["id"]}},
                             actions=[{"type": "set_value", "config": {"columnId": column_id(fboard, "Status"),
                                                                       "value": "Stuck"}}])
    screen: Screen = screens()
    await screen.connect(fboard.api)
    assert (await screen.call("subscribe", {"room": f"board:{fboard.id}"}))["ok"]

    definition = await anonymous.rest("GET", f"/api/forms/{form['slug']}")
    assert definition.status == 200
    photo = await add_file(org, form_id=form["id"])
    body = {**ANSWERS, "photos": [photo]}
    first = await submit(anonymous, form["slug"], body, key="tablet-1")
    assert first.status == 200, first.body
    assert first.body == {"success": True, "message": "Thanks, we are on it.",
                          "submissionId": first.body["submissionId"], "redirectUrl": None}
    again = await submit(anonymous, form["slug"], body, key="tablet-1")
    assert again.status == 200 and again.body == first.body
    assert again.headers["Idempotent-Replayed"] == "true"
    other_body = await submit(anonymous, form["slug"], {**body, "quantity": 4}, key="tablet-1")
    assert other_body.status == 409

    [submission] = await submissions(fboard, form["id"])
    assert submission["id"] == first.body["submissionId"] and submission["submittedBy"] is None
    item = await item_of(fboard, submission["itemId"])
    assert item["name"] == "Leak at press 4" and item["description"] == "Oil under the press"
    assert item["values"][column_id(fboard, "Quantity")] == 3
    assert item["values"][column_id(fboard, "Line")] == "Line A"
    assert item["values"][column_id(fboard, "Photos")] == [{"id": photo, "name": "photo.png", "size": len(PNG),
                                                             "mimeType": "image/png"}]
    assert item["createdBy"] is None
    listed = await fboard.api.query("items.list", {"boardId": fboard.id})
    assert [i["id"] for i in listed.data["items"]] == [item["id"]]

    event = await screen.wait_for_event("form.submitted")
    assert event["data"]["formId"] == form["id"] and event["data"]["submissionId"] == submission["id"]
    assert event["data"]["item"]["id"] == item["id"] and event["data"]["answers"]["title"] == "Leak at press 4"
    [run] = await runs(fboard, 1)
    assert run["automationRuleId"] == rule["id"] and run["itemId"] == item["id"] and run["status"] == "success"


async def test_one_validation_error_names_every_bad_key(fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard)
    other = await published_form(fboard, name="Other form")
    foreign = await add_file(org, form_id=other["id"])  # uploaded by a respondent of another form
    reply = await submit(org.anonymous, form["id"], {"details": 5, "severity": "medium", "quantity": "three",
                                                     "contact": "not-an-address", "photos": [foreign],
                                                     "unknown": "dropped"})
    assert reply.status == 422, reply.body
    assert sorted(d["field"] for d in reply.error["details"]) == ["contact", "details", "quantity", "severity",
                                                                  "title"]
    files = await submit(org.anonymous, form["id"], {"title": "x", "photos": [foreign]})
    assert files.status == 422 and [d["field"] for d in files.error["details"]] == ["photos"]
    assert await submissions(fboard, form["id"]) == []


async def test_a_value_the_column_refuses_is_422_naming_the_form_key_and_leaves_nothing(fboard: Board) -> None:
    form = await published_form(fboard)
    reply = await submit(fboard.org.anonymous, form["id"], {**ANSWERS, "quantity": 500}, key="k-500")
    assert reply.status == 422, reply.body
    assert [d["field"] for d in reply.error["details"]] == ["quantity"]
    assert await submissions(fboard, form["id"]) == []
    listed = await fboard.api.query("items.list", {"boardId": fboard.id})
    assert listed.data["items"] == []
    fixed = await submit(fboard.org.anonymous, form["id"], {**ANSWERS, "quantity": 5}, key="k-500")
    assert fixed.status == 200, fixed.body


async def test_a_member_is_the_respondent_and_files_of_members_may_be_named(fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard)
    mine = await add_file(org)
    reply = await submit(org.owner, form["id"], {**ANSWERS, "photos": [mine]})
    assert reply.status == 200, reply.body
    [submission] = await submissions(fboard, form["id"])
    assert submission["submittedBy"] == org.owner_id
    assert (await item_of(fboard, submission["itemId"]))["createdBy"] == org.owner_id


async def test_allow_multiple_false_refuses_a_second_response_even_when_concurrent(fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard, settings={"allowMultiple": False})
    replies = await asyncio.gather(*[submit(org.owner, form["id"], ANSWERS) for _ in range(4)])
    assert sorted(r.status for r in replies) == [200, 409, 409, 409]
    # Anonymous respondents are not known: each is taken.
    assert (await submit(org.anonymous, form["id"], ANSWERS)).status == 200
    assert (await submit(org.anonymous, form["id"], ANSWERS)).status == 200
    # A distribution recipient is known by its token.
    recipient_id, token = await add_recipient(org, form["id"], "supplier@example.com")
    assert (await submit(org.anonymous, form["id"], ANSWERS, query=f"?t={token}")).status == 200
    again = await submit(org.anonymous, form["id"], {**ANSWERS, "distributionToken": token})
    assert again.status == 409
    node = org.anonymous.client.server.app[NODE]
    status = await node.pool.fetchval("SELECT status FROM form_recipients WHERE id = $1", recipient_id)
    assert status == "completed"
    assert len(await submissions(fboard, form["id"])) == 4


@pytest.mark.workers("form-otp")
async def test_require_auth_takes_a_member_or_a_form_session(fboard: Board, org: Org) -> None:
    form = await published_form(fboard, settings={"requireAuth": True, "allowMultiple": False})
    anonymous = fboard.org.anonymous
    refused = await submit(anonymous, form["id"], ANSWERS)
    assert refused.status == 401
    assert (await anonymous.rest("GET", f"/api/forms/{form['id']}")).data["requireAuth"] is True
    assert (await submit(fboard.org.owner, form["id"], ANSWERS)).status == 200
    # A verified e-mail's session (forms.verifyOtp) is the respondent `email:<address>`.
    node = anonymous.client.server.app[NODE]
    token = await add_form_session(fboard.org, form, "Supplier@Example.com")
    done = await submit(anonymous, form["id"], ANSWERS, session=token)
    assert done.status == 200, done.body
    row = await node.pool.fetchrow("SELECT respondent, respondent_email FROM form_submissions WHERE id = $1",
                                   done.body["submissionId"])
    assert row["respondent"] == "email:supplier@example.com"
    twice = await submit(anonymous, form["slug"], ANSWERS, session=token)
    assert twice.status == 409, twice.body
    other_form = await published_form(fboard, name="Other", settings={"requireAuth": True})
    elsewhere = await submit(anonymous, other_form["id"], ANSWERS, session=token)
    assert elsewhere.status == 401, elsewhere.body


async def test_notify_on_submit_and_activity(fboard: Board) -> None:
    org = fboard.org
    member_id, member = await org.add_user("member")
    form = await published_form(fboard, settings={"notifyOnSubmit": [member_id]})
    reply = await submit(org.anonymous, form["id"], ANSWERS)
    assert reply.status == 200
    notes = await member.query("notifications.list", {"limit": 50})
    [note] = [n for n in notes.data["notifications"] if n["type"] == "form_submitted"]
    assert note["title"] == "New response to Defect report" and note["entityType"] == "item"
    trail = await org.owner.query("activity.listByEntity", {"entityType": "form_submission",
                                                            "entityId": reply.body["submissionId"]})
    assert [e["action"] for e in trail.data["entries"]] == ["form.submitted"]


async def test_a_distribution_link_marks_its_recipient_opened_then_completed(fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard)
    recipient_id, token = await add_recipient(org, form["id"], "r@example.com")
    node = org.anonymous.client.server.app[NODE]
    opened = await org.anonymous.rest("GET", f"/api/forms/{form['slug']}?t={token}")
    assert opened.status == 200 and "answers" not in opened.data
    assert await node.pool.fetchval("SELECT status FROM form_recipients WHERE id = $1", recipient_id) == "opened"
    reply = await submit(org.anonymous, form["slug"], {**ANSWERS, "distributionToken": token})
    assert reply.status == 200
    row = await node.pool.fetchrow("SELECT respondent, respondent_email FROM form_submissions WHERE id = $1",
                                   reply.body["submissionId"])
    assert (row["respondent"], row["respondent_email"]) == (f"recipient:{recipient_id}", "r@example.com")
    assert await node.pool.fetchval("SELECT status FROM form_recipients WHERE id = $1", recipient_id) == "completed"
    assert (await org.anonymous.rest("GET", f"/api/forms/{form['id']}?revision=nope")).status == 404
