"""A real HTTP receiver on 127.0.0.1 that records every request to any path under its URL (webhook POSTs,
automations' call_webhook with any method), and helpers to drive webhooks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from multidict import CIMultiDictProxy

from tests.harness import Api


@dataclass
class Received:
    method: str
    path_qs: str
    headers: CIMultiDictProxy[str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    status: int = 200
    requests: asyncio.Queue[Received] = field(default_factory=asyncio.Queue)

    async def next(self, timeout: float = 5.0) -> Received:
        return await asyncio.wait_for(self.requests.get(), timeout)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    app = web.Application()
    runner = web.AppRunner(app)
    box: list[Receiver] = []

    async def record(request: web.Request) -> web.Response:
        box[0].requests.put_nowait(Received(request.method, request.path_qs, request.headers, await request.read()))
        return web.Response(status=box[0].status)

    app.router.add_route("*", "/{tail:.*}", record)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    box.append(Receiver(f"http://127.0.0.1:{port}/hook"))
    yield box[0]
    await runner.cleanup()


async def create_webhook(api: Api, url: str, events: list[str], **fields: Any) -> dict[str, Any]:
    reply = await api.rest("POST", "/api/v1/webhooks", {"url": url, "events": events, **fields})
    assert reply.status == 201, reply.body
    return dict(reply.data)


async def deliveries(api: Api, webhook_id: str) -> list[dict[str, Any]]:
    reply = await api.rest("GET", f"/api/v1/webhooks/{webhook_id}/deliveries")
    assert reply.status == 200, reply.body
    return list(reply.data)


async def delivery_settled(api: Api, webhook_id: str, attempts: int, status: str) -> dict[str, Any]:
    """The webhook's newest delivery once its `attempts`-th attempt is recorded with `status` (the worker
    writes the result just after the receiver answers)."""
    for _ in range(500):
        log = await deliveries(api, webhook_id)
        if log and log[0]["attempts"] == attempts and log[0]["status"] == status:
            return log[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"delivery never reached attempt {attempts} {status}: {log}")
