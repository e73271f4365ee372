"""Slow clients (issue 10) against a real server on 127.0.0.1 run with the runner settings of `obeya serve`
(server/app.py `runner_options`): a connection trickling its headers is closed at the header timeout, a
body trickled past the body timeout is answered 408 and its connection closed, and a normal client is
served promptly during such an attack."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from server.app import create_app, runner_options
from tests.conftest import server_settings

TIMEOUT = 0.5
TRICKLE = 0.2  # seconds between two bytes of an attacker


@pytest.fixture
async def port(request: pytest.FixtureRequest, database_url: str) -> AsyncIterator[int]:
    settings = server_settings(request, OBEYA_HEADER_TIMEOUT=str(TIMEOUT), OBEYA_BODY_TIMEOUT=str(TIMEOUT))
    runner = web.AppRunner(create_app(settings, database_url), **runner_options(settings))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()


async def trickle(writer: asyncio.StreamWriter, data: bytes) -> None:
    """Send `data` one byte every TRICKLE seconds, until it is sent or the server closes the connection."""
    try:
        for byte in data:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(TRICKLE)
    except ConnectionError:
        pass


class Attacker:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> None:
        self.reader, self.writer = reader, writer
        self.sending = asyncio.get_running_loop().create_task(trickle(writer, data))

    async def answer(self) -> tuple[bytes, float]:
        """Everything the server sent until it closed the connection, and how long that took."""
        started = time.monotonic()
        try:
            received = await asyncio.wait_for(self.reader.read(), 10)
        except ConnectionError:
            received = b""
        return received, time.monotonic() - started

    async def close(self) -> None:
        self.sending.cancel()
        await asyncio.gather(self.sending, return_exceptions=True)
        self.writer.close()


async def header_trickler(port: int) -> Attacker:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    return Attacker(reader, writer, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 100 + b"\r\n\r\n")


async def body_trickler(port: int) -> Attacker:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps({"email": "slow@example.test", "password": "x" * 40}).encode()
    writer.write(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
    return Attacker(reader, writer, body)


async def test_headers_trickled_are_cut_at_the_header_timeout(port: int) -> None:
    attacker = await header_trickler(port)
    try:
        received, took = await attacker.answer()
    finally:
        await attacker.close()
    assert received == b""  # closed before the request was ever read: nothing to answer
    assert took < TIMEOUT + 1.0  # not the 100 × 0.2 s the headers would take


async def test_a_body_trickled_past_the_body_timeout_is_408_and_closed(port: int) -> None:
    attacker = await body_trickler(port)
    try:
        received, took = await attacker.answer()
    finally:
        await attacker.close()
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), received
    assert b"REQUEST_TIMEOUT" in body and b"did not arrive within 0.5 s" in body, body
    assert took < TIMEOUT + 1.0  # answered, then the connection closed (read() returned)


async def test_a_normal_client_is_served_promptly_during_a_slow_client_attack(port: int) -> None:
    attackers = [await header_trickler(port) for _ in range(40)] + [await body_trickler(port) for _ in range(40)]
    try:
        await asyncio.sleep(TRICKLE)  # every attacker holds its connection, a few bytes in
        async with aiohttp.ClientSession() as session:
            started = time.monotonic()
            async with session.get(f"http://127.0.0.1:{port}/healthz") as response:
                assert response.status == 200
            served = time.monotonic() - started
            async with session.post(f"http://127.0.0.1:{port}/api/v1/auth/login", headers={"Host": "localhost"},
                                    json={"email": "nobody@example.test", "password": "x" * 12}) as response:
                assert response.status in (401, 404, 422), await response.text()
        assert served < TIMEOUT  # not held behind the attackers
        answers: list[Any] = [await attacker.answer() for attacker in attackers]
        assert all(received == b"" for received, _ in answers[:40])
        assert all(received.startswith(b"HTTP/1.1 408") for received, _ in answers[40:])
    finally:
        for attacker in attackers:
            await attacker.close()
