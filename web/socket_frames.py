"""One event to many sockets: the Socket.IO gateway's fan-out (web/socket_gateway.py `_broadcast`), whose fast
path writes a prebuilt frame straight to the websockets of idle Engine.IO sockets.

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

What this takes of engine.io that it does not document (its websocket class, its socket's queue and writer,
asyncio's waiting getters) is in web/engineio_internals.py, with each assumption and what breaks without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import socketio
from aiohttp.web import WebSocketResponse

from web.engineio_internals import EngineSocket, EventPackets, serve_websockets

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

    def __init__(self, socket: EngineSocket, ws: WebSocketResponse, transport: asyncio.Transport | None) -> None:
        self.socket = socket
        self.ws = ws
        self.transport = transport


class DirectFrames:
    """The websockets of one Socket.IO server, by Engine.IO session id, while their handler runs; and the
    fan-out of an event to its recipients."""

    def __init__(self, sio: socketio.AsyncServer) -> None:
        self._sio = sio
        self._open: dict[str, _Open] = {}
        serve_websockets(sio, self._serving)

    @contextmanager
    def _serving(self, socket: EngineSocket, ws: WebSocketResponse,
                 transport: asyncio.Transport | None) -> Iterator[None]:
        """Noted in `_open` while its Engine.IO handler serves the socket."""
        if socket.sid in self._open:
            # A second websocket for one session (two upgrade requests at once): which of them Engine.IO keeps
            # is not known here, so neither is written to directly; the socket's queue serves it.
            del self._open[socket.sid]
            yield
            return
        entry = self._open[socket.sid] = _Open(socket, ws, transport)
        try:
            yield
        finally:
            if self._open.get(socket.sid) is entry:
                del self._open[socket.sid]

    async def send(self, eio_sids: Iterable[str], name: str, payload: Any) -> None:
        """Send the event to each socket: encoded once, written as one prebuilt frame to each whose writer is
        idle, else queued on its Engine.IO socket. (`sio.emit` would make one task per recipient: measured with
        bench/board_load.py, a fifth more server CPU per delivery to 1,000 screens.)"""
        event = EventPackets(self._sio, name, payload)
        frame = text_frame(event.text) if event.text is not None else None
        for eio_sid in eio_sids:
            if frame is not None and self.write(eio_sid, frame):
                continue
            await event.queue(self._sio, eio_sid)

    def write(self, eio_sid: str, frame: bytes) -> bool:
        """Write `frame` to the socket's connection now if nothing sent to it before is still on its way;
        False when it must go through the socket's queue instead."""
        entry = self._open.get(eio_sid)
        if entry is None or not entry.socket.writer_idle():
            return False
        transport = entry.transport
        if (transport is None or entry.ws.closed or transport.is_closing()
                or transport.get_write_buffer_size() > MAX_BUFFERED):
            return False
        transport.write(frame)
        return True
