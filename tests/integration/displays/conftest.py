"""Display fixtures: the board of the board tests, the live tests' screens, the cluster tests' nodes, and a display
made through the API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.cluster.conftest import cluster  # noqa: F401  (fixture re-exported for the test across nodes)
from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)
from tests.integration.live.conftest import screens  # noqa: F401  (fixture re-exported for the socket tests)


@dataclass
class Display:
    id: str
    secret: str
    url: str
    api: Api  # calls with the display's secret as the bearer credential


async def create_display(on: Board, name: str = "Line A wall", api: Api | None = None) -> Display:
    """A display of the board, made by its organization's owner (or `api`); the secret read from the url's
    fragment, as the wall screen reads it."""
    reply = await (api or on.api).mutate("displays.create", {"name": name, "boardId": on.id})
    assert reply.status == 200, reply.body
    created: dict[str, Any] = reply.data
    secret = created["url"].split("#", 1)[1]
    return Display(created["id"], secret, created["url"], on.api.with_bearer(secret))
