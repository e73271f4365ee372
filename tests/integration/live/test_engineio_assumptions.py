"""Canaries for what the Socket.IO gateway takes of python-engineio, python-socketio and asyncio beyond their
documentation (web/engineio_internals.py, assumptions E1-E5 and S1-S6): after an upgrade of one of them
(pyproject.toml bounds both packages to the tested minors), a failure here names the assumption that no longer
holds. The first checks look at the libraries alone; the others run a Socket.IO server configured as the
gateway's (its packet class, message size and manager, its websockets served by web/socket_frames.py) on
127.0.0.1, with python-socketio clients and raw aiohttp websockets (to see what is on the wire)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import aiohttp
import engineio
import engineio.async_drivers.aiohttp
import engineio.packet
import pytest
import socketio
import socketio.packet
from aiohttp import web
from engineio.async_socket import AsyncSocket

from tests.integration.live.conftest import WAIT
from web import engineio_internals
from web.engineio_internals import (
    EngineSocket,
    EventPackets,
    disconnect_all,
    request_of,
    room_members,
    serve_websockets,
)
from web.socket_frames import DirectFrames, text_frame
from web.socket_limits import MALFORMED, MAX_ATTACHMENTS, MAX_MESSAGE_BYTES, BoundedPacket

# What each assumption's failure means, named as in web/engineio_internals.py.
CHANGED = {
    "E1": "engineio.AsyncServer no longer builds its websockets from its driver table `_async['websocket']`",
    "E2": "engineio.async_drivers.aiohttp.WebSocket changed: `__call__(environ)` preparing the response kept in "
          "`_sock` (what `send` uses), `handler.__self__` being the Engine.IO socket served",
    "E3": "engineio.async_socket.AsyncSocket no longer has `sid`, `closing`, `closed`, `upgrading`, `upgraded` "
          "and `queue` (an asyncio.Queue that `send` puts packets into) with their meaning",
    "E4": "Engine.IO's websocket writer no longer takes every packet from the socket's queue and writes it before "
          "waiting again: an idle writer does not mean nothing is in flight",
    "E5": "asyncio.Queue no longer keeps waiting getters in `_getters` (popped by put, removed when cancelled)",
    "S1": "socketio.AsyncServer.eio is no longer its engineio.AsyncServer (with `send_packet`)",
    "S2": "socketio.AsyncManager.get_participants no longer yields (sid, eio_sid) pairs",
    "S3": "python-socketio / python-engineio encode an event differently (`packet_class`, engineio.packet.Packet): "
          "the prebuilt frame is not what the Engine.IO writer sends",
    "S4": "python-socketio reads a packet differently (`serializer` class built with `encoded_packet=`, `decode` "
          "returning the attachment count, then `packet_type`, `data`, `attachment_count`)",
    "S5": "environ['aiohttp.request'] is no longer the aiohttp request",
    "S6": "engineio.AsyncServer.sockets / disconnect() of all changed",
}

ROOM = "canary"


@contextmanager
def holds(assumption: str, what: str = "") -> Iterator[None]:
    """Fail naming `assumption` (web/engineio_internals.py) when the block fails."""
    try:
        yield
    except Exception as error:
        detail = f"{what}: " if what else ""
        pytest.fail(f"web/engineio_internals.py {assumption} changed: {CHANGED[assumption]}\n  {detail}"
                    f"{type(error).__name__}: {error}", pytrace=False)


async def until(condition: Callable[[], bool], what: str, pause: float = 0.005) -> None:
    """Wait for `condition`, checked every `pause` seconds (0: at every turn of the event loop)."""
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {WAIT:g} s: {what}")
        await asyncio.sleep(pause)


# -- the libraries alone ----------------------------------------------------------------------------------


def waiting(queue: asyncio.Queue[Any]) -> Any:
    return queue._getters  # type: ignore[attr-defined]  # what E5 is about


async def test_e5_asyncio_queue_keeps_its_waiting_getters_in_getters() -> None:
    with holds("E5"):
        queue: asyncio.Queue[Any] = asyncio.Queue()
        assert not waiting(queue), "a new queue has waiting getters"
        getter = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        assert len(waiting(queue)) == 1 and not waiting(queue)[-1].done(), "a waiting get() is not in `_getters`"
        queue.put_nowait(1)
        assert all(future.done() for future in waiting(queue)), "put left its getter waiting"
        assert await getter == 1
        assert not waiting(queue), "a served get() stayed in `_getters`"
        cancelled = asyncio.create_task(queue.get())
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        assert not waiting(queue), "a cancelled get() stayed in `_getters`"


async def test_e1_e2_e3_engineio_classes_have_what_we_use() -> None:
    eio = engineio.AsyncServer(async_mode="aiohttp")
    with holds("E1"):
        assert isinstance(eio._async, dict), "`_async` is not a dict"
        assert eio._async["websocket"] is engineio.async_drivers.aiohttp.WebSocket
        assert eio._async is engineio.async_drivers.aiohttp._async, "the table is no longer the driver module's"
    with holds("E3"):
        socket = AsyncSocket(eio, "sid-1")
        assert socket.sid == "sid-1"
        assert (socket.closing, socket.closed, socket.upgrading, socket.upgraded) == (False, False, False, False)
        assert isinstance(socket.queue, asyncio.Queue), "`queue` is not an asyncio.Queue"
        await socket.send(engineio.packet.Packet(engineio.packet.MESSAGE, "x"))
        assert socket.queue.qsize() == 1, "send() did not put the packet in `queue`"
    with holds("E2"):
        sent: list[str] = []

        class Response:
            async def send_str(self, text: str) -> None:
                sent.append(text)

        ws = engineio.async_drivers.aiohttp.WebSocket(socket._websocket_handler, eio)
        assert ws.handler.__self__ is socket and ws.server is eio and ws._sock is None
        ws._sock = Response()
        await ws.send("4x")
        assert sent == ["4x"], "send() does not write through `_sock`"


def test_s3_s4_packets_encode_and_decode_as_the_gateway_expects() -> None:
    sio = socketio.AsyncServer(async_mode="aiohttp", serializer=BoundedPacket)
    with holds("S3"):
        assert sio.packet_class is BoundedPacket
        assert EventPackets(sio, "item.updated", {"seq": 7}).text == '42["item.updated",{"seq":7}]'
        assert EventPackets(sio, "file", b"\x00").text is None, "binary data no longer makes attachments"
    with holds("S4"):
        packet = BoundedPacket(encoded_packet='2["subscribe",{"room":"org"}]')
        assert (packet.packet_type, packet.data, packet.attachment_count) == (
            socketio.packet.EVENT, ["subscribe", {"room": "org"}], 0)
        binary = BoundedPacket(encoded_packet='51-["upload",{"_placeholder":true,"num":0}]')
        assert (binary.packet_type, binary.attachment_count) == (socketio.packet.BINARY_EVENT, 1)
        for text, why in [("2[", "not a JSON packet"), ("4{}", "a packet type clients do not send"),
                          (f"5{MAX_ATTACHMENTS + 1}-[\"x\"]", "binary attachments announced")]:
            refused = BoundedPacket(encoded_packet=text)
            assert (refused.packet_type, refused.data[0], refused.attachment_count) == (
                socketio.packet.EVENT, MALFORMED, 0), text
            assert why in refused.data[1], refused.data


# -- a real server and clients ----------------------------------------------------------------------------


class Recorded:
    """A `serving` (web/engineio_internals.py) that records what it is given and when each connection ends."""

    def __init__(self) -> None:
        self.served: list[tuple[EngineSocket, web.WebSocketResponse]] = []
        self.ended = 0

    @contextmanager
    def __call__(self, socket: EngineSocket, ws: web.WebSocketResponse, transport: Any) -> Iterator[None]:
        self.served.append((socket, ws))
        try:
            yield
        finally:
            self.ended += 1


class Canary:
    """A Socket.IO server configured as the gateway's; every socket joins ROOM at connect."""

    def __init__(self, serving: Recorded | None) -> None:
        self.sio = socketio.AsyncServer(async_mode="aiohttp", client_manager=socketio.AsyncManager(),
                                        serializer=BoundedPacket, max_http_buffer_size=MAX_MESSAGE_BYTES)
        if serving is None:
            self.frames: DirectFrames | None = DirectFrames(self.sio)
        else:
            self.frames = None
            serve_websockets(self.sio, serving)
        self.url = ""
        self.environs: dict[str, dict[str, Any]] = {}
        self.heard: list[tuple[str, Any]] = []
        self.sio.on("connect", self._connect)
        self.sio.on(MALFORMED, self._malformed)
        self.sio.on("echo", self._echo)

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any) -> None:
        self.environs[sid] = environ
        await self.sio.enter_room(sid, ROOM)

    async def _malformed(self, sid: str, why: str) -> None:
        self.heard.append((MALFORMED, why))

    async def _echo(self, sid: str, data: Any) -> None:
        self.heard.append(("echo", data))

    def member(self) -> tuple[str, str]:
        """The room's one socket: (Socket.IO sid, Engine.IO sid)."""
        with holds("S2"):
            members = list(room_members(self.sio, ROOM))
            assert len(members) == 1 and all(isinstance(sid, str) for sid in members[0]), members
            return members[0]


class Screen:
    """A python-socketio client that records the `n` of every `tick` and the data of every `blob`."""

    def __init__(self) -> None:
        self.client = socketio.AsyncClient(reconnection=False)
        self.ticks: list[int] = []
        self.blobs: list[Any] = []
        self.client.on("tick", lambda data: self.ticks.append(data["n"]))
        self.client.on("blob", lambda data: self.blobs.append(data))

    async def connect(self, canary: Canary, transports: list[str], headers: dict[str, str] | None = None) -> None:
        await self.client.connect(canary.url, transports=transports, headers=headers or {}, wait_timeout=WAIT)


class RawScreen:
    """An Engine.IO 4 / Socket.IO 5 client on a plain aiohttp websocket that offers per-message compression,
    as browsers do: what the server writes, as text."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.eio_sid = ""

    async def open(self, canary: Canary) -> None:
        url = f"{canary.url}/socket.io/?EIO=4&transport=websocket"
        self.ws = await self._session.ws_connect(url, compress=15)
        opened = await self.receive()
        assert opened.startswith("0"), opened
        self.eio_sid = json.loads(opened[1:])["sid"]
        await self.ws.send_str("40")
        connected = await self.receive()
        assert connected.startswith("40"), connected

    async def receive(self) -> str:
        assert self.ws is not None
        text: str = await self.ws.receive_str(timeout=WAIT)
        return text


@pytest.fixture
async def serve(aiohttp_server: Any) -> AsyncIterator[Callable[..., Awaitable[Canary]]]:
    """Start a Canary (its websockets served by DirectFrames, or by `serving`) on 127.0.0.1; stopped after the
    test's clients closed."""
    started: list[Canary] = []

    async def start(serving: Recorded | None = None) -> Canary:
        canary = Canary(serving)
        app = web.Application()
        canary.sio.attach(app)
        server = await aiohttp_server(app)
        canary.url = f"http://127.0.0.1:{server.port}"
        started.append(canary)
        return canary

    yield start
    for canary in started:
        await canary.sio.shutdown()


# Clients depend on `serve`, so that they close before their server stops.
@pytest.fixture
async def screens(serve: Any) -> AsyncIterator[Callable[[], Screen]]:
    opened: list[Screen] = []

    def open_screen() -> Screen:
        opened.append(Screen())
        return opened[-1]

    yield open_screen
    for screen in opened:
        await screen.client.disconnect()


@pytest.fixture
async def raw_screens(serve: Any) -> AsyncIterator[Callable[[], RawScreen]]:
    async with aiohttp.ClientSession() as session:
        yield lambda: RawScreen(session)


async def test_e1_e2_e3_websockets_are_served_uncompressed_by_our_class(
        serve: Callable[..., Awaitable[Canary]], raw_screens: Callable[[], RawScreen]) -> None:
    recorded = Recorded()
    canary = await serve(recorded)
    screen = raw_screens()
    await screen.open(canary)  # engine.io's open and connect packets came through the response we prepared
    with holds("E1"):
        assert len(recorded.served) == 1, "the websocket was not served by the class in the server's `_async`"
        assert engineio.async_drivers.aiohttp._async["websocket"] is engineio.async_drivers.aiohttp.WebSocket, \
            "the driver module's own table was changed, for every server of the process"
    socket, ws = recorded.served[0]
    assert screen.ws is not None
    with holds("E2"):
        assert socket.sid == screen.eio_sid, "`handler.__self__` is not the Engine.IO socket the websocket serves"
        assert not screen.ws.compress, "per-message compression accepted: the response is not the one we prepare"
    with holds("E4", "the writer of a websocket with nothing to send is never seen waiting on its queue"):
        await until(socket.writer_idle, "writer idle")
    await screen.ws.close()
    with holds("E2", "the handler did not return once the connection closed"):
        await until(lambda: recorded.ended == 1, "serving ended")
    with holds("E3", "a closed socket is seen open"):
        await until(lambda: not socket.writer_idle(), "writer no longer idle")
    assert ws.closed


async def test_e1_e3_sockets_upgraded_from_polling_are_served_too_and_polling_ones_are_not(
        serve: Callable[..., Awaitable[Canary]], screens: Callable[[], Screen]) -> None:
    recorded = Recorded()
    canary = await serve(recorded)
    polling = screens()
    await polling.connect(canary, ["polling"])
    upgraded = screens()
    await upgraded.connect(canary, ["polling", "websocket"])  # as browsers connect
    with holds("E1", "a socket upgraded from long-polling was not served by our class"):
        await until(lambda: len(recorded.served) == 1, "the upgraded socket served")
    with holds("E3", "the upgraded socket's writer never seen idle (`upgraded` not set, or `upgrading` left set)"):
        await until(recorded.served[0][0].writer_idle, "writer idle")
    # The long-polling client closed by the server: its own disconnect would wait for its pending poll to time out.
    await canary.sio.disconnect(polling.client.get_sid())


async def test_e4_e5_s1_s2_a_direct_frame_never_overtakes_a_queued_packet(
        serve: Callable[..., Awaitable[Canary]], screens: Callable[[], Screen]) -> None:
    canary = await serve()
    frames = canary.frames
    assert frames is not None
    screen = screens()
    await screen.connect(canary, ["websocket"])
    sid, eio_sid = canary.member()
    with holds("S2"):
        assert sid == screen.client.get_sid(), "the first of a participant pair is not the Socket.IO sid"
    sent = 0
    direct = 0

    def event() -> EventPackets:
        with holds("S3"):
            return EventPackets(canary.sio, "tick", {"n": sent})

    async def queue(packets: EventPackets) -> None:
        nonlocal sent
        with holds("S1"):
            await packets.queue(canary.sio, eio_sid)
        sent += 1

    def write_direct() -> bool:
        nonlocal sent, direct
        packets = event()
        assert packets.text is not None
        if not frames.write(eio_sid, text_frame(packets.text)):
            return False
        sent += 1
        direct += 1
        return True

    for burst in range(1, 31):
        # Written at the first turn of the loop at which the writer is seen idle: had it not written all it took
        # by then, this frame would overtake it.
        with holds("E4", "an idle websocket's writer is never seen waiting on an empty queue"):
            await until(write_direct, "a frame written directly", pause=0)
        for _ in range(burst % 4):
            await queue(event())
            with holds("E4", "a socket with a packet still queued was seen idle: a frame overtook it"):
                assert not write_direct()
        if burst % 2:
            await asyncio.sleep(0)  # the writer may be between two packets
            if not write_direct():
                await queue(event())
    with holds("E4", "events arrived out of order, or not at all"):
        await until(lambda: len(screen.ticks) >= sent, f"{sent} ticks received")
        assert screen.ticks == list(range(sent))
    assert direct >= 30


async def test_s3_the_prebuilt_frame_is_what_engineio_would_have_sent(
        serve: Callable[..., Awaitable[Canary]], raw_screens: Callable[[], RawScreen],
        screens: Callable[[], Screen]) -> None:
    canary = await serve()
    frames = canary.frames
    assert frames is not None
    screen = raw_screens()
    await screen.open(canary)
    sid, eio_sid = canary.member()
    for payload in [{"n": 1}, {"text": "Ünïcødé ✓ \"quoted\"", "list": [1, 2.5, None, True], "nested": {"a": {}}},
                    {"long": "x" * 200}, {"longer": "y" * 70_000}]:
        await canary.sio.emit("tick", payload, to=sid)
        by_engineio = await screen.receive()
        with holds("E4", "the writer of an idle socket is never seen idle"):
            await until(lambda: frames.write(eio_sid, b""), "writer idle")  # an empty write: nothing on the wire
        await frames.send([eio_sid], "tick", payload)
        with holds("S3"):
            assert await screen.receive() == by_engineio
    binary = screens()
    await binary.connect(canary, ["websocket"])
    await canary.sio.leave_room(sid, ROOM)
    _, binary_eio_sid = canary.member()
    with holds("S3", "an event with binary data did not arrive whole through the queue"):
        await frames.send([binary_eio_sid], "blob", {"bytes": b"\x00\x01"})
        await until(lambda: bool(binary.blobs), "the binary event")
        assert binary.blobs == [{"bytes": b"\x00\x01"}]


async def test_s4_a_malformed_packet_becomes_the_malformed_event_and_the_next_is_read(
        serve: Callable[..., Awaitable[Canary]], raw_screens: Callable[[], RawScreen]) -> None:
    canary = await serve()
    screen = raw_screens()
    await screen.open(canary)
    assert screen.ws is not None
    for text in ["42[", "44{}", f'45{MAX_ATTACHMENTS + 1}-["echo"]', '42["echo",{"ok":true}]']:
        await screen.ws.send_str(text)
    with holds("S4"):
        await until(lambda: len(canary.heard) == 4, "four packets heard")
        assert [name for name, _ in canary.heard] == [MALFORMED] * 3 + ["echo"]
        assert canary.heard[3] == ("echo", {"ok": True})


async def test_s5_s6_requests_and_disconnecting_every_socket(
        serve: Callable[..., Awaitable[Canary]], screens: Callable[[], Screen]) -> None:
    canary = await serve()
    with holds("S6", "disconnecting all of no socket failed"):
        await disconnect_all(canary.sio)
    opened = [screens() for _ in range(2)]
    for screen in opened:
        await screen.connect(canary, ["websocket"], headers={"X-Canary": "yes"})
    with holds("S5"):
        requests = [request_of(environ) for environ in canary.environs.values()]
        assert all(isinstance(request, web.Request) for request in requests), requests
        assert [request.headers.get("X-Canary") for request in requests] == ["yes", "yes"]
    with holds("S6"):
        await disconnect_all(canary.sio)
        await until(lambda: not any(screen.client.connected for screen in opened), "every client disconnected")


async def test_s6_disconnecting_every_socket_does_not_wait_for_a_client_gone_silent(
        serve: Callable[..., Awaitable[Canary]], monkeypatch: pytest.MonkeyPatch) -> None:
    # A session opened by polling whose client never polls again: its close packet waits in its queue for a
    # reader that never comes, and engine.io's close waits for that queue without a bound.
    canary = await serve()
    async with aiohttp.ClientSession() as http, http.get(f"{canary.url}/socket.io/?EIO=4&transport=polling") as reply:
        assert reply.status == 200
    assert len(canary.sio.eio.sockets) == 1
    monkeypatch.setattr(engineio_internals, "DISCONNECT_SECONDS", 0.2)
    with holds("S6", "closing every socket waited for a client that never reads"):
        await asyncio.wait_for(disconnect_all(canary.sio), 5)
    assert canary.sio.eio.sockets == {}
