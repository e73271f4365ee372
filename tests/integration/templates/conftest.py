"""Template fixtures: the board fixture of the board tests, and helpers that create and apply templates."""

from __future__ import annotations

from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board, board, make_project  # noqa: F401  (fixture re-exported)


async def save(api: Api, board_id: str, name: str = "Line board", **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("templates.create", {"sourceBoardId": board_id, "name": name, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def apply(api: Api, template_id: str, project_id: str, name: str = "Line 4 board",
                **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("templates.apply", {"templateId": template_id, "projectId": project_id,
                                                 "boardName": name, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)
