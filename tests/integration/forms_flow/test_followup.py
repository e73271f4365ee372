"""Faults found reviewing the forms pipeline a second time (issue 11, forms-followup): the sweeper walking every
unfinished submission, an item trashed before its submission finished, a retry of an acknowledged submission,
forms.delete against a request opened meanwhile, a revision of a closed form, and one public URL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from actors.board.trash_sweeper import purge_expired_trash
from actors.forms.pipeline import make_item, system_caller
from actors.forms.sweeper import BATCH, STALLED_SECONDS, finish_stalled_submissions
from actors.runtime.clock import ManualClock
from protocol.ids import Prefix, new_id
from storage import form_submissions as repo
from storage.forms import get_form
from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG, upload
from tests.integration.forms.conftest import (
    add_recipient,
    column_id,
    form_board,
    published_form,
    submissions,
    submit,
)
from tests.integration.forms_flow.conftest import active_flow, mailed_token, one_step, request_of
from web.idempotency_store import request_hash
from web.keys import NODE

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
    """A revision of an answer taken before the form closed is taken, with a file it adds; new responses and
    their uploads are refused."""
    org, anonymous = fboard.org, fboard.org.anonymous
    form, flow, submission_id, revision, _ = await returned_for_revision(fboard)
    closed = await org.owner.mutate("forms.update", {"id": form["id"], "status": "closed"})
    assert closed.status == 200, closed.body
    assert (await submit(anonymous, form["slug"], ANSWERS)).status == 409  # a new response: the form is closed

    shown = await anonymous.rest("GET", f"/api/forms/{form['slug']}?revision={revision}")
    assert shown.status == 200 and shown.data["answers"]["title"] == "Leak at press 4", shown.body
    files = f"/api/forms/{form['id']}/files"
    assert (await upload(anonymous, PNG, "new.png", path=files)).status == 409  # not for a new response
    assert (await upload(anonymous, PNG, "new.png", path=f"{files}?revision=apt_unknown")).status == 409
    photo = await upload(anonymous, PNG, "new.png", path=f"{files}?revision={revision}")
    assert photo.status == 201, photo.body
    revised = await submit(anonymous, form["slug"], {**ANSWERS, "title": "Leak at press 5",
                                                     "photos": [photo.data["id"]], "revisionToken": revision})
    assert revised.status == 200 and revised.body["submissionId"] == submission_id, revised.body
    used = await upload(anonymous, PNG, "late.png", path=f"{files}?revision={revision}")
    assert used.status == 409, used.body  # the link is spent once the revision is taken
    resumed = await request_of(org.owner, flow["id"])
    assert (resumed["version"], resumed["currentNodeId"], resumed["awaitingRevision"]) == (2, "step", False)
    [submission] = await submissions(fboard, form["id"])
    assert submission["version"] == 2 and submission["data"]["title"] == "Leak at press 5"
    assert submission["data"]["photos"] == [photo.data["id"]]


async def test_forms_delete_is_refused_for_a_request_opened_while_it_runs(fboard: Board) -> None:
    """A request whose opening has not committed when forms.delete starts: the delete waits for it and is
    refused, instead of deleting the request with the form."""
    org = fboard.org
    form = await published_form(fboard)
    flow = await active_flow(org.owner, form["id"], one_step([org.owner_id]))
    node = fboard.api.client.server.app[NODE]
    submission_id = new_id(Prefix.FORM_SUBMISSION)
    async with node.pool.acquire() as conn, conn.transaction():  # step 1 only: its request is still to open
        await repo.insert(conn, submission_id=submission_id, org_id=org.id, form_id=form["id"], board_id=fboard.id,
                          data=ANSWERS, item_id=new_id(Prefix.ITEM), submitted_by=None, respondent=None,
                          respondent_email=None, idempotency_key=None, request_hash=None, now=node.clock.now())

    async with node.pool.acquire() as opening:
        request_id = new_id(Prefix.APPROVAL_REQUEST)
        transaction = opening.transaction()
        await transaction.start()
        await opening.execute(  # the flow actor's turn opening the request, not yet committed
            """INSERT INTO approval_requests (id, organization_id, flow_id, form_id, submission_id, status, step,
                                              data, version, gxp_required, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, 1, false, now(), now())""",
            request_id, org.id, flow["id"], form["id"], submission_id, ANSWERS)
        deleting = asyncio.ensure_future(org.owner.mutate("forms.delete", {"id": form["id"]}))
        while not await opening.fetchval(  # the delete now waits on the opening's lock
                """SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database()
                                     AND wait_event_type = 'Lock' AND pid <> pg_backend_pid())"""):
            assert not deleting.done(), deleting.result().body
        await transaction.commit()
        deleted = await deleting

    assert deleted.status == 409, deleted.body
    assert (await org.owner.query("forms.get", {"id": form["id"]})).status == 200
    assert await node.pool.fetchval("SELECT status FROM approval_requests WHERE id = $1", request_id) == "pending"


def _step_one(conn: Any, org_id: str, form: dict[str, Any], board: Board, data: Any, now: Any,
              **fields: Any) -> Any:
    """Step 1 of a submission alone, as if the node stopped right after it."""
    return repo.insert(conn, submission_id=fields.pop("submission_id", new_id(Prefix.FORM_SUBMISSION)), org_id=org_id,
                       form_id=form["id"], board_id=board.id, data=data,
                       item_id=fields.pop("item_id", new_id(Prefix.ITEM)),
                       submitted_by=None, respondent=None, respondent_email=None,
                       idempotency_key=fields.pop("idempotency_key", None),
                       request_hash=fields.pop("request_hash", None), now=now)


@pytest.mark.workers("form-sweeper")
async def test_submissions_that_keep_failing_do_not_keep_later_ones_waiting(clocked_client: Any,
                                                                            clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await form_board(org)
    form = await published_form(board)
    node = board.api.client.server.app[NODE]
    behind = new_id(Prefix.ITEM)
    async with node.pool.acquire() as conn, conn.transaction():
        for _ in range(BATCH):  # the oldest, and failing at every sweep (answers that are not an object)
            await _step_one(conn, org.id, form, board, ["not", "answers"], clock.now())
    clock.advance(1)
    async with node.pool.acquire() as conn, conn.transaction():
        await _step_one(conn, org.id, form, board, {"title": "Behind them"}, clock.now(), item_id=behind)

    clock.advance(STALLED_SECONDS + 1)
    await node.workers.idle()
    item = await board.api.query("items.get", {"id": behind})
    assert item.status == 200, item.body
    assert item.data["name"] == "Behind them"
    left = await node.pool.fetchval("SELECT count(*) FROM form_submissions WHERE form_id = $1 AND completed_at IS NULL",
                                    form["id"])
    assert left == BATCH


async def test_an_item_trashed_or_purged_before_its_submission_finished_is_not_made_again(
        clocked_client: Any, clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await form_board(org)
    form = await published_form(board)
    node = board.api.client.server.app[NODE]
    form_row = await get_form(node.pool, org.id, form["id"])
    assert form_row is not None
    trashed, purged = new_id(Prefix.ITEM), new_id(Prefix.ITEM)
    for item_id, title in ((trashed, "Trashed"), (purged, "Purged")):
        async with node.pool.acquire() as conn, conn.transaction():
            row = await _step_one(conn, org.id, form, board, {"title": title}, clock.now(), item_id=item_id)
        # Step 2 alone: the item is made, then the node stops before steps 3 and 4.
        made = await make_item(node, system_caller(org.id, None, "test"), form_row, row)
        assert made is not None and made["id"] == item_id

    assert (await board.api.mutate("items.delete", {"id": purged})).status == 200
    clock.advance(31 * 24 * 3600)
    _, api = await org.add_user("admin")  # the owner's session is over by now
    assert (await api.mutate("items.delete", {"id": trashed})).status == 200
    await purge_expired_trash(node)  # (and whatever else of the database expired by this clock)
    left = await node.pool.fetch("SELECT id FROM items WHERE id = ANY($1::text[])", [trashed, purged])
    assert [r["id"] for r in left] == [trashed]

    await finish_stalled_submissions(node)  # (the database's other unfinished submissions too)
    await finish_stalled_submissions(node)
    unfinished = await node.pool.fetchval(
        "SELECT count(*) FROM form_submissions WHERE form_id = $1 AND completed_at IS NULL", form["id"])
    assert unfinished == 0
    listed = await api.query("items.list", {"boardId": board.id})
    assert listed.data["items"] == []  # neither is made again
    restored = await api.mutate("items.restore", {"id": trashed})
    assert restored.status == 200 and restored.data["name"] == "Trashed", restored.body
    assert (await api.query("items.get", {"id": purged})).status == 404
    feed = await api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    submitted = [e["data"] for e in feed.data["events"] if e["event"] == "form.submitted"]
    assert sorted((e["answers"]["title"], e["item"]) for e in submitted) == [("Purged", None), ("Trashed", None)]
    assert len([e for e in feed.data["events"] if e["event"] == "item.created"]) == 2


async def test_a_retry_of_an_acknowledged_submission_finishes_it_and_never_removes_it(fboard: Board) -> None:
    """The first request stored the submission and answered `received` (steps 2-4 deferred); the board now
    refuses one of its answers. The retry finishes it as the sweeper would and replays the first reply."""
    org, board = fboard.org, fboard
    form = await published_form(board)
    node = board.api.client.server.app[NODE]
    body = {**ANSWERS, "quantity": 60}
    digest = request_hash("POST", org.id, f"/api/forms/{form['id']}/submit", json.dumps(body).encode())
    submission_id, item_id = new_id(Prefix.FORM_SUBMISSION), new_id(Prefix.ITEM)
    async with node.pool.acquire() as conn, conn.transaction():
        await _step_one(conn, org.id, form, board, body, node.clock.now(), submission_id=submission_id,
                        item_id=item_id, idempotency_key="tablet-7", request_hash=digest)
    quantity = column_id(board, "Quantity")
    lowered = await board.api.mutate("columns.update", {"id": quantity, "config": {"max": 50}})
    assert lowered.status == 200, lowered.body

    retry = await submit(org.anonymous, form["id"], body, key="tablet-7")
    assert retry.status == 200, retry.body
    assert retry.body["submissionId"] == submission_id and retry.headers["Idempotent-Replayed"] == "true"
    [kept] = await submissions(board, form["id"])
    assert kept["id"] == submission_id and kept["data"]["quantity"] == 60 and kept["itemId"] == item_id
    item = await board.api.query("items.get", {"id": item_id})
    assert item.status == 200 and item.data["name"] == ANSWERS["title"], item.body
    assert quantity not in item.data["values"]
    again = await submit(org.anonymous, form["id"], body, key="tablet-7")
    assert again.status == 200 and again.body == retry.body
