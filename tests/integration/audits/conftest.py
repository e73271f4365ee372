"""Audit fixtures: the board fixture of the board tests and helpers that make a checklist, start an audit and
score it through the API."""

from __future__ import annotations

from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)

# A checklist of four questions over three 5S categories; maxScores 5, 5, 10 and 5 (a maximum of 25).
QUESTIONS: list[dict[str, Any]] = [
    {"question": "Only needed tools at the station?", "category": "sort"},
    {"question": "Every tool on its shadow board?", "category": "set_in_order"},
    {"question": "Floor and machines clean?", "category": "shine", "maxScore": 10},
    {"question": "Red tags processed?", "category": "sort"},
]


async def make_checklist(on: Board, api: Api | None = None, items: list[dict[str, Any]] | None = None,
                         name: str = "Weekly 5S walk") -> dict[str, Any]:
    reply = await (api or on.api).mutate("audits.createChecklist", {
        "boardId": on.id, "name": name, "type": "5s", "items": QUESTIONS if items is None else items})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def start(on: Board, checklist: dict[str, Any], api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("audits.startAudit",
                                         {"boardId": on.id, "checklistId": checklist["id"], **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def score(api: Api, session: dict[str, Any], scores: list[tuple[str, int]]) -> dict[str, Any]:
    """Submit `(item id, score)` pairs; the session view after them."""
    reply = await api.mutate("audits.submitScore", {
        "sessionId": session["id"], "scores": [{"itemId": item_id, "score": value} for item_id, value in scores]})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def completed_audit(on: Board, checklist: dict[str, Any], values: list[int], **fields: Any) -> dict[str, Any]:
    """A session of `checklist` with its items scored `values` in order, completed."""
    session = await start(on, checklist, **fields)
    await score(on.api, session, [(item["id"], value) for item, value in zip(checklist["items"], values, strict=True)])
    reply = await on.api.mutate("audits.completeAudit", {"id": session["id"]})
    assert reply.status == 200, reply.body
    return dict(reply.data)
