"""The fan-out phase's subscriber (bench/board_load.py): a Socket.IO screen on a bare asyncio protocol that
reads websocket frames itself, so that thousands fit on the load generator's one core. With an aiohttp
websocket and a task per subscriber (bench/_support.py `LiveSubscriber`), taking one event off 5,000 sockets
cost the client about 25 µs each: the 5,000th arrival stamp carried 0.1 s of the client's own work. Here the
arrival is stamped in `data_received`, before the frames are parsed, and no task wakes per frame.

Speaks what `LiveSubscriber` speaks (Engine.IO 4 / Socket.IO 5 over a websocket, `40{"token": key}`, one
`subscribe`, pings answered) and keeps the same (arrival, marker) pairs. Client frames are masked with a zero
key (RFC 6455 5.3 allows any key; zero leaves the payload as it is)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from bench._support import SubscribeRefused


def _client_frame(text: str, opcode: int = 0x1) -> bytes:
    payload = text.encode()
    size = len(payload)
    if size < 126:
        header = bytes((0x80 | opcode, 0x80 | size))
    elif size < 1 << 16:
        header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    return header + b"\0\0\0\0" + payload


class RawSubscriber(asyncio.Protocol):
    def __init__(self, base_url: str, host: str, token: str, room: str, event: str,
                 marker: Callable[[str], Any]) -> None:
        self._address = urlsplit(base_url)
        self._host, self._token, self._room = host, token, room
        self._prefix = f'42["{event}",'
        self._marker = marker
        self.arrivals: list[tuple[float, Any]] = []
        self.received = 0
        self._transport: asyncio.Transport | None = None
        self._buffer = b""
        self._upgraded = False
        self._live = False
        self._setup: asyncio.Queue[str] = asyncio.Queue()  # text frames until the subscription is answered

    async def connect(self) -> int:
        """Open, authenticate and subscribe; returns the room's seq the server answered."""
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: self, self._address.hostname or "127.0.0.1", self._address.port or 80)
        assert self._transport is not None
        key = base64.b64encode(os.urandom(16)).decode()
        self._transport.write((f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {self._host}\r\n"
                               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        if not (await self._setup.get()).startswith("0"):
            raise SubscribeRefused("no Engine.IO open packet")
        self._send("40" + json.dumps({"token": self._token}))
        connected = await self._setup.get()
        if not connected.startswith("40"):
            raise SubscribeRefused(f"connect refused: {connected[:200]}")
        self._send('420["subscribe",' + json.dumps({"room": self._room}) + "]")
        while not (answer := await self._setup.get()).startswith("430"):
            pass
        reply = json.loads(answer[3:])[0]
        if not reply.get("ok"):
            raise SubscribeRefused(f"subscribe refused: {reply}")
        self._live = True
        return int(reply["seq"])

    def _send(self, text: str, opcode: int = 0x1) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(_client_frame(text, opcode))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        arrived = time.monotonic()
        buffer = self._buffer + data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self._buffer = buffer
                return
            if not buffer.startswith(b"HTTP/1.1 101"):
                self._setup.put_nowait(buffer[:200].decode(errors="replace"))
                return
            self._upgraded = True
            buffer = buffer[end + 4:]
        start = 0
        while len(buffer) - start >= 2:
            opcode, size = buffer[start] & 0x0F, buffer[start + 1] & 0x7F
            head = 2
            if size == 126:
                head = 4
                size = int.from_bytes(buffer[start + 2:start + 4], "big")
            elif size == 127:
                head = 10
                size = int.from_bytes(buffer[start + 2:start + 10], "big")
            if len(buffer) - start < head + size:
                break
            payload = buffer[start + head:start + head + size]
            start += head + size
            if opcode == 0x1:
                self._text(payload.decode(), arrived)
            elif opcode == 0x9:
                self._send(payload.decode(), 0xA)
            elif opcode == 0x8 and self._transport is not None:
                self._transport.close()
        self._buffer = buffer[start:]

    def _text(self, text: str, arrived: float) -> None:
        if text == "2":
            self._send("3")
        elif not self._live:
            self._setup.put_nowait(text)
        elif text.startswith(self._prefix):
            self.received += 1
            self.arrivals.append((arrived, self._marker(text)))

    async def close(self) -> None:
        if self._transport is not None:
            self._send("", 0x8)
            self._transport.close()
