"""Slow clients (issue 10): a request body must arrive within the body timeout of its headers, or the
request is answered 408 REQUEST_TIMEOUT and its connection closed. Headers are bounded by the HTTP
server's keep-alive timer (server/app.py `runner_options`).

The deadline is a timer on the request's body stream, not a wrapper around the handler: whoever reads the
body (a route, the idempotency check, Engine.IO's long-polling) gets the error when the time is up, and a
handler that has read its body (or never reads it) runs as long as it needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.streams import StreamReader
from aiohttp.typedefs import Middleware

from protocol.errors import ApiError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class RequestTimeout(ApiError, TimeoutError):
    """The body did not arrive in time. A TimeoutError too, so that aiohttp, once the 408 is sent, stops
    reading the rest of the body and closes the connection instead of lingering on it."""

    code = "REQUEST_TIMEOUT"
    status = 408


def _expire(content: StreamReader, seconds: float) -> None:
    if not content.is_eof():
        content.set_exception(RequestTimeout(f"the request body did not arrive within {seconds:g} s"))


def body_deadline(seconds: float) -> Middleware:
    """Middleware (inside `request_context`, which renders the 408): the body is due `seconds` after the
    headers."""

    @web.middleware
    async def deadline(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.body_exists or request.content.is_eof():
            return await handler(request)
        timer = asyncio.get_running_loop().call_later(seconds, _expire, request.content, seconds)
        try:
            return await handler(request)
        finally:
            timer.cancel()

    return deadline
