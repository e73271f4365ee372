"""Plan board limits (free 3, starter 10, business 50, enterprise unlimited): the create past the limit is
403 FORBIDDEN naming it, and nothing is created."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import Org, make_org
from tests.integration.boards.conftest import make_project
from web.keys import NODE


async def _fill(org: Org, project_id: str, count: int) -> None:
    """`count` boards written directly: reaching a boundary of 50 through the API proves nothing more."""
    node = org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    await node.pool.execute(
        """INSERT INTO boards (id, organization_id, project_id, name, default_view, next_number, created_at,
                               updated_at)
           SELECT 'brd_fill' || $1 || n, $1, $2, 'Filler ' || n, 'board', 1, now(), now()
           FROM generate_series(1, $3) AS n""", org.id, project_id, count)


async def _create(org: Org, project_id: str) -> Any:
    return await org.owner.mutate("boards.create", {"projectId": project_id, "name": "One more"})


@pytest.mark.parametrize(("plan", "limit"), [("free", 3), ("starter", 10), ("business", 50)])
async def test_a_board_past_the_plan_limit_is_403_naming_it(client: Any, plan: str, limit: int) -> None:
    org = await make_org(client, plan=plan)
    project_id = await make_project(org)
    await _fill(org, project_id, limit - 1)

    last = await _create(org, project_id)
    assert last.status == 200, last.body
    over = await _create(org, project_id)

    assert over.status == 403, over.body
    assert over.body["error"]["data"]["code"] == "FORBIDDEN"
    assert f"{plan} plan allows {limit} boards" in over.body["error"]["message"]
    node = org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    assert await node.pool.fetchval("SELECT count(*) FROM boards WHERE organization_id = $1", org.id) == limit


async def test_the_enterprise_plan_has_no_board_limit(client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    project_id = await make_project(org)
    await _fill(org, project_id, 60)

    reply = await _create(org, project_id)

    assert reply.status == 200, reply.body
