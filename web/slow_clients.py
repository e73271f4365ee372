"""Slow clients (issue 10): a request body must arrive within the body timeout of its headers, or the
request is answered 408 REQUEST_TIMEOUT and its connection closed. Headers are bounded by the HTTP
server's keep-alive timer (server/app.py `runner_options`).

The deadline is a timer on the request's body stream, not a wrapper around the handler: whoever reads the
body (a route, the idempotency check, Engine.IO's long-polling) gets the error when the time is up, and a
handler that has read its body (or never reads it) runs as long as it needs.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.streams import StreamReader

from protocol.errors import ApiError


class RequestTimeout(ApiError, TimeoutError):
    """The body did not arrive in time. A TimeoutError too, so that aiohttp, once the 408 is sent, stops
    reading the rest of the body and closes the connection instead of lingering on it."""

    code = "REQUEST_TIMEOUT"
    status = 408


def _expire(content: StreamReader, seconds: float) -> None:
    if not content.is_eof():
        content.set_exception(RequestTimeout(f"the request body did not arrive within {seconds:g} s"))


def body_deadline(request: web.Request, seconds: float) -> asyncio.TimerHandle | None:
    """Start the timer of a request's body, due `seconds` after the headers (web/edge.py cancels it once
    the handler is done, and renders the 408); None when there is no body to wait for."""
    if not request.body_exists or request.content.is_eof():
        return None
    return asyncio.get_running_loop().call_later(seconds, _expire, request.content, seconds)
