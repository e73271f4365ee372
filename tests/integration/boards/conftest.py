"""A board to work on: a workspace, a project and a board created through the API by the org owner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.harness import Api, Org


@dataclass
class Board:
    org: Org
    id: str
    project_id: str
    view: dict[str, Any]

    @property
    def api(self) -> Api:
        return self.org.owner

    def column(self, column_type: str) -> dict[str, Any]:
        return next(c for c in self.view["columns"] if c["type"] == column_type)

    @property
    def group_id(self) -> str:
        return str(self.view["groups"][0]["id"])

    async def refresh(self) -> dict[str, Any]:
        self.view = (await self.api.query("boards.get", {"id": self.id})).data
        return self.view

    async def add_item(self, name: str = "Fix the leak", **fields: Any) -> dict[str, Any]:
        reply = await self.api.mutate("items.create", {"boardId": self.id, "groupId": self.group_id, "name": name,
                                                       **fields})
        assert reply.status == 200, reply.body
        return dict(reply.data)


async def make_project(org: Org) -> str:
    workspace = await org.owner.mutate("workspaces.create", {"name": "Plant 1"})
    assert workspace.status == 200, workspace.body
    project = await org.owner.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "Line A"})
    assert project.status == 200, project.body
    return str(project.data["id"])


async def make_board(org: Org, **fields: Any) -> Board:
    project_id = await make_project(org)
    reply = await org.owner.mutate("boards.create", {"projectId": project_id, "name": "Tier 1 board", **fields})
    assert reply.status == 200, reply.body
    return Board(org, reply.data["id"], project_id, reply.data)


@pytest.fixture
async def board(org: Org) -> Board:
    return await make_board(org)
