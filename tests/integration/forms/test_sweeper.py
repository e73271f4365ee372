"""The submission sweeper: a submission stored (step 1) whose later steps never ran is finished a while
later: the item with its id and mapped values, form.submitted, completion; done once."""

from __future__ import annotations

from typing import Any

import pytest

from actors.forms.pipeline import make_item, system_caller
from actors.forms.sweeper import STALLED_SECONDS
from actors.runtime.clock import ManualClock
from protocol.ids import Prefix, new_id
from storage import form_submissions as repo
from storage.forms import get_form, get_submission
from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import column_id, form_board, published_form, submit
from web.keys import NODE

pytestmark = pytest.mark.workers("form-sweeper")


@pytest.fixture
async def clocked_board(clocked_client: Any) -> Board:
    return await form_board(await make_org(clocked_client))


async def test_the_sweeper_finishes_a_submission_whose_later_steps_did_not_run(clocked_board: Board,
                                                                                clock: ManualClock) -> None:
    board = clocked_board
    form = await published_form(board)
    node = board.api.client.server.app[NODE]
    item_id, submission_id = new_id(Prefix.ITEM), new_id(Prefix.FORM_SUBMISSION)
    async with node.pool.acquire() as conn, conn.transaction():  # step 1 only: the node stopped after it
        await repo.insert(conn, submission_id=submission_id, org_id=board.org.id, form_id=form["id"],
                          board_id=board.id, data={"title": "Cut short", "quantity": 7, "line": "L2"},
                          item_id=item_id, submitted_by=None, respondent=None, respondent_email=None,
                          idempotency_key=None, request_hash=None, now=clock.now())
    await node.workers.idle()
    assert (await board.api.query("items.get", {"id": item_id})).status == 404  # not yet: it may still finish

    clock.advance(STALLED_SECONDS + 1)
    await node.workers.idle()
    item = await board.api.query("items.get", {"id": item_id})
    assert item.status == 200, item.body
    assert item.data["name"] == "Cut short" and item.data["values"][column_id(board, "Quantity")] == 7
    completed = await node.pool.fetchval("SELECT completed_at FROM form_submissions WHERE id = $1", submission_id)
    assert completed is not None
    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    submitted = [e for e in feed.data["events"] if e["event"] == "form.submitted"]
    assert [e["data"]["submissionId"] for e in submitted] == [submission_id]
    assert submitted[0]["data"]["item"]["id"] == item_id

    clock.advance(STALLED_SECONDS + 1)  # a later sweep finds nothing left to do
    await node.workers.idle()
    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    assert len([e for e in feed.data["events"] if e["event"] == "form.submitted"]) == 1
    assert len([e for e in feed.data["events"] if e["event"] == "item.created"]) == 1


async def test_making_the_item_twice_makes_it_once(fboard: Board) -> None:
    form = await published_form(fboard)
    reply = await submit(fboard.org.anonymous, form["id"], {"title": "Once", "quantity": 2})
    node = fboard.api.client.server.app[NODE]
    submission = await get_submission(node.pool, fboard.org.id, reply.body["submissionId"])
    form_row = await get_form(node.pool, fboard.org.id, form["id"])
    assert submission is not None and form_row is not None
    again = await make_item(node, system_caller(fboard.org.id, None, "test"), form_row, submission)
    assert again["id"] == submission["item_id"] and again["name"] == "Once"
    listed = await fboard.api.query("items.list", {"boardId": fboard.id})
    assert [i["id"] for i in listed.data["items"]] == [submission["item_id"]]
