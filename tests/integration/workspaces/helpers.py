"""Creating workspaces and projects through the public interface, and boards and items directly in the
database (the board actor owns those; these tests only need rows to see deleted), for this folder."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from protocol.ids import Prefix, new_id
from tests.harness import Api, Org
from web.keys import NODE


def env_of(org: Org) -> Any:
    return org.owner.client.server.app[NODE]


async def create_workspace(api: Api, name: str = "Plant 1", **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("workspaces.create", {"name": name, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def create_project(api: Api, workspace_id: str, name: str = "Line A", **fields: Any) -> dict[str, Any]:
    reply = await api.mutate("projects.create", {"workspaceId": workspace_id, "name": name, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def insert_board(org: Org, project_id: str, name: str = "Tier 1",
                       created_at: datetime | None = None) -> str:
    board_id = new_id(Prefix.BOARD)
    await env_of(org).pool.execute(
        """INSERT INTO boards (id, organization_id, project_id, name, created_at)
           VALUES ($1, $2, $3, $4, coalesce($5, clock_timestamp()))""",
        board_id, org.id, project_id, name, created_at)
    return board_id


async def insert_item(org: Org, board_id: str, name: str = "Fix the leak") -> str:
    item_id = new_id(Prefix.ITEM)
    await env_of(org).pool.execute(
        """INSERT INTO items (id, organization_id, board_id, group_id, name, position)
           VALUES ($1, $2, $3, 'grp_test', $4, 1)""", item_id, org.id, board_id, name)
    return item_id


async def count_rows(org: Org, table: str, ids: list[str]) -> int:
    count: int = await env_of(org).pool.fetchval(f"SELECT count(*) FROM {table} WHERE id = ANY($1::text[])", ids)
    return count
