"""Automation fixtures: the board fixture of the board tests, a rule-definition helper, and waiting for the
engine's runs (it works in the background)."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)
from tests.integration.live.conftest import screens  # noqa: F401  (fixture re-exported for these tests)
from tests.integration.webhooks.conftest import receiver  # noqa: F401  (fixture re-exported for these tests)
from web.keys import NODE


def rule(board_id: str, name: str = "Notify on new items", **fields: Any) -> dict[str, Any]:
    """A valid automations.create input; `fields` replace its parts."""
    return {"boardId": board_id, "name": name, "trigger": {"type": "item.created", "config": {}},
            "conditions": [], "actions": [{"type": "archive_item", "config": {}}], **fields}


WAIT_SECONDS = 10.0


async def engine_idle(on: Board) -> None:
    """Once the board's node has done everything it was woken for (the engine is parked again): what a test
    awaits before asserting that something did not happen."""
    await on.api.client.server.app[NODE].workers.idle()


async def runs(on: Board, count: int, **filters: Any) -> list[dict[str, Any]]:
    """The board's history once it holds `count` runs (the engine works in the background)."""
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while True:
        reply = await on.api.query("automations.getExecutionHistory", {"boardId": on.id, **filters})
        assert reply.status == 200, reply.body
        if len(reply.data["items"]) >= count or asyncio.get_running_loop().time() > deadline:
            return list(reply.data["items"])
        await asyncio.sleep(0.02)


async def create(on: Board, **fields: Any) -> dict[str, Any]:
    reply = await on.api.mutate("automations.create", rule(on.id, **fields))
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def history_now(on: Board) -> list[dict[str, Any]]:
    """The board's runs as they stand, without waiting."""
    reply = await on.api.query("automations.getExecutionHistory", {"boardId": on.id, "limit": 100})
    assert reply.status == 200, reply.body
    return list(reply.data["items"])
