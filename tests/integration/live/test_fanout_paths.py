"""A board's changes reach every kind of screen once and in seq order, whichever way the gateway sends them
(web/socket_frames.py): websockets get one prebuilt frame written straight to their connection (also one
that offered per-message compression, as browsers do: it is declined), a long-polling screen gets its
packets through its Engine.IO queue, and a screen busy replaying what it missed goes live with neither a
gap nor a repeat."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from tests.harness import Api, Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import WAIT, Screen, follow
from tests.integration.live.test_board_live import board_seq
from web.socket_gateway import GATEWAY

CHANGES = 20


class BrowserLikeScreen:
    """An Engine.IO 4 / Socket.IO 5 client on a raw aiohttp websocket that offers permessage-deflate as browsers
    do (the python-socketio client does not); it records the seq of every `item.updated` it is sent, in order."""

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.compressed = False
        self._changed = asyncio.Condition()
        self._session = aiohttp.ClientSession()
        self._listener: asyncio.Task[None] | None = None

    async def follow(self, api: Api, board: Board) -> int:
        url = f"http://127.0.0.1:{api.client.server.port}/socket.io/?EIO=4&transport=websocket"
        ws = await self._session.ws_connect(url, headers=api.headers(), compress=15)
        self.compressed = bool(ws.compress)
        assert (await ws.receive_str()).startswith("0")
        await ws.send_str("40")  # the session cookie authenticates it
        assert (await ws.receive_str()).startswith("40")
        await ws.send_str('420["subscribe",' + json.dumps({"room": f"board:{board.id}"}) + "]")
        while not (answer := await ws.receive_str()).startswith("430"):
            pass  # its private room's events, if any
        reply = json.loads(answer[3:])[0]
        assert reply["ok"] is True, reply
        self._listener = asyncio.create_task(self._listen(ws))
        return int(reply["seq"])

    async def _listen(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for message in ws:
            text = message.data
            if text == "2":
                await ws.send_str("3")
            elif text.startswith('42["item.updated",'):
                async with self._changed:
                    self.seqs.append(json.loads(text[2:])[1]["seq"])
                    self._changed.notify_all()

    async def wait_for_seq(self, seq: int) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: seq in self.seqs), WAIT)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        await self._session.close()


async def test_websocket_browser_polling_and_resuming_screens_each_get_every_change_once_in_order(
        org: Org, screens: Any) -> None:
    board = await make_board(org, columns=[{"name": "Count", "type": "number"}])
    item = await board.add_item("Parts made")
    column = board.column("number")["id"]

    async def count_to(start: int) -> None:
        for n in range(start, start + CHANGES):
            reply = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": column, "value": n})
            assert reply.status == 200, reply.body

    plain: list[Screen] = [screens() for _ in range(3)]
    starts = [await follow(screen, org.owner, board) for screen in plain]
    polling = screens()
    await polling.client.connect(f"http://127.0.0.1:{org.owner.client.server.port}", transports=["polling"],
                                 headers={"Host": org.owner.host, "Cookie": org.owner.headers()["Cookie"]},
                                 wait_timeout=WAIT)
    polling_ack = await polling.call("subscribe", {"room": f"board:{board.id}"})
    assert polling_ack["ok"] is True, polling_ack
    plain.append(polling)
    starts.append(int(polling_ack["seq"]))
    browser = BrowserLikeScreen()
    try:
        browser_start = await browser.follow(org.owner, board)
        assert not browser.compressed, "per-message compression was accepted"
        await count_to(0)
        # A screen that resumes from before all of it while changes keep coming: its replay goes through
        # its queue while the others are written to directly.
        resumed = screens()
        writer = asyncio.create_task(count_to(1000))
        resumed_start = await follow(resumed, org.owner, board, since=starts[0])
        await writer
        final = await board_seq(board)
        for screen, start in zip([*plain, resumed], [*starts, starts[0]], strict=True):
            await screen.wait_for_seq(final)
            assert screen.seqs("item.updated") == list(range(start + 1, final + 1))
        await browser.wait_for_seq(final)
        assert browser.seqs == list(range(browser_start + 1, final + 1))
        assert starts[0] <= resumed_start <= final
        # Closed by the server: the client's own disconnect of a long-polling socket would wait for the poll it
        # has pending to time out (half a minute).
        await org.owner.client.server.app[GATEWAY].sio.disconnect(polling.client.get_sid())
    finally:
        await browser.close()
