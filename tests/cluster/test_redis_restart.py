"""Screens across a Redis restart (issue 23): two nodes as processes on a Redis of the test's own, a screen on
each following one board. Writes committed before Redis is killed, while it is away (through the board's
owner, whose activation needs no Redis to commit) and after it is back reach both screens, each once and in
seq order, without either screen subscribing again: what was committed meanwhile within a bound of Redis's
return and before any later write. Each node says in its log that its fan-out, invalidation and inbox subscriptions
came back, and counts each return in its metrics."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncpg

from actors.kernel.redis_invalidation import CHANNEL as INVALIDATION_CHANNEL
from tests.cluster.harness import Cluster, ClusterNode, make_org
from tests.cluster.test_live_across_nodes import COLUMNS, board_events, board_seq
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import WAIT, follow
from tests.integration.server.test_metrics import samples, value
from tests.redis_process import RedisProcess
from web.socket_fanout import CHANNEL as FANOUT_CHANNEL

WRITES = 4  # before, while Redis is away, and after


async def set_counts(board: Board, api: Any, item_id: str, values: range) -> None:
    column = board.column("number")["id"]
    for count in values:
        reply = await api.mutate("items.setValue", {"itemId": item_id, "columnId": column, "value": count})
        assert reply.status == 200, reply.body


async def returned_in_log(node: ClusterNode, channels: tuple[str, ...], *, deadline: float) -> None:
    """Wait until the node logged the return of each of `channels` (each listener backs off on its own)."""
    while True:
        returned = [line for line in node.log().splitlines() if "redis_subscription_back" in line]
        missing = [channel for channel in channels if not any(channel in line for line in returned)]
        if not missing:
            return
        assert time.monotonic() < deadline, (missing, node.log()[-3000:])
        await asyncio.sleep(0.05)


async def test_screens_on_every_node_hear_every_event_through_a_redis_restart(
        database_url: str, pool: asyncpg.Pool, screens: Any) -> None:
    redis_server = RedisProcess()
    await redis_server.start()
    cluster = Cluster(database_url, redis_server.url)
    try:
        nodes = await cluster.start(2)
        org = await make_org(pool, nodes[0])
        board = await make_board(org, columns=COLUMNS)
        item_id = (await board.add_item("Press 7"))["id"]
        watching = [screens() for _ in nodes]
        starts = [await follow(screen, org.owner, board, url=node.url)
                  for screen, node in zip(watching, nodes, strict=True)]
        owner = await cluster.owner(f"board:{board.id}")
        assert owner is not None
        through_owner = owner.reach(org.owner)

        await set_counts(board, through_owner, item_id, range(0, WRITES))
        before = await board_seq(pool, board)
        for screen in watching:
            await screen.wait_for_seq(before)

        await redis_server.kill()
        await set_counts(board, through_owner, item_id, range(WRITES, 2 * WRITES))  # committed while away
        meanwhile = await board_seq(pool, board)
        assert meanwhile == before + WRITES
        await redis_server.start()
        back = time.monotonic()
        for screen in watching:  # caught up from the event log: no later write fills the gap for them
            await screen.wait_for_seq(meanwhile)
        assert time.monotonic() - back < WAIT

        await set_counts(board, through_owner, item_id, range(2 * WRITES, 3 * WRITES))  # and live again
        final = await board_seq(pool, board)
        assert final == meanwhile + WRITES
        for screen in watching:
            await screen.wait_for_seq(final)

        first = board_events(watching[0])
        assert [seq for seq, _, _ in first] == list(range(starts[0] + 1, final + 1))  # each once, in order
        assert board_events(watching[1]) == first
        assert all(screen.client.connected for screen in watching)  # the same sockets, subscribed once
        for node in nodes:  # every listener of the node came back and said so: fan-out, invalidations, inbox
            channels = (FANOUT_CHANNEL, INVALIDATION_CHANNEL, f"obeya:node:{node.node_id}")
            await returned_in_log(node, channels, deadline=back + WAIT)
            async with node.session.get("/metrics", headers={"Host": "localhost"}) as response:
                assert response.status == 200
                parsed = samples(await response.text())
            assert [value(parsed, "obeya_redis_resubscribed_total", channel=channel) for channel in channels] \
                == [1, 1, 1]
    finally:
        await cluster.stop()
        await redis_server.stop()
