"""Audit sessions: start (maxScore is the sum of the item maximums, the date defaults to
today on the server's clock), submit scores (merged, re-scoring replaces, total recalculated, range checked per
item), complete (refused with the number of unscored items), list with filters and offset paging, get by id;
events on the board's stream and entries on the activity trail; concurrent submissions keep every score;
another organization's sessions are 404."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from aiohttp.test_utils import TestClient

from actors.runtime.clock import ManualClock
from storage import audits as repo
from tests.harness import make_org
from tests.integration.audits.conftest import QUESTIONS, completed_audit, make_checklist, score, start
from tests.integration.boards.conftest import Board, make_board


def ids(checklist: dict[str, Any]) -> list[str]:
    return [item["id"] for item in checklist["items"]]


async def test_start_gives_an_empty_session_in_progress(board: Board) -> None:
    checklist = await make_checklist(board)
    session = await start(board, checklist, date="2026-05-04")
    assert session["id"].startswith("aud_")
    assert session["checklistId"] == checklist["id"] and session["boardId"] == board.id
    assert session["auditorId"] == board.org.owner_id and session["date"] == "2026-05-04"
    assert session["scores"] == [] and session["totalScore"] == 0 and session["maxScore"] == 25
    assert session["status"] == "in_progress" and session["completedAt"] is None
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert got.status == 200 and got.data == session


async def test_the_date_defaults_to_today_on_the_servers_clock(clocked_client: TestClient,
                                                               clock: ManualClock) -> None:
    on = await make_board(await make_org(clocked_client))
    checklist = await make_checklist(on)
    clock.advance(timedelta(days=3).total_seconds())
    session = await start(on, checklist)
    assert session["date"] == clock.now().date().isoformat()


async def test_start_needs_a_checklist_of_that_board(board: Board) -> None:
    checklist = await make_checklist(board)
    other_board = await make_board(board.org)
    elsewhere = await board.api.mutate("audits.startAudit", {"boardId": other_board.id,
                                                             "checklistId": checklist["id"]})
    assert elsewhere.status == 404 and elsewhere.error["data"]["details"][0]["field"] == "checklistId"
    unknown = await board.api.mutate("audits.startAudit", {"boardId": board.id, "checklistId": "chk_nope"})
    assert unknown.status == 404
    for change, field in (({"checklistId": None}, "checklistId"), ({"date": "2026-02-30"}, "date"),
                          ({"date": "tomorrow"}, "date"), ({"boardId": ""}, "boardId")):
        reply = await board.api.mutate("audits.startAudit", {"boardId": board.id, "checklistId": checklist["id"],
                                                             **change})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, (change, reply.body)


async def test_scores_merge_replace_and_total(board: Board) -> None:
    checklist = await make_checklist(board)
    sort, order, shine, tags = ids(checklist)
    session = await start(board, checklist)

    first = await score(board.api, session, [(shine, 7), (sort, 4)])
    assert first["totalScore"] == 11 and first["maxScore"] == 25
    # Scores are shown in the checklist's order, whatever the order they were given in.
    assert [(s["itemId"], s["score"]) for s in first["scores"]] == [(sort, 4), (shine, 7)]

    detailed = await board.api.mutate("audits.submitScore", {"sessionId": session["id"], "scores": [
        {"itemId": order, "score": 2, "comment": "Two tools missing", "photoUrl": "https://img.test/board.jpg"}]})
    assert detailed.status == 200 and detailed.data["totalScore"] == 13
    assert detailed.data["scores"][1] == {"itemId": order, "score": 2, "comment": "Two tools missing",
                                          "photoUrl": "https://img.test/board.jpg", "scoredBy": board.org.owner_id,
                                          "scoredAt": detailed.data["scores"][1]["scoredAt"], "actionId": None}

    rescored = await score(board.api, session, [(shine, 10), (tags, 0)])
    assert [(s["itemId"], s["score"]) for s in rescored["scores"]] == [(sort, 4), (order, 2), (shine, 10), (tags, 0)]
    assert rescored["totalScore"] == 16

    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert got.data["totalScore"] == 16 and got.data["scores"] == rescored["scores"]


async def test_bad_scores_are_400_naming_the_field(board: Board) -> None:
    checklist = await make_checklist(board)
    sort, _, shine, _ = ids(checklist)
    session = await start(board, checklist)
    cases = [
        ([{"itemId": sort, "score": 6}], "scores.0.score"),
        ([{"itemId": sort, "score": 1}, {"itemId": shine, "score": 11}], "scores.1.score"),
        ([{"itemId": sort, "score": -1}], "scores.0.score"),
        ([{"itemId": sort, "score": 2.5}], "scores.0.score"),
        ([{"itemId": "aqi_unknown", "score": 1}], "scores.0.itemId"),
        ([{"itemId": sort, "score": 1}, {"itemId": sort, "score": 2}], "scores.1.itemId"),
        ([{"itemId": sort, "score": 1, "photoUrl": "javascript:alert(1)"}], "scores.0.photoUrl"),
        ([{"itemId": sort, "score": 1, "comment": "c" * 2001}], "scores.0.comment"),
        ([], "scores"),
    ]
    for scores, field in cases:
        reply = await board.api.mutate("audits.submitScore", {"sessionId": session["id"], "scores": scores})
        assert reply.status == 400, (scores, reply.body)
        assert reply.error["data"]["details"][0]["field"] == field, (scores, reply.body)
    # An item of another checklist of the same board is not an item of this audit.
    other = await make_checklist(board)
    foreign = await board.api.mutate("audits.submitScore", {"sessionId": session["id"], "scores": [
        {"itemId": other["items"][0]["id"], "score": 1}]})
    assert foreign.status == 400 and foreign.error["data"]["details"][0]["field"] == "scores.0.itemId"
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert got.data["scores"] == [] and got.data["totalScore"] == 0


async def test_complete_is_refused_with_the_number_of_unscored_items(board: Board) -> None:
    checklist = await make_checklist(board)
    sort, order, shine, tags = ids(checklist)
    session = await start(board, checklist)
    await score(board.api, session, [(sort, 3)])

    refused = await board.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert refused.status == 400 and refused.error["data"]["code"] == "BAD_REQUEST"
    assert refused.error["message"] == "3 items are not scored"
    assert refused.error["data"]["unscoredCount"] == 3
    assert refused.error["data"]["unscoredItemIds"] == [order, shine, tags]

    await score(board.api, session, [(order, 3), (shine, 3)])
    one_left = await board.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert one_left.status == 400 and one_left.error["message"] == "1 item is not scored"

    await score(board.api, session, [(tags, 3)])
    done = await board.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert done.status == 200, done.body
    assert done.data["status"] == "completed" and done.data["totalScore"] == 12 and done.data["completedAt"]

    # A completed audit is final: no more scores, no second completion.
    late = await board.api.mutate("audits.submitScore", {"sessionId": session["id"],
                                                         "scores": [{"itemId": sort, "score": 5}]})
    assert late.status == 409 and late.error["data"]["code"] == "CONFLICT"
    again = await board.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert again.status == 409
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert got.data["totalScore"] == 12 and got.data["status"] == "completed"


async def test_list_filters_and_pages_newest_first(board: Board) -> None:
    walk = await make_checklist(board)
    daily = await make_checklist(board, items=[{"question": "Aisles clear?", "category": "shine"}], name="Daily")
    done = await completed_audit(board, walk, [5, 5, 10, 5], date="2026-05-01")
    open_walk = await start(board, walk, date="2026-05-03")
    open_daily = await start(board, daily, date="2026-05-02")

    everything = await board.api.query("audits.listAudits", {"boardId": board.id})
    assert everything.status == 200
    assert [s["id"] for s in everything.data["items"]] == [open_walk["id"], open_daily["id"], done["id"]]
    assert everything.data["total"] == 3 and everything.data["hasMore"] is False
    assert everything.data["items"][2]["scores"] == done["scores"]

    completed = await board.api.query("audits.listAudits", {"boardId": board.id, "status": "completed"})
    assert [s["id"] for s in completed.data["items"]] == [done["id"]] and completed.data["total"] == 1
    of_walk = await board.api.query("audits.listAudits", {"boardId": board.id, "checklistId": walk["id"],
                                                          "status": "in_progress"})
    assert [s["id"] for s in of_walk.data["items"]] == [open_walk["id"]]

    first = await board.api.query("audits.listAudits", {"boardId": board.id, "limit": 2})
    assert [s["id"] for s in first.data["items"]] == [open_walk["id"], open_daily["id"]]
    assert first.data["total"] == 3 and first.data["hasMore"] is True
    rest = await board.api.query("audits.listAudits", {"boardId": board.id, "limit": 2, "offset": 2})
    assert [s["id"] for s in rest.data["items"]] == [done["id"]] and rest.data["hasMore"] is False
    beyond = await board.api.query("audits.listAudits", {"boardId": board.id, "offset": 10})
    assert beyond.data == {"items": [], "total": 3, "hasMore": False}

    for bad, field in (({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"offset": -1}, "offset"),
                       ({"status": "archived"}, "status")):
        reply = await board.api.query("audits.listAudits", {"boardId": board.id, **bad})
        assert reply.status == 400 and reply.error["data"]["details"][0]["field"] == field, (bad, reply.body)
    missing = await board.api.query("audits.listAudits", {})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "boardId"


async def test_concurrent_submissions_keep_every_score(board: Board) -> None:
    items = [{"question": f"Station {n} in order?", "category": "set_in_order"} for n in range(8)]
    checklist = await make_checklist(board, items=items)
    session = await start(board, checklist)
    _, colleague = await board.org.add_user("member")
    apis = [board.api, colleague]
    results = await asyncio.gather(*(
        apis[index % 2].mutate("audits.submitScore", {"sessionId": session["id"],
                                                      "scores": [{"itemId": item_id, "score": 1 + index % 5}]})
        for index, item_id in enumerate(ids(checklist))))
    assert [reply.status for reply in results] == [200] * 8
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert [s["score"] for s in got.data["scores"]] == [1 + index % 5 for index in range(8)]
    assert got.data["totalScore"] == sum(1 + index % 5 for index in range(8))
    done = await board.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert done.status == 200, done.body


async def test_session_changes_are_board_events_and_activity(board: Board) -> None:
    checklist = await make_checklist(board, items=[QUESTIONS[0]])
    session = await start(board, checklist)
    await score(board.api, session, [(ids(checklist)[0], 4)])
    await board.api.mutate("audits.completeAudit", {"id": session["id"]})

    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    assert feed.status == 200, feed.body
    audit_events = [e for e in feed.data["events"] if e["event"].startswith("audit.")]
    assert [e["event"] for e in audit_events] == ["audit.started", "audit.scored", "audit.completed"]
    assert all(e["data"]["audit"]["id"] == session["id"] for e in audit_events)
    assert [e["data"]["audit"]["totalScore"] for e in audit_events] == [0, 4, 4]
    assert audit_events[1]["data"]["itemIds"] == ids(checklist)
    assert audit_events[2]["data"]["audit"]["status"] == "completed"
    assert audit_events[0]["data"]["actor"]["id"] == board.org.owner_id

    trail = await board.api.query("activity.listByEntity", {"entityType": "audit", "entityId": session["id"]})
    assert [entry["action"] for entry in trail.data["entries"]] == ["audit.completed", "audit.scored",
                                                                    "audit.started"]


async def test_another_organizations_sessions_are_not_found(client: TestClient, board: Board) -> None:
    checklist = await make_checklist(board)
    session = await start(board, checklist)
    other = await make_org(client)
    calls = [
        other.owner.query("audits.getAuditById", {"id": session["id"]}),
        other.owner.query("audits.listAudits", {"boardId": board.id}),
        other.owner.query("audits.getScoreHistory", {"boardId": board.id}),
        other.owner.mutate("audits.startAudit", {"boardId": board.id, "checklistId": checklist["id"]}),
        other.owner.mutate("audits.submitScore", {"sessionId": session["id"],
                                                  "scores": [{"itemId": ids(checklist)[0], "score": 1}]}),
        other.owner.mutate("audits.completeAudit", {"id": session["id"]}),
    ]
    assert [reply.status for reply in await asyncio.gather(*calls)] == [404] * 6
    got = await board.api.query("audits.getAuditById", {"id": session["id"]})
    assert got.data["scores"] == []


async def test_every_score_query_is_scoped_by_organization(board: Board, pool: asyncpg.Pool) -> None:
    """The storage names the organization in every query: with another organization's id a real session id
    reads, scores, completes and claims nothing."""
    checklist = await make_checklist(board, items=[QUESTIONS[0]])
    session = await start(board, checklist)
    [item_id] = ids(checklist)
    await score(board.api, session, [(item_id, 1)])
    stranger, now = "org_stranger", datetime.now(UTC)
    async with pool.acquire() as conn, conn.transaction():
        assert await repo.scores(conn, stranger, [session["id"]]) == []
        assert await repo.scored_item_ids(conn, stranger, session["id"]) == set()
        await repo.upsert_scores(conn, stranger, session["id"], [(item_id, 5, "Moved in", None)], board.org.owner_id,
                                 now)
        await repo.recompute_total(conn, stranger, session["id"], now)
        await repo.complete(conn, stranger, session["id"], now)
        assert await repo.claim_low_scores(conn, stranger, session["id"], 5, now) == []
        await repo.set_action(conn, stranger, session["id"], item_id, "acn_stranger")
        await repo.release_claims(conn, stranger, session["id"], [item_id])
    got = (await board.api.query("audits.getAuditById", {"id": session["id"]})).data
    assert (got["status"], got["totalScore"]) == ("in_progress", 1)
    assert [(s["score"], s["comment"], s["actionId"]) for s in got["scores"]] == [(1, None, None)]


async def test_scoring_needs_the_member_role(board: Board) -> None:
    checklist = await make_checklist(board)
    session = await start(board, checklist)
    _, guest = await board.org.add_user("guest")
    for name, payload in (("audits.startAudit", {"boardId": board.id, "checklistId": checklist["id"]}),
                          ("audits.submitScore", {"sessionId": session["id"],
                                                  "scores": [{"itemId": ids(checklist)[0], "score": 1}]}),
                          ("audits.completeAudit", {"id": session["id"]})):
        reply = await guest.mutate(name, payload)
        assert reply.status == 403, (name, reply.body)
