"""The one module that uses what python-engineio, python-socketio and asyncio do not document: every private
attribute, undocumented attribute or undocumented behaviour the Socket.IO gateway (web/socket_gateway.py,
web/socket_frames.py, web/socket_limits.py) relies on is reached through the functions here, and nowhere else
(tests/unit/web/test_engineio_internals.py checks that no other module of the server touches them).

Tested with python-engineio 4.15, python-socketio 5.18 (pyproject.toml bounds both to those minors) and the
asyncio of CPython 3.11 (under uvloop too: the queue is asyncio's whatever the loop). The canaries,
tests/integration/live/test_engineio_assumptions.py (a real server and clients over 127.0.0.1) and
tests/unit/web/test_engineio_internals.py, fail naming the assumption below that no longer holds.

Why: the fan-out writes one prebuilt websocket frame straight to the connection of every socket whose Engine.IO
writer is idle (web/socket_frames.py) instead of queueing the event on each socket, which costs a task wake-up,
a timer and an encoding per screen (docs/engineio-internals.md has the figures).

Assumptions:

- E1 driver table. `engineio.AsyncServer._async` is the aiohttp driver's table (a dict, the module's own,
  shared by every server of the process), and the socket builds each websocket, on an upgrade and on a
  websocket-only connect, as `server._async["websocket"](handler, server)`, then awaits it with the request's
  environ. Used to serve websockets with our class. Without it, no socket is ever written to directly (every
  event goes through the queues: correct, slower) and browsers' per-message compression is accepted again.
- E2 websocket class. `engineio.async_drivers.aiohttp.WebSocket(handler, server)`: `__call__(environ)` prepares
  the aiohttp `WebSocketResponse` that its `send`, `wait` and `close` use, kept in `_sock`, sets `environ`, and
  awaits `handler(self)` for as long as the connection is served; `handler` is the bound
  `AsyncSocket._websocket_handler`, so `handler.__self__` is the Engine.IO socket; `server.max_http_buffer_size`
  is the largest message read. Used to decline compression (one frame then serves every socket) and to know
  which socket a connection serves. Without it, engine.io sends through a response we did not prepare, or the
  frames of one socket reach another's connection.
- E3 socket state. `engineio.async_socket.AsyncSocket` has `sid`, `closing`, `closed`, `upgrading`, `upgraded`
  (set once its websocket serves it) and `queue`, the asyncio.Queue that `send` puts every packet for the
  client into. Used to tell an open websocket socket from one closing, upgrading or long-polling.
- E4 one writer. On a websocket, one writer task takes the socket's packets from `queue` (`queue.get()`, then
  what else is queued) and awaits the websocket's send of each before it gets again; nothing else writes to
  the websocket once `upgraded` is set. So a writer waiting in `queue.get()` on an empty queue has handed
  everything sent before to the connection, and a frame written now follows it in order. Without it, a direct
  frame may overtake an event still queued: screens would see seqs out of order.
- E5 waiting getters. `asyncio.Queue` keeps the futures of waiting `get()` calls in `_getters` (a deque);
  `put` pops and resolves the first, a cancelled `get` removes its own. The only way to see that the writer is
  waiting. Without it, the writer is never seen idle (E4's order then rests on this check alone).
- S1 `socketio.AsyncServer.eio` is its engineio.AsyncServer (whose documented `send_packet` queues a packet).
- S2 `AsyncServer.manager.get_participants(namespace, room)` yields `(sid, eio_sid)` pairs: a room's sockets
  with the Engine.IO session id each is written to by.
- S3 encoding. `AsyncServer.packet_class` is the serializer class; `packet_class(EVENT, namespace="/",
  data=[name, payload]).encode()` is the Socket.IO packet's text (a list, text then attachments, with binary
  data), and `engineio.packet.Packet(MESSAGE, text).encode()` is the text of the websocket message the
  Engine.IO writer sends for it. Without it, direct frames would differ from what the queue sends.
- S4 decoding. A `serializer=` class (documented for the client only) is built with `encoded_packet=` for each
  message, its `decode` returns the number of binary attachments that follow (ValueError or RecursionError
  when the text is not a packet), and the server then reads `packet_type`, `data` and `attachment_count`.
  Used to answer a malformed packet instead of raising inside python-socketio.
- S5 `environ["aiohttp.request"]` is the aiohttp request (the aiohttp driver's translation of it).
- S6 `engineio.AsyncServer.sockets` holds its open sockets by sid, and `disconnect()` of all fails (asyncio.wait
  of nothing) when there is none; a socket's `close()` waits, without a bound, for its send queue to drain, which
  never happens when its writer already stopped (the client closed the websocket at that instant).

What would let us drop them (docs/engineio-internals.md): engine.io sending one pre-encoded message to many
sessions itself (written at once to every idle websocket, queued behind what is pending on the others), or at
least a public "writer idle" flag and a way to write a prebuilt frame; a `websocket_compression` option; the
request as a documented environ key; a documented participants API with Engine.IO session ids; a documented
decode hook for malformed packets; `disconnect()` of all that accepts none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

import engineio.packet
import socketio
import socketio.packet
from aiohttp import web
from engineio.async_drivers.aiohttp import WebSocket

# How long closing every socket at shutdown may take; the close packets are tiny, so a socket still closing after
# this is one whose close would never end (S6).
DISCONNECT_SECONDS = 2.0
# The packet types a client may send (S4); CONNECT_ERROR and unknown ones are malformed.
_CLIENT_TYPES = frozenset({socketio.packet.CONNECT, socketio.packet.DISCONNECT, socketio.packet.EVENT,
                           socketio.packet.ACK, socketio.packet.BINARY_EVENT, socketio.packet.BINARY_ACK})


class EngineSocket:
    """One Engine.IO socket served by a websocket: its session id, and whether its writer is idle."""

    __slots__ = ("sid", "_socket")

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self.sid: str = socket.sid

    def writer_idle(self) -> bool:
        """Open on its websocket, nothing queued and the writer waiting for its next packet: everything sent to
        the socket before has been handed to its connection (E3, E4, E5)."""
        socket = self._socket
        if socket.closing or socket.closed or socket.upgrading or not socket.upgraded:
            return False
        queue = socket.queue
        getters = queue._getters  # one reader, the writer
        return bool(getters) and not getters[-1].done() and queue.empty()


Serving = Callable[[EngineSocket, web.WebSocketResponse, asyncio.Transport | None], AbstractContextManager[None]]


def serve_websockets(sio: socketio.AsyncServer, serving: Serving) -> None:
    """Have `sio` answer websockets without per-message compression, each connection served inside
    `serving(socket, ws, transport)` (E1, E2)."""
    eio = sio.eio

    class Uncompressed(WebSocket):  # type: ignore[misc]  # engine.io ships no types
        """engine.io's aiohttp websocket, declining per-message compression (which browsers offer): with it every
        socket's frame of one event differs (each has its own compressor), and compressing an event once per
        screen costs more CPU than sending it; events are a few hundred bytes."""

        async def __call__(self, environ: dict[str, Any]) -> web.WebSocketResponse:
            request = environ["aiohttp.request"]
            ws = self._sock = web.WebSocketResponse(max_msg_size=self.server.max_http_buffer_size, compress=False)
            await ws.prepare(request)
            self.environ = environ
            with serving(EngineSocket(self.handler.__self__), ws, request.transport):
                await self.handler(self)
            return ws

    # The table is the engine.io module's, shared by every server of the process: this one gets a copy.
    eio._async = {**eio._async, "websocket": Uncompressed}


class EventPackets:
    """One Socket.IO event on the default namespace, encoded once for all its recipients (S3): `text` is the
    websocket message that carries it (None when it has binary attachments, sent as several messages)."""

    __slots__ = ("text", "_packets")

    def __init__(self, sio: socketio.AsyncServer, name: str, payload: Any) -> None:
        encoded = sio.packet_class(socketio.packet.EVENT, namespace="/", data=[name, payload]).encode()
        parts = encoded if isinstance(encoded, list) else [encoded]
        self._packets = [engineio.packet.Packet(engineio.packet.MESSAGE, part) for part in parts]
        self.text: str | None = self._packets[0].encode() if isinstance(encoded, str) else None

    async def queue(self, sio: socketio.AsyncServer, eio_sid: str) -> None:
        """Put the event on the socket's Engine.IO queue, behind what is pending there (S1)."""
        for packet in self._packets:
            await sio.eio.send_packet(eio_sid, packet)


def room_members(sio: socketio.AsyncServer, room: str) -> Iterable[tuple[str, str]]:
    """The sockets of a room of the default namespace on this node: (Socket.IO sid, Engine.IO sid) (S2)."""
    members: Iterable[tuple[str, str]] = sio.manager.get_participants("/", room)
    return members


def request_of(environ: dict[str, Any]) -> web.Request:
    """The aiohttp request behind a connect handler's `environ` (S5)."""
    request: web.Request = environ["aiohttp.request"]
    return request


async def disconnect_all(sio: socketio.AsyncServer) -> None:
    """Close every Engine.IO socket of `sio` (with its close packet), if there is any (S6), waiting at most
    DISCONNECT_SECONDS: a socket whose close would wait for ever is left to the caller, which closes the
    transports."""
    if not sio.eio.sockets:
        return
    closing = asyncio.ensure_future(sio.eio.disconnect())
    done, _ = await asyncio.wait([closing], timeout=DISCONNECT_SECONDS)
    if not done:
        # engineio's disconnect waits on one close task per socket; cancel those still waiting with it.
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task() and _closes_a_socket(task):
                task.cancel()
        closing.cancel()
        await asyncio.gather(closing, return_exceptions=True)
        sio.eio.sockets = {}


def _closes_a_socket(task: asyncio.Task[Any]) -> bool:
    coroutine = task.get_coro()
    return getattr(coroutine, "__qualname__", "") == "AsyncSocket.close"


def screened_packet_class(malformed: str, max_attachments: int) -> type[Any]:
    """python-socketio's packet class (the server's `serializer`), turning one that is not JSON, nests past what
    the JSON decoder reads, has a type a client may not send, or announces more than `max_attachments` binary
    attachments into the event `malformed`, whose argument says what was wrong; the socket's next message is
    read as a packet again, and nothing is logged as a server error (S4)."""

    class ScreenedPacket(socketio.packet.Packet):  # type: ignore[misc]  # python-socketio has no types
        def decode(self, encoded_packet: str | bytes) -> int:
            try:
                count: int = super().decode(encoded_packet) or 0
            except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
                return self._malformed("not a JSON packet, or one nesting too deeply")
            if self.packet_type not in _CLIENT_TYPES:
                return self._malformed("a packet type clients do not send")
            if count > max_attachments:
                return self._malformed(f"{count} binary attachments announced: at most {max_attachments}")
            return count

        def _malformed(self, why: str) -> int:
            self.packet_type, self.data, self.attachment_count = socketio.packet.EVENT, [malformed, why], 0
            return 0

    return ScreenedPacket
