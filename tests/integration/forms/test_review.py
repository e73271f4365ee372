"""Faults found reviewing the forms code (issue 11, review-forms): bad references in the public paths, the item
a submission makes holding the files as the board stores them, and what a removed submission leaves behind."""

from __future__ import annotations

from typing import Any

import pytest

from actors.forms.sweeper import STALLED_SECONDS
from actors.runtime.clock import ManualClock
from protocol.ids import Prefix, new_id
from storage import form_submissions as repo
from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG
from tests.integration.forms.conftest import (
    add_file,
    add_recipient,
    column_id,
    form_board,
    published_form,
    submissions,
    submit,
)
from tests.integration.forms.test_submit import ANSWERS
from web.keys import NODE


async def test_a_form_reference_no_form_can_have_is_404_not_a_server_error(fboard: Board) -> None:
    anonymous = fboard.org.anonymous
    await published_form(fboard)
    for ref in ("%00", "frm_%00", "defect%00report", "frm_" + "a" * 100, "-x-"):
        got = await anonymous.rest("GET", f"/api/forms/{ref}")
        assert got.status == 404, (ref, got.body)
        posted = await submit(anonymous, ref, ANSWERS)
        assert posted.status == 404, (ref, posted.body)


async def test_a_file_answer_lands_in_its_column_as_the_board_stores_files(fboard: Board) -> None:
    """The file column holds what items.setValue would store for the same file (the file as it truly is), so
    the item shows the file's name, size and type."""
    org = fboard.org
    form = await published_form(fboard)
    photo = await add_file(org, form_id=form["id"], name="leak.png")
    reply = await submit(org.anonymous, form["id"], {**ANSWERS, "photos": [photo]})
    assert reply.status == 200, reply.body
    [submission] = await submissions(fboard, form["id"])
    item = await fboard.api.query("items.get", {"id": submission["itemId"]})
    photos = column_id(fboard, "Photos")
    assert item.data["values"][photos] == [{"id": photo, "name": "leak.png", "size": len(PNG), "mimeType": "image/png"}]
    assert item.data["fileCount"] == 1
    by_hand = await fboard.api.mutate("items.create", {"boardId": fboard.id, "groupId": fboard.group_id,
                                                       "name": "By hand"})
    set_by_hand = await fboard.api.mutate("items.setValue", {"itemId": by_hand.data["id"], "columnId": photos,
                                                             "value": [photo]})
    assert set_by_hand.status == 200, set_by_hand.body
    assert set_by_hand.data["values"][photos] == item.data["values"][photos]


async def recipient(board: Board, form_id: str) -> dict[str, Any]:
    reply = await board.api.query("forms.getDistributionStatus", {"formId": form_id})
    assert reply.status == 200, reply.body
    [only] = reply.data["recipients"]
    return {**only, "stats": reply.data["stats"]}


async def test_a_submission_removed_for_a_refused_value_takes_back_its_recipients_completed_mark(
        fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard)
    _, token = await add_recipient(org, form["id"], "r@example.com")
    opened = await org.anonymous.rest("GET", f"/api/forms/{form['id']}?t={token}")
    assert opened.status == 200
    before = await recipient(fboard, form["id"])
    assert before["status"] == "opened" and before["openedAt"] is not None

    refused = await submit(org.anonymous, form["id"], {**ANSWERS, "quantity": 500}, query=f"?t={token}",
                           key="tablet-1")
    assert refused.status == 422, refused.body
    again = await submit(org.anonymous, form["id"], {**ANSWERS, "quantity": 500, "distributionToken": token})
    assert again.status == 422, again.body
    after = await recipient(fboard, form["id"])
    assert (after["status"], after["openedAt"], after["startedAt"], after["completedAt"]) == (
        "opened", before["openedAt"], None, None)
    assert after["stats"]["completed"] == 0 and after["stats"]["responseRate"] == 0

    taken = await submit(org.anonymous, form["id"], {**ANSWERS, "distributionToken": token})
    assert taken.status == 200, taken.body
    done = await recipient(fboard, form["id"])
    assert done["status"] == "completed" and done["openedAt"] == before["openedAt"]
    assert done["stats"]["completed"] == 1 and done["stats"]["responseRate"] == 100


async def test_a_refused_first_submission_leaves_an_unopened_recipient_as_it_was(fboard: Board) -> None:
    org = fboard.org
    form = await published_form(fboard)
    _, token = await add_recipient(org, form["id"], "r@example.com")
    refused = await submit(org.anonymous, form["id"], {**ANSWERS, "quantity": 500}, query=f"?t={token}")
    assert refused.status == 422, refused.body
    after = await recipient(fboard, form["id"])
    assert (after["status"], after["openedAt"], after["startedAt"], after["completedAt"]) == (
        "sent", None, None, None)


async def test_a_required_column_left_unanswered_is_422_naming_the_form_key_mapped_onto_it(fboard: Board) -> None:
    board, org = fboard, fboard.org
    form = await published_form(board)
    made_required = await board.api.mutate("columns.update", {"id": column_id(board, "Line"), "required": True})
    assert made_required.status == 200, made_required.body
    reply = await submit(org.anonymous, form["id"], {"title": "No line given"})
    assert reply.status == 422, reply.body
    assert reply.error["details"] == [{"field": "line", "message": "is required"}]
    assert await submissions(board, form["id"]) == []
    taken = await submit(org.anonymous, form["id"], {"title": "Line given", "line": "L3"})
    assert taken.status == 200, taken.body


@pytest.mark.workers("form-sweeper")
async def test_the_sweeper_makes_the_item_even_when_a_required_column_stays_empty(clocked_client: Any,
                                                                                  clock: ManualClock) -> None:
    """The respondent was told the submission was received; a column made required meanwhile must not keep
    the sweeper failing on it at every sweep."""
    org = await make_org(clocked_client)
    board = await form_board(org)
    form = await published_form(board)
    node = board.api.client.server.app[NODE]
    item_id, submission_id = new_id(Prefix.ITEM), new_id(Prefix.FORM_SUBMISSION)
    async with node.pool.acquire() as conn, conn.transaction():  # step 1 only: the node stopped after it
        await repo.insert(conn, submission_id=submission_id, org_id=org.id, form_id=form["id"], board_id=board.id,
                          data={"title": "Cut short"}, item_id=item_id, submitted_by=None, respondent=None,
                          respondent_email=None, idempotency_key=None, request_hash=None, now=clock.now())
    line = column_id(board, "Line")
    made_required = await board.api.mutate("columns.update", {"id": line, "required": True})
    assert made_required.status == 200, made_required.body

    clock.advance(STALLED_SECONDS + 1)
    await node.workers.idle()
    item = await board.api.query("items.get", {"id": item_id})
    assert item.status == 200, item.body
    assert item.data["name"] == "Cut short" and line not in item.data["values"]
    completed = await node.pool.fetchval("SELECT completed_at FROM form_submissions WHERE id = $1", submission_id)
    assert completed is not None


async def test_an_empty_answer_of_another_type_is_refused_not_stored(fboard: Board) -> None:
    """`false` and `[]` are "no answer" only where they are the component's own empty value (a check box, a list
    of files); in a number or text field they are answers of the wrong type."""
    schema = {"components": [{"type": "textfield", "key": "title", "validate": {"required": True}},
                             {"type": "number", "key": "count"}, {"type": "textfield", "key": "note"},
                             {"type": "checkbox", "key": "agree"}, {"type": "file", "key": "photos"}]}
    reply = await fboard.api.mutate("forms.create", {"boardId": fboard.id, "name": "Types", "schema": schema,
                                                     "status": "published"})
    assert reply.status == 200, reply.body
    form_id = reply.data["id"]
    wrong = await submit(fboard.org.anonymous, form_id, {"title": "t", "count": False, "note": []})
    assert wrong.status == 422, wrong.body
    assert sorted(d["field"] for d in wrong.error["details"]) == ["count", "note"]
    empty = await submit(fboard.org.anonymous, form_id, {"title": "t", "count": "", "note": "", "agree": False,
                                                         "photos": []})
    assert empty.status == 200, empty.body
    [stored] = await submissions(fboard, form_id)
    assert stored["data"] == {"title": "t", "count": "", "note": "", "agree": False, "photos": []}


async def test_updating_one_setting_keeps_the_others(fboard: Board) -> None:
    """Changing the success message must not quietly turn requireAuth off (or allowMultiple on)."""
    settings = {"successMessage": "Thanks", "redirectUrl": "https://example.com/done", "requireAuth": True,
                "allowMultiple": False, "groupId": fboard.group_id, "notifyOnSubmit": [fboard.org.owner_id]}
    form = await published_form(fboard, settings=settings)
    changed = await fboard.api.mutate("forms.update", {"id": form["id"], "settings": {"successMessage": "Merci"}})
    assert changed.status == 200, changed.body
    assert changed.data["settings"] == {**settings, "successMessage": "Merci"}
    assert changed.data["requireAuth"] is True
    assert (await submit(fboard.org.anonymous, form["id"], ANSWERS)).status == 401
    cleared = await fboard.api.mutate("forms.update", {"id": form["id"], "settings": {"redirectUrl": None,
                                                                                      "groupId": None}})
    assert cleared.status == 200, cleared.body
    assert cleared.data["settings"] == {**settings, "successMessage": "Merci", "redirectUrl": None, "groupId": None}
    bad = await fboard.api.mutate("forms.update", {"id": form["id"], "settings": {"requireAuth": "yes",
                                                                                  "redirectUrl": "ftp://x"}})
    assert bad.status == 400, bad.body
    got = await fboard.api.query("forms.get", {"id": form["id"]})
    assert got.data["settings"] == cleared.data["settings"]
