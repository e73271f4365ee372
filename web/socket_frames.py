"""Broadcast frames written straight to the websockets of idle Engine.IO sockets: the fast path of the
Socket.IO gateway's fan-out (web/socket_gateway.py `_broadcast`).

Engine.IO sends every packet through the socket's queue: `send_packet` puts it there and wakes the socket's
writer task, which waits on the queue under a timer (one per wake-up) and writes each packet as its own
websocket frame. For one event to 1,000 screens that is 1,000 task wake-ups, timers and encodings of the same
text. Here the event's frame is built once per broadcast and written to the connection of every socket whose
writer is idle: nothing queued and the writer waiting for the next packet, so everything sent to that socket
before has been written already and the frame follows it in order. Any other socket (its writer busy, a
slow reader whose connection has a full send buffer, or one on long-polling) gets the packet through its
queue as before, which keeps its order too: once a packet is queued, later ones are queued behind it until
the writer is idle again.

So that one frame serves every socket, Engine.IO's websockets decline per-message compression (which
browsers offer): with it each socket has its own compressor, and each event would be compressed once per
screen.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.web import WebSocketResponse
from engineio.async_drivers.aiohttp import WebSocket
from engineio.async_server import AsyncServer
from engineio.async_socket import AsyncSocket

# A connection with more than this waiting in its send buffer is a slow reader: its frames go through its
# queue, whose writer waits for the buffer to drain (aiohttp's own limit for a websocket writer).
MAX_BUFFERED = 64 * 1024


def text_frame(text: str) -> bytes:
    """A final, unmasked websocket text frame (RFC 6455 5.2): what a server sends, the same for every socket."""
    payload = text.encode()
    size = len(payload)
    if size < 126:
        header = bytes((0x81, size))
    elif size < 1 << 16:
        header = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return header + payload


class _Open:
    """One Engine.IO socket on an uncompressed websocket: the socket, its websocket and its connection."""

    __slots__ = ("socket", "ws", "transport")

    def __init__(self, socket: AsyncSocket, ws: WebSocketResponse, transport: asyncio.Transport | None) -> None:
        self.socket = socket
        self.ws = ws
        self.transport = transport


class DirectFrames:
    """The websockets of one Engine.IO server, by Engine.IO session id, while their handler runs."""

    def __init__(self, eio: AsyncServer) -> None:
        self._open: dict[str, _Open] = {}
        opened = self._open

        class Tracked(WebSocket):  # type: ignore[misc]  # engine.io ships no types
            """engine.io's aiohttp websocket, uncompressed, and noted in `opened` while its Engine.IO handler runs."""

            async def __call__(self, environ: dict[str, Any]) -> WebSocketResponse:
                # engine.io's own, but declining per-message compression: with it every socket's frame of the
                # same event differs (each has its own compressor), and compressing one event once per screen
                # costs more CPU than sending it; events are a few hundred bytes.
                request = environ["aiohttp.request"]
                ws = self._sock = WebSocketResponse(max_msg_size=self.server.max_http_buffer_size, compress=False)
                await ws.prepare(request)
                self.environ = environ
                socket: AsyncSocket = self.handler.__self__  # the bound handler's Engine.IO socket
                if socket.sid in opened:
                    # A second websocket for one session (two upgrade requests at once): which of them Engine.IO
                    # keeps is not known here, so neither is written to directly; the socket's queue serves it.
                    del opened[socket.sid]
                    await self.handler(self)
                    return ws
                entry = opened[socket.sid] = _Open(socket, ws, request.transport)
                try:
                    await self.handler(self)
                finally:
                    if opened.get(socket.sid) is entry:
                        del opened[socket.sid]
                return ws

        # The driver table is the engine.io module's, shared by every server of the process: this one gets a copy.
        eio._async = {**eio._async, "websocket": Tracked}

    def write(self, eio_sid: str, frame: bytes) -> bool:
        """Write `frame` to the socket's connection now if nothing sent to it before is still on its way;
        False when it must go through the socket's queue instead."""
        entry = self._open.get(eio_sid)
        if entry is None:
            return False
        socket = entry.socket
        if socket.closing or socket.closed or socket.upgrading or not socket.upgraded:
            return False
        queue = socket.queue
        # The writer waits in `queue.get()` only once it has written everything it took: a waiting getter and an
        # empty queue mean nothing is in flight. (asyncio.Queue keeps its waiting getters in `_getters`; there is
        # one reader, the writer.)
        getters = queue._getters
        if not getters or getters[-1].done() or not queue.empty():
            return False
        transport = entry.transport
        if (transport is None or entry.ws.closed or transport.is_closing()
                or transport.get_write_buffer_size() > MAX_BUFFERED):
            return False
        transport.write(frame)
        return True
