"""Screens: Socket.IO clients that record what they receive, closed after the test."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import socketio

from storage import events as event_log
from tests.harness import Api
from tests.integration.boards.conftest import Board
from web.keys import NODE
from web.socket_gateway import GATEWAY

WAIT = 10.0


class Screen:
    """A Socket.IO client that records every event it receives, in order."""

    def __init__(self) -> None:
        self.client = socketio.AsyncClient(reconnection=False)
        self.received: list[tuple[str, Any]] = []
        self._changed = asyncio.Condition()
        self.client.on("*", self._record)

    async def _record(self, event: str, data: Any) -> None:
        async with self._changed:
            self.received.append((event, data))
            self._changed.notify_all()

    async def connect(self, api: Api, *, token: str | None = None, cookie: bool = True,
                      url: str | None = None) -> None:
        """Connect as `api`'s caller to its in-process server, or to the server at `url` (a cluster node)."""
        headers = {"Host": api.host}
        if cookie and api.session:
            headers["Cookie"] = f"authjs.session-token={api.session}"
        url = url or f"http://127.0.0.1:{api.client.server.port}"
        await self.client.connect(url, headers=headers, auth={"token": token} if token else None,
                                  transports=["websocket"], wait_timeout=WAIT)

    async def call(self, event: str, data: dict[str, Any]) -> Any:
        return await self.client.call(event, data, timeout=WAIT)

    def seqs(self, name: str | None = None) -> list[int]:
        return [data["seq"] for event, data in self.received if name is None or event == name]

    async def wait_for_seq(self, seq: int) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: seq in self.seqs()), WAIT)

    async def wait_for(self, predicate: Any) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), WAIT)

    async def wait_for_event(self, name: str) -> Any:
        """The payload of the first `name` event received, once it has arrived."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: any(e == name for e, _ in self.received)), WAIT)
        return next(data for event, data in self.received if event == name)

    def events(self, name: str) -> list[Any]:
        return [data for event, data in self.received if event == name]

    async def close(self) -> None:
        await self.client.disconnect()


async def received_for(screen: Screen, board: Board, stream: str,
                       change: Callable[[], Awaitable[Any]]) -> list[tuple[str, Any]]:
    """Apply `change` and return what `screen` received for it on `stream` (its own notifications aside),
    once every event of the stream reached the screen and the gateway settled."""
    app = board.api.client.app
    before = len(screen.received)
    await change()
    await screen.wait_for_seq(await event_log.last_seq(app[NODE].pool, board.org.id, stream))
    await app[GATEWAY].settled()
    return [(name, data) for name, data in screen.received[before:] if name != "notification.created"]


@pytest.fixture
async def screens() -> Any:
    opened: list[Screen] = []

    def open_screen() -> Screen:
        opened.append(Screen())
        return opened[-1]

    yield open_screen
    for screen in opened:
        await screen.close()
