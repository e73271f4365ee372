"""Action fixtures: the board fixture of the board tests, a valid actions.create input, and reading what an
action change left behind (board events, a user's notifications, the activity trail)."""

from __future__ import annotations

from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)
from web.keys import NODE

DUE = "2030-06-30"


def action_input(on: Board, **fields: Any) -> dict[str, Any]:
    """A valid actions.create input, assigned to the board's owner; `fields` replace its parts."""
    return {"boardId": on.id, "title": "Fix the guard on press 4", "priority": "high",
            "assigneeId": on.org.owner_id, "dueDate": DUE, **fields}


async def create(on: Board, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("actions.create", action_input(on, **fields))
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def update(on: Board, action_id: str, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("actions.update", {"id": action_id, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def get(on: Board, action_id: str) -> dict[str, Any]:
    reply = await on.api.query("actions.getById", {"id": action_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def board_events(on: Board, prefix: str = "action.") -> list[dict[str, Any]]:
    feed = await on.api.query("events.list", {"stream": f"board:{on.id}", "limit": 200})
    assert feed.status == 200, feed.body
    return [event for event in feed.data["events"] if event["event"].startswith(prefix)]


async def notifications(api: Api, type: str) -> list[dict[str, Any]]:
    reply = await api.query("notifications.list", {"limit": 50})
    assert reply.status == 200, reply.body
    return [note for note in reply.data["notifications"] if note["type"] == type]


async def trail(on: Board, action_id: str) -> list[str]:
    """The activity entries of the action, oldest first."""
    reply = await on.api.query("activity.listByEntity", {"entityType": "action", "entityId": action_id})
    assert reply.status == 200, reply.body
    return [entry["action"] for entry in reversed(reply.data["entries"])]


def field_of(reply: Any) -> str:
    """The field an RPC error names."""
    return str(reply.error["data"]["details"][0]["field"])


async def settled(on: Board, action_id: str) -> dict[str, Any]:
    """The action once the board's node has done what its clock asked (its overdue scheduler is parked)."""
    await on.org.anonymous.client.server.app[NODE].workers.idle()
    return await get(on, action_id)
