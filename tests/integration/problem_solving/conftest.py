"""Problem-solving fixtures: the board fixture of the board tests, and helpers that create a sheet or an action
through the API and read a sheet's activity trail."""

from __future__ import annotations

from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)

FIVE_WHYS = {"problem": "Line 3 stopped", "whys": [{"question": "Why did it stop?", "answer": "The motor tripped"},
                                                   {"question": "Why did it trip?", "answer": "It overheated"}],
             "rootCause": "The cooling fan filter was never cleaned"}


async def create_sheet(on: Board, sheet_type: str = "five_whys", title: str = "Line 3 stoppage",
                       api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("problemSolving.create",
                                         {"boardId": on.id, "title": title, "type": sheet_type, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def create_action(on: Board, title: str = "Clean the fan filter", **fields: Any) -> dict[str, Any]:
    reply = await on.api.mutate("actions.create", {"boardId": on.id, "title": title, "priority": "high",
                                                   "assigneeId": on.org.owner_id, "dueDate": "2030-01-31",
                                                   **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def trail(api: Api, entity_type: str, entity_id: str) -> list[str]:
    """The entity's activity actions, oldest first."""
    reply = await api.query("activity.listByEntity", {"entityType": entity_type, "entityId": entity_id,
                                                      "limit": 200})
    assert reply.status == 200, reply.body
    return [entry["action"] for entry in reversed(reply.data["entries"])]
