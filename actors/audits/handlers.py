"""5S audits: audit checklists, audit sessions and their scores, the score history and
the actions generated from low scores. Audits are board-scoped: a checklist or session on a board the caller
cannot see is 404. Writes to a session lock its row, so concurrent score submissions and a completion apply
one after another and the total is always the sum of the stored scores.

Session changes are events on the board's stream (`audit.started`, `audit.scored`, `audit.completed`) so that
a tier-board screen follows an audit entered on a tablet; they are not webhook events (protocol/webhooks.py).
generateActions opens its actions through the actions module's `create_action`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import asyncpg

from actors.actions.handlers import create_action, today
from actors.kernel.access import require_board_access, sees_board
from actors.kernel.events import board_stream
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import audits as proto
from protocol.actions import CreateActionInput, Priority
from protocol.caller import Caller
from protocol.errors import BadRequest, Conflict, FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import page_limit, page_offset
from storage import audits as repo
from storage import organizations as members

procedures = Implementations()

HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT = 20, 100
# generateActions: the priority of an action by the item's score; a 3 or 4 below the threshold is "low".
PRIORITY_BY_SCORE: dict[int, Priority] = {0: "critical", 1: "high", 2: "medium"}
# A generated action is due a week after the day it is generated, so that it is never born overdue.
ACTION_DUE_DAYS = 7
CATEGORY_NAMES = {"sort": "Sort", "set_in_order": "Set in order", "shine": "Shine", "standardize": "Standardize",
                  "sustain": "Sustain"}


def _not_blank(fields: Iterable[tuple[str, str]]) -> None:
    details = [FieldError(field, "must not be blank") for field, text in fields if not text.strip()]
    if details:
        raise ValidationFailed.naming(details)


def _rounded(value: Decimal, places: str) -> float:
    return float(value.quantize(Decimal(places), rounding=ROUND_HALF_UP))


def checklist_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "boardId": row["board_id"], "name": row["name"], "type": row["type"],
            "items": row["items"], "maxScore": row["max_score"], "createdBy": row["created_by"],
            "createdAt": iso(row["created_at"])}


def _summary(row: Mapping[str, Any]) -> dict[str, Any]:
    """A session without its scores: what events carry."""
    return {"id": row["id"], "boardId": row["board_id"], "checklistId": row["checklist_id"],
            "checklistName": row["checklist_name"], "auditorId": row["auditor_id"], "date": row["date"].isoformat(),
            "status": row["status"], "totalScore": row["total_score"], "maxScore": row["max_score"],
            "completedAt": iso(row["completed_at"]), "createdAt": iso(row["created_at"]),
            "updatedAt": iso(row["updated_at"])}


def _score_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"itemId": row["item_id"], "score": row["score"], "comment": row["comment"],
            "photoUrl": row["photo_url"], "scoredBy": row["scored_by"], "scoredAt": iso(row["scored_at"]),
            "actionId": row["action_id"]}


def session_view(row: Mapping[str, Any], scores: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A session with its scores in the checklist's order."""
    order = {item["id"]: index for index, item in enumerate(row["checklist_items"])}
    ordered = sorted(scores, key=lambda score: order[score["item_id"]])
    return {**_summary(row), "scores": [_score_view(score) for score in ordered]}


def _by_session(score_rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for score in score_rows:
        grouped.setdefault(score["session_id"], []).append(score)
    return grouped


def history_entry(row: Mapping[str, Any], scores: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A completed session as the score history shows it: the percentage of the maximum to one decimal, and
    per category of its checklist the total, the number of items and their average score to two decimals."""
    category_of = {item["id"]: item["category"] for item in row["checklist_items"]}
    totals = {category: [0, 0] for category in proto.CATEGORIES if category in category_of.values()}
    for score in scores:
        total = totals[category_of[score["item_id"]]]
        total[0] += score["score"]
        total[1] += 1
    return {"id": row["id"], "checklistId": row["checklist_id"], "date": row["date"].isoformat(),
            "totalScore": row["total_score"], "maxScore": row["max_score"],
            "percentage": _rounded(Decimal(row["total_score"] * 100) / row["max_score"], "0.1"),
            "categoryScores": {category: {"total": total, "count": count,
                                          "average": _rounded(Decimal(total) / count, "0.01") if count else 0.0}
                               for category, (total, count) in totals.items()}}


async def _board_access(node: Node, caller: Caller, board_id: str, what: str) -> None:
    if not await sees_board(node, caller, board_id):
        raise NotFound(f"{what} not found")


async def _checklist(node: Node, caller: Caller, checklist_id: str) -> asyncpg.Record:
    row = await repo.checklist(node.pool, caller.org_id, checklist_id)
    if row is None:
        raise NotFound("audit checklist not found")
    await _board_access(node, caller, row["board_id"], "audit checklist")
    return row


async def _session(node: Node, caller: Caller, session_id: str) -> asyncpg.Record:
    row = await repo.session(node.pool, caller.org_id, session_id)
    if row is None:
        raise NotFound("audit not found")
    await _board_access(node, caller, row["board_id"], "audit")
    return row


async def _locked_in_progress(conn: asyncpg.Connection, caller: Caller, session_id: str) -> None:
    status = await repo.lock_session(conn, caller.org_id, session_id)
    if status is None:
        raise NotFound("audit not found")
    if status == "completed":
        raise Conflict("the audit is completed: its scores can no longer change")


async def _commit_event(uow: UnitOfWork, session_id: str, name: str,
                        extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read the session back inside the transaction, write its activity entry and event; the view."""
    org_id = uow.org_id
    row = await repo.session(uow.conn, org_id, session_id)
    assert row is not None  # locked or inserted by this transaction
    view = session_view(row, await repo.scores(uow.conn, org_id, [session_id]))
    await uow.activity("audit", session_id, name, {"boardId": row["board_id"], "checklistId": row["checklist_id"],
                                                   "totalScore": row["total_score"], **(extra or {})})
    uow.emit(board_stream(row["board_id"]), name, {"audit": _summary(row), **(extra or {})})
    return view


@procedures.implement(proto.CREATE_CHECKLIST)
async def create_checklist(node: Node, caller: Caller, data: proto.CreateChecklistInput) -> dict[str, Any]:
    questions = [(f"items.{index}.question", item.question) for index, item in enumerate(data.items)]
    _not_blank([("name", data.name), ("type", data.type), *questions])
    await require_board_access(node, caller, data.boardId)
    items = [{"id": new_id(Prefix.AUDIT_QUESTION), "question": item.question.strip(), "category": item.category,
              "maxScore": item.maxScore} for item in data.items]
    # A foreign-key violation: the board was deleted since the access check.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        row = await repo.insert_checklist(uow.conn, checklist_id=new_id(Prefix.AUDIT_CHECKLIST), org_id=caller.org_id,
                                          board_id=data.boardId, name=data.name.strip(), kind=data.type.strip(),
                                          items=items, max_score=sum(item.maxScore for item in data.items),
                                          created_by=caller.uid, now=uow.now)
        await uow.activity("audit_checklist", row["id"], "audit_checklist.created",
                           {"boardId": data.boardId, "name": row["name"], "items": len(items)})
    return checklist_view(row)


@procedures.implement(proto.GET_CHECKLIST)
async def get_checklist(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    return checklist_view(await _checklist(node, caller, data.id))


@procedures.implement(proto.LIST_CHECKLISTS)
async def list_checklists(node: Node, caller: Caller, data: proto.BoardInput) -> list[dict[str, Any]]:
    await require_board_access(node, caller, data.boardId)
    rows = await repo.checklists_for_board(node.pool, caller.org_id, data.boardId)
    return [checklist_view(row) for row in rows]


@procedures.implement(proto.START_AUDIT)
async def start_audit(node: Node, caller: Caller, data: proto.StartAuditInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    checklist = await repo.checklist(node.pool, caller.org_id, data.checklistId)
    if checklist is None or checklist["board_id"] != data.boardId:
        raise NotFound("audit checklist not found on this board",
                       details=[FieldError("checklistId", "no such audit checklist on the board")])
    now = node.clock.now()
    day = data.date or now.astimezone(UTC).date()
    session_id = new_id(Prefix.AUDIT)
    # A foreign-key violation: the board was deleted since the access check.
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        await repo.insert_session(uow.conn, session_id=session_id, org_id=caller.org_id, board_id=data.boardId,
                                  checklist_id=checklist["id"], auditor_id=caller.uid, day=day,
                                  max_score=checklist["max_score"], now=now)
        view = await _commit_event(uow, session_id, "audit.started")
    return view


def _check_scores(checklist_items: list[dict[str, Any]], scores: list[proto.ScoreInput]) -> None:
    """Every item of the checklist, once per submission, scored from 0 to its maximum."""
    maximum = {item["id"]: item["maxScore"] for item in checklist_items}
    seen: set[str] = set()
    details = []
    for index, score in enumerate(scores):
        if score.itemId not in maximum:
            details.append(FieldError(f"scores.{index}.itemId", "is not an item of the audit's checklist"))
        elif score.itemId in seen:
            details.append(FieldError(f"scores.{index}.itemId", "is scored twice in this submission"))
        elif score.score > maximum[score.itemId]:
            details.append(FieldError(f"scores.{index}.score", f"must be from 0 to {maximum[score.itemId]}"))
        seen.add(score.itemId)
    if details:
        raise ValidationFailed.naming(details)


@procedures.implement(proto.SUBMIT_SCORE)
async def submit_score(node: Node, caller: Caller, data: proto.SubmitScoreInput) -> dict[str, Any]:
    session = await _session(node, caller, data.sessionId)
    _check_scores(session["checklist_items"], data.scores)
    rows = [(score.itemId, score.score, score.comment, score.photoUrl) for score in data.scores]
    async with node.write(caller) as uow:
        await _locked_in_progress(uow.conn, caller, data.sessionId)
        await repo.upsert_scores(uow.conn, caller.org_id, data.sessionId, rows, caller.uid, uow.now)
        await repo.recompute_total(uow.conn, caller.org_id, data.sessionId, uow.now)
        view = await _commit_event(uow, data.sessionId, "audit.scored",
                                   {"itemIds": [score.itemId for score in data.scores]})
    return view


def _unscored_message(count: int) -> str:
    return "1 item is not scored" if count == 1 else f"{count} items are not scored"


@procedures.implement(proto.COMPLETE_AUDIT)
async def complete_audit(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    session = await _session(node, caller, data.id)
    async with node.write(caller) as uow:
        conn = uow.conn
        await _locked_in_progress(conn, caller, data.id)
        scored = await repo.scored_item_ids(conn, caller.org_id, data.id)
        unscored = [item["id"] for item in session["checklist_items"] if item["id"] not in scored]
        if unscored:
            raise BadRequest(_unscored_message(len(unscored)),
                             details=[FieldError("id", _unscored_message(len(unscored)))],
                             data={"unscoredCount": len(unscored), "unscoredItemIds": unscored})
        await repo.complete(conn, caller.org_id, data.id, uow.now)
        view = await _commit_event(uow, data.id, "audit.completed")
    return view


@procedures.implement(proto.LIST_AUDITS)
async def list_audits(node: Node, caller: Caller, data: proto.ListAuditsInput) -> dict[str, Any]:
    limit = page_limit(data.limit)
    offset = page_offset(data.offset)
    await require_board_access(node, caller, data.boardId)
    rows, total = await repo.sessions_for_board(node.pool, caller.org_id, data.boardId,
                                                checklist_id=data.checklistId, status=data.status, limit=limit,
                                                offset=offset)
    scores = _by_session(await repo.scores(node.pool, caller.org_id, [row["id"] for row in rows]))
    return {"items": [session_view(row, scores.get(row["id"], [])) for row in rows], "total": total,
            "hasMore": offset + len(rows) < total}


@procedures.implement(proto.GET_AUDIT)
async def get_audit(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    row = await _session(node, caller, data.id)
    return session_view(row, await repo.scores(node.pool, caller.org_id, [data.id]))


@procedures.implement(proto.SCORE_HISTORY)
async def score_history(node: Node, caller: Caller, data: proto.ScoreHistoryInput) -> list[dict[str, Any]]:
    limit = page_limit(data.limit, default=HISTORY_DEFAULT_LIMIT, maximum=HISTORY_MAX_LIMIT)
    await require_board_access(node, caller, data.boardId)
    rows, _ = await repo.sessions_for_board(node.pool, caller.org_id, data.boardId, checklist_id=data.checklistId,
                                            status="completed", limit=limit, offset=0)
    scores = _by_session(await repo.scores(node.pool, caller.org_id, [row["id"] for row in rows]))
    return [history_entry(row, scores.get(row["id"], [])) for row in rows]


async def _assignee(node: Node, caller: Caller, auditor_id: str | None) -> str:
    """The auditor, who saw the finding; whoever generates the actions when the auditor has left."""
    if auditor_id is not None:
        auditor = await members.member(node.pool, caller.org_id, auditor_id)
        if auditor is not None and auditor["status"] == "active":
            return auditor_id
    return caller.uid


def _finding(session: Mapping[str, Any], item: Mapping[str, Any], score: Mapping[str, Any]) -> str:
    """The action's description: what was found, where, and the auditor's own words."""
    lines = [f"Scored {score['score']} of {item['maxScore']} ({CATEGORY_NAMES[item['category']]}) in the 5S audit "
             f"\"{session['checklist_name']}\" of {session['date'].isoformat()}."]
    if score["comment"]:
        lines.append(f"Auditor's comment: {score['comment']}")
    if score["photo_url"]:
        lines.append(f"Photo: {score['photo_url']}")
    return "\n\n".join(lines)


@procedures.implement(proto.GENERATE_ACTIONS)
async def generate_actions(node: Node, caller: Caller, data: proto.GenerateActionsInput) -> dict[str, Any]:
    """One action per item of a completed audit scoring below the threshold, each item at most once: a second
    call makes actions only for items not yet turned into one (say, with a higher threshold). Items are claimed
    before their action is made, so concurrent calls never make two actions of one item; a claim whose action
    could not be made is given back for the next call."""
    session = await _session(node, caller, data.sessionId)
    if session["status"] != "completed":
        raise BadRequest("only a completed audit generates actions",
                         details=[FieldError("sessionId", "the audit is not completed")])
    async with node.pool.acquire() as conn, conn.transaction():
        claimed = await repo.claim_low_scores(conn, caller.org_id, data.sessionId, data.threshold, node.clock.now())
    items = {item["id"]: item for item in session["checklist_items"]}
    order = {item_id: index for index, item_id in enumerate(items)}
    claimed = sorted(claimed, key=lambda score: order[score["item_id"]])
    assignee = await _assignee(node, caller, session["auditor_id"])
    due = (today(node) + timedelta(days=ACTION_DUE_DAYS)).isoformat()
    pending = [score["item_id"] for score in claimed]
    made: list[str] = []
    try:
        for score in claimed:
            item = items[score["item_id"]]
            action = await create_action(node, caller, CreateActionInput(
                boardId=session["board_id"], title=proto.ACTION_TITLE_TAG + item["question"],
                priority=PRIORITY_BY_SCORE.get(score["score"], "low"), assigneeId=assignee, dueDate=due,
                description=_finding(session, item, score), sourceType="audit", sourceId=session["id"]))
            pending.remove(score["item_id"])  # made: the claim stays even if linking it fails below
            made.append(action["id"])
            await repo.set_action(node.pool, caller.org_id, session["id"], score["item_id"], action["id"])
    finally:
        if pending:
            await repo.release_claims(node.pool, caller.org_id, session["id"], pending)
    async with node.write(caller) as uow:
        await uow.activity("audit", session["id"], "audit.actions_generated",
                           {"boardId": session["board_id"], "threshold": data.threshold, "actionIds": made})
    return {"actionsCreated": len(made), "threshold": data.threshold, "actionIds": made}
