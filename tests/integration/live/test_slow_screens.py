"""A screen that never reads, and a bus consumer that blocks, do not slow a board's writer: N item changes
take about as long with them as without, and both get every change, in order, once they go on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from actors.kernel.events import EventLog
from storage import events as event_log
from storage.events import StoredEvent
from tests.harness import Org
from tests.integration.boards.conftest import make_board
from tests.integration.live.conftest import Screen
from web.keys import NODE
from web.socket_gateway import GATEWAY

CHANGES = 30


async def test_a_screen_that_never_reads_and_a_blocked_consumer_do_not_slow_writes(org: Org) -> None:
    board = await make_board(org, columns=[{"name": "Count", "type": "number"}])
    item = await board.add_item("Parts made")
    column = board.column("number")["id"]
    pool = org.owner.client.server.app[NODE].pool

    async def write(start: int) -> float:
        began = time.perf_counter()
        for n in range(start, start + CHANGES):
            reply = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": column, "value": n})
            assert reply.status == 200, reply.body
        return time.perf_counter() - began

    # Each figure is the better of two rounds: a neighbour's burst on a shared machine rarely spans both.
    alone = min(await write(0), await write(100))
    node = org.owner.client.server.app[NODE]
    gate, consumed = asyncio.Event(), []

    async def blocked(events: Sequence[StoredEvent]) -> None:
        await gate.wait()
        consumed.extend(e.seq for e in events if e.stream == f"board:{board.id}")

    node.bus.subscribe("blocked", blocked, capacity=2, read=EventLog(pool).read)
    slow = StalledScreen()
    try:
        start = await follow_without_reading(slow, org, board.id)
        blocked_for = min(await write(1000), await write(2000))
        # Generous bound against CI noise; a writer waiting for a consumer would not finish at all.
        assert blocked_for < max(3 * alone, alone + 1.0), (alone, blocked_for)

        final = await event_log.last_seq(pool, org.id, f"board:{board.id}")
        slow.reading.set()
        gate.set()
        await slow.wait_for_seq(final)
        await org.owner.client.server.app[GATEWAY].settled()
        assert slow.seqs() == list(range(start + 1, final + 1))
        assert consumed == list(range(start + 1, final + 1))
    finally:
        node.bus.unsubscribe("blocked")
        await slow.close()


class StalledScreen(Screen):
    """A screen whose event handler does not return until told to read: python-socketio's client handles
    events in order, so nothing else it is sent gets read meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = asyncio.Event()

    async def _record(self, event: str, data: Any) -> None:
        await self.reading.wait()
        await super()._record(event, data)


async def follow_without_reading(screen: Screen, org: Org, board_id: str) -> int:
    await screen.connect(org.owner)
    ack = await screen.call("subscribe", {"room": f"board:{board_id}"})
    assert ack["ok"] is True, ack
    return int(ack["seq"])
