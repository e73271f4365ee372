"""audits.generateActions: every item of a completed audit scoring below the threshold becomes an
action (sourceType audit, sourceId the session, title "[5S Audit] <question>", priority critical for 0, high
for 1, medium for 2, low for 3-4, assigned to the auditor, due a week later), read back through the actions
procedures; each item becomes at most one action, also under concurrent calls; bad input is 400 naming the
field; an API key needs write:items, which covers the actions it creates."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.audits.conftest import completed_audit, make_checklist, score, start
from tests.integration.boards.conftest import Board

QUESTIONS = [{"question": f"Station {name} in order?", "category": category}
             for name, category in (("A", "sort"), ("B", "set_in_order"), ("C", "shine"), ("D", "standardize"),
                                    ("E", "sustain"), ("F", "sort"))]


async def board_actions(on: Board) -> list[dict[str, Any]]:
    reply = await on.api.query("actions.list", {"boardId": on.id, "limit": 100})
    assert reply.status == 200, reply.body
    return list(reply.data["actions"])


async def test_items_below_the_threshold_become_actions(board: Board) -> None:
    checklist = await make_checklist(board, items=QUESTIONS, name="Line 3 walk")
    session = await start(board, checklist, date="2026-06-01")
    items = checklist["items"]
    await board.api.mutate("audits.submitScore", {"sessionId": session["id"], "scores": [
        {"itemId": items[0]["id"], "score": 0, "comment": "Broken pallets everywhere",
         "photoUrl": "https://img.test/a.jpg"},
        *({"itemId": item["id"], "score": value} for item, value in zip(items[1:], [1, 2, 3, 4, 5], strict=True))]})
    assert (await board.api.mutate("audits.completeAudit", {"id": session["id"]})).status == 200

    generated = await board.api.mutate("audits.generateActions", {"sessionId": session["id"]})
    assert generated.status == 200, generated.body
    assert generated.data["actionsCreated"] == 3 and generated.data["threshold"] == 3
    due = (datetime.now(UTC).date() + timedelta(days=7)).isoformat()

    actions = [(await board.api.query("actions.getById", {"id": action_id})).data
               for action_id in generated.data["actionIds"]]
    assert [(a["title"], a["priority"]) for a in actions] == [
        ("[5S Audit] Station A in order?", "critical"), ("[5S Audit] Station B in order?", "high"),
        ("[5S Audit] Station C in order?", "medium")]
    for action in actions:
        assert action["sourceType"] == "audit" and action["sourceId"] == session["id"]
        assert action["status"] == "open" and action["boardId"] == board.id and action["category"] is None
        assert action["assigneeId"] == board.org.owner_id and action["dueDate"] == due
    assert actions[0]["description"] == (
        'Scored 0 of 5 (Sort) in the 5S audit "Line 3 walk" of 2026-06-01.\n\n'
        "Auditor's comment: Broken pallets everywhere\n\nPhoto: https://img.test/a.jpg")
    assert actions[1]["description"] == 'Scored 1 of 5 (Set in order) in the 5S audit "Line 3 walk" of 2026-06-01.'
    assert sorted(a["id"] for a in await board_actions(board)) == sorted(generated.data["actionIds"])

    # The session shows which action each finding became.
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert [s["actionId"] for s in got.data["scores"]] == [*generated.data["actionIds"], None, None, None]

    trail = await board.api.query("activity.listByEntity", {"entityType": "audit", "entityId": session["id"]})
    latest = trail.data["entries"][0]
    assert latest["action"] == "audit.actions_generated"
    assert latest["metadata"] == {"boardId": board.id, "threshold": 3, "actionIds": generated.data["actionIds"]}


async def test_each_item_becomes_one_action_however_often_it_is_asked(board: Board) -> None:
    checklist = await make_checklist(board, items=QUESTIONS)
    session = await completed_audit(board, checklist, [0, 1, 2, 3, 4, 5])
    first = await board.api.mutate("audits.generateActions", {"sessionId": session["id"]})
    assert first.data["actionsCreated"] == 3
    again = await board.api.mutate("audits.generateActions", {"sessionId": session["id"]})
    assert again.status == 200 and again.data == {"actionsCreated": 0, "threshold": 3, "actionIds": []}

    higher = await board.api.mutate("audits.generateActions", {"sessionId": session["id"], "threshold": 5})
    assert higher.status == 200 and higher.data["actionsCreated"] == 2 and higher.data["threshold"] == 5
    added = [(await board.api.query("actions.getById", {"id": action_id})).data
             for action_id in higher.data["actionIds"]]
    assert [(a["title"], a["priority"]) for a in added] == [("[5S Audit] Station D in order?", "low"),
                                                           ("[5S Audit] Station E in order?", "low")]
    assert len(await board_actions(board)) == 5


async def test_concurrent_calls_make_each_action_once(board: Board) -> None:
    checklist = await make_checklist(board, items=QUESTIONS)
    session = await completed_audit(board, checklist, [1, 1, 1, 1, 2, 5])
    replies = await asyncio.gather(*(board.api.mutate("audits.generateActions", {"sessionId": session["id"]})
                                     for _ in range(4)))
    assert [reply.status for reply in replies] == [200] * 4
    assert sum(reply.data["actionsCreated"] for reply in replies) == 5
    actions = await board_actions(board)
    assert sorted(a["title"] for a in actions) == sorted(f"[5S Audit] {q['question']}" for q in QUESTIONS[:5])


async def test_the_auditor_is_the_assignee_while_a_member(board: Board) -> None:
    auditor_id, auditor = await board.org.add_user("member")
    checklist = await make_checklist(board, items=QUESTIONS[:2])
    sessions = []
    for _ in range(2):
        session = await start(board, checklist, api=auditor)
        await score(auditor, session, [(item["id"], 1) for item in checklist["items"]])
        assert (await auditor.mutate("audits.completeAudit", {"id": session["id"]})).status == 200
        sessions.append(session)

    first = await board.api.mutate("audits.generateActions", {"sessionId": sessions[0]["id"]})
    assert first.status == 200 and first.data["actionsCreated"] == 2
    action = (await board.api.query("actions.getById", {"id": first.data["actionIds"][0]})).data
    assert action["assigneeId"] == auditor_id and action["createdById"] == board.org.owner_id

    # Once the auditor has left, whoever generates the actions takes them.
    removed = await board.org.owner.mutate("organizations.members.remove", {"userId": auditor_id})
    assert removed.status == 200, removed.body
    second = await board.api.mutate("audits.generateActions", {"sessionId": sessions[1]["id"]})
    assert second.status == 200 and second.data["actionsCreated"] == 2
    action = (await board.api.query("actions.getById", {"id": second.data["actionIds"][0]})).data
    assert action["assigneeId"] == board.org.owner_id


async def test_bad_calls_are_refused_naming_the_field(client: TestClient, board: Board) -> None:
    checklist = await make_checklist(board, items=QUESTIONS)
    in_progress = await start(board, checklist)
    await score(board.api, in_progress, [(checklist["items"][0]["id"], 1)])
    refused = await board.api.mutate("audits.generateActions", {"sessionId": in_progress["id"]})
    assert refused.status == 400 and refused.error["data"]["details"][0]["field"] == "sessionId"

    done = await completed_audit(board, checklist, [1, 1, 1, 1, 1, 1])
    for threshold in (0, 6, 2.5, "3"):
        reply = await board.api.mutate("audits.generateActions", {"sessionId": done["id"], "threshold": threshold})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == "threshold", threshold
    missing = await board.api.mutate("audits.generateActions", {})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "sessionId"
    unknown = await board.api.mutate("audits.generateActions", {"sessionId": "aud_nope"})
    assert unknown.status == 404

    other = await make_org(client)
    assert (await other.owner.mutate("audits.generateActions", {"sessionId": done["id"]})).status == 404
    _, guest = await board.org.add_user("guest")
    assert (await guest.mutate("audits.generateActions", {"sessionId": done["id"]})).status == 403
    assert await board_actions(board) == []


async def test_an_items_key_may_generate_actions_and_an_actions_key_may_not(board: Board) -> None:
    """`write:items` covers actions (docs/scopes.md), so it is enough; `write:actions` alone does not reach audits."""
    checklist = await make_checklist(board, items=QUESTIONS[:1])
    session = await completed_audit(board, checklist, [1])

    async def key(scopes: list[str]) -> str:
        reply = await board.api.mutate("apiKeys.create", {"name": "tablet", "scopes": scopes})
        assert reply.status == 200, reply.body
        return str(reply.data["key"])

    actions_only = board.api.with_bearer(await key(["write:actions"]))
    refused = await actions_only.mutate("audits.generateActions", {"sessionId": session["id"]})
    assert refused.status == 403 and "write:items" in refused.error["message"]
    assert await board_actions(board) == []
    items_only = board.api.with_bearer(await key(["write:items"]))
    made = await items_only.mutate("audits.generateActions", {"sessionId": session["id"]})
    assert made.status == 200 and made.data["actionsCreated"] == 1
