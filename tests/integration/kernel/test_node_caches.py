"""Each node owns its caches: two servers in one process on one database share no cached answer, so a
two-node test in one process proves what two processes would."""

from __future__ import annotations

from typing import Any

import aiohttp
import asyncpg

from server.app import create_app
from storage import workspaces as workspace_repo
from tests.harness import Api, Org, login, make_org
from web.keys import NODE


async def _second_node(aiohttp_client: Any, settings: Any, database_url: str, org: Org) -> Api:
    client = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    assert client.app[NODE] is not org.owner.client.app[NODE]
    return Api(client, org.host)


async def test_an_access_answer_cached_by_one_node_does_not_answer_for_another(
        clocked_client: Any, aiohttp_client: Any, settings: Any, database_url: str, pool: asyncpg.Pool) -> None:
    org = await make_org(clocked_client)  # node A: its clock stands still, so its cached answers stay fresh
    workspace = await org.owner.mutate("workspaces.create", {"name": "Press shop", "visibility": "closed"})
    project = await org.owner.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "Line 4"})
    board = await org.owner.mutate("boards.create", {"projectId": project.data["id"], "name": "Tier 1"})
    member_id, member_on_a = await org.add_user("member")
    added = await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace.data["id"],
                                                            "userId": member_id, "role": "member"})
    assert added.status == 200, added.body
    assert (await member_on_a.query("boards.get", {"id": board.data["id"]})).status == 200  # node A caches "yes"

    # Another node takes the member out of the workspace: node A may answer from its cache for a few
    # seconds, but node B never asked, so it checks.
    async with pool.acquire() as conn:
        assert await workspace_repo.remove_member(conn, workspace.data["id"], member_id)
    node_b = await _second_node(aiohttp_client, settings, database_url, org)
    email = await pool.fetchval("SELECT email FROM users WHERE id = $1", member_id)
    member_on_b = await login(node_b, email)
    assert (await member_on_b.query("boards.get", {"id": board.data["id"]})).status == 404
    assert (await member_on_a.query("boards.get", {"id": board.data["id"]})).status == 200  # A's own cache

