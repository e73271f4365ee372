"""The edge's answer to a handler that fails: a dependency that is away is a 503 that says when to retry."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from web.edge import edge


async def test_a_dependency_away_is_a_503_with_retry_after(aiohttp_client: Any) -> None:
    async def away(request: web.Request) -> web.Response:
        raise ConnectionRefusedError("connection refused")

    app = web.Application(middlewares=[edge(1.0)])
    app.router.add_get("/away", away)
    client = await aiohttp_client(app)

    answer = await client.get("/away")
    assert answer.status == 503
    assert answer.headers["Retry-After"] == "1"
    assert answer.headers["X-Request-Id"]
