"""5S audits: audit checklists of scored questions, audit sessions that score them, the
score history and the actions generated from low scores. The inputs carry the limits (docs/decisions.md
"5S audits"); reading needs the `read:items` key scope, writing `write:items` (the spec lists no audit
scope) and the member role."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import msgspec

from protocol.fields import Id
from protocol.registry import Procedure, Role, declare

# The five 5S categories, in the order an audit walks them.
Category = Literal["sort", "set_in_order", "shine", "standardize", "sustain"]
CATEGORIES: tuple[str, ...] = ("sort", "set_in_order", "shine", "standardize", "sustain")
Status = Literal["in_progress", "completed"]

# An action's title is 1-500 characters and generateActions titles it "[5S Audit] <question>".
ACTION_TITLE_TAG = "[5S Audit] "
QUESTION_MAX = 500 - len(ACTION_TITLE_TAG)
MAX_ITEM_SCORE = 100

ChecklistName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
ChecklistType = Annotated[str, msgspec.Meta(min_length=1, max_length=50)]
Question = Annotated[str, msgspec.Meta(min_length=1, max_length=QUESTION_MAX)]
MaxScore = Annotated[int, msgspec.Meta(ge=1, le=MAX_ITEM_SCORE)]
Score = Annotated[int, msgspec.Meta(ge=0, le=MAX_ITEM_SCORE)]
Comment = Annotated[str, msgspec.Meta(max_length=2000)]
PhotoUrl = Annotated[str, msgspec.Meta(max_length=2048, pattern=r"^https?://\S+$")]
Threshold = Annotated[int, msgspec.Meta(ge=1, le=5)]


class ChecklistItemInput(msgspec.Struct):
    question: Question
    category: Category
    maxScore: MaxScore = 5


class CreateChecklistInput(msgspec.Struct):
    boardId: Id
    name: ChecklistName
    type: ChecklistType
    items: Annotated[list[ChecklistItemInput], msgspec.Meta(min_length=1, max_length=100)]


class IdInput(msgspec.Struct):
    id: Id


class BoardInput(msgspec.Struct):
    boardId: Id


class StartAuditInput(msgspec.Struct):
    boardId: Id
    checklistId: Id
    date: date | None = None


class ScoreInput(msgspec.Struct):
    itemId: Id
    score: Score
    comment: Comment | None = None
    photoUrl: PhotoUrl | None = None


class SubmitScoreInput(msgspec.Struct):
    sessionId: Id
    scores: Annotated[list[ScoreInput], msgspec.Meta(min_length=1, max_length=100)]


class ListAuditsInput(msgspec.Struct):
    boardId: Id
    checklistId: Id | None = None
    status: Status | None = None
    limit: int | None = None
    offset: int | None = None


class ScoreHistoryInput(msgspec.Struct):
    boardId: Id
    checklistId: Id | None = None
    limit: int | None = None


class GenerateActionsInput(msgspec.Struct):
    sessionId: Id
    threshold: Threshold = 3


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, min_role=Role.MEMBER, summary=summary)


CREATE_CHECKLIST = _write("audits.createChecklist", CreateChecklistInput,
                          "Create an audit checklist of scored questions on a board")
GET_CHECKLIST = _read("audits.getChecklist", IdInput, "An audit checklist with its items")
LIST_CHECKLISTS = _read("audits.listChecklists", BoardInput, "A board's audit checklists, newest first")
START_AUDIT = _write("audits.startAudit", StartAuditInput, "Start an audit session of a checklist; the caller "
                     "is the auditor")
SUBMIT_SCORE = _write("audits.submitScore", SubmitScoreInput, "Score items of an audit in progress; an item "
                      "scored again keeps the latest score")
COMPLETE_AUDIT = _write("audits.completeAudit", IdInput, "Complete an audit whose every item is scored")
LIST_AUDITS = _read("audits.listAudits", ListAuditsInput, "A board's audit sessions, newest first")
GET_AUDIT = _read("audits.getAuditById", IdInput, "An audit session with its scores")
SCORE_HISTORY = _read("audits.getScoreHistory", ScoreHistoryInput, "A board's completed audits, newest first, "
                      "with percentages and per-category scores")
GENERATE_ACTIONS = _write("audits.generateActions", GenerateActionsInput, "Turn a completed audit's items "
                          "scoring below a threshold into actions (each item at most once)")
