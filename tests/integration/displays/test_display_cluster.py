"""A display revoked through one node, on another (separate processes on one database and one Redis): that node
had verified and cached it, yet its next request is refused and its socket there is told and closed, and
connecting again there is refused."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest
import socketio

from tests.cluster.harness import Cluster, make_org
from tests.harness import Reply
from tests.integration.boards.conftest import make_board
from tests.integration.displays.conftest import create_display
from tests.integration.live.conftest import WAIT

DEADLINE_SECONDS = 1.0  # as for an API key revoked on another node (tests/cluster/test_invalidation.py)


async def refused_within(ask: Any, deadline: float) -> Reply:
    """Ask until the answer is 401; fails past the deadline."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        reply: Reply = await ask()
        if reply.status == 401:
            return reply
        assert loop.time() - started < deadline, (reply.status, reply.body)
        await asyncio.sleep(0.02)


async def test_a_display_revoked_through_one_node_is_refused_and_closed_on_the_other(
        cluster: Cluster, pool: asyncpg.Pool, screens: Any) -> None:
    a, b = await cluster.start(2)
    org = await make_org(pool, a)
    board = await make_board(org)
    display = await create_display(board)
    on_b = b.reach(display.api)
    assert (await on_b.query("boards.get", {"id": board.id})).status == 200  # verified and cached on B
    wall = screens()
    closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    wall.client.on("disconnect", lambda *reason: closed.done() or closed.set_result(None))
    await wall.connect(on_b, token=display.secret, cookie=False, url=b.url)
    assert (await wall.call("subscribe", {"room": f"board:{board.id}"}))["ok"] is True

    revoked = await org.owner.mutate("displays.revoke", {"id": display.id})
    assert revoked.status == 200, revoked.body

    refused = await refused_within(lambda: on_b.query("boards.get", {"id": board.id}), DEADLINE_SECONDS)
    assert refused.error["data"]["code"] == "UNAUTHORIZED", refused.body
    assert await wall.wait_for_event("display.revoked") == {"id": display.id}
    await asyncio.wait_for(closed, WAIT)
    again = screens()
    reasons: list[Any] = []
    again.client.on("connect_error", reasons.append)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await again.connect(on_b, token=display.secret, cookie=False, url=b.url)
    assert reasons and reasons[0]["data"]["code"] == "UNAUTHORIZED", reasons
