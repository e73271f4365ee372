"""The edge: the one middleware every request goes through. In order: request id and log context, the body's
deadline, and for `/api/` the caller (identity and CSRF, with the address's refusals checked before an
unverified credential is looked up), the rate limit and the idempotency key; then the
handler; then the response's headers (`X-Request-Id`, `X-RateLimit-*`, `Retry-After`), the request's metrics
and its access line.

Each step is a plain function of the module that owns its concern (web/context.py, web/slow_clients.py,
web/rate_limit.py, web/idempotency.py, web/metrics.py). Run from one coroutine, they spare every request a
coroutine and aiohttp's wrapper per concern (issue 13: the chain of six middlewares was a quarter of a write's
CPU)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web
from aiohttp.typedefs import Middleware

from protocol.caller import Caller
from protocol.errors import ApiError
from web.access_log import access_line
from web.context import identify, render_error, request_id_of, style_of
from web.idempotency import idempotent
from web.idempotency_store import HEADER as IDEMPOTENCY_KEY
from web.keys import CALLER, PROCEDURE, REQUEST_ID, RETRY_AFTER, STYLE
from web.metrics import observe
from web.rate_limit import add_headers, check_refusals, count, count_refused
from web.slow_clients import body_deadline

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def edge(body_timeout: float) -> Middleware:
    """The middleware, with request bodies due `body_timeout` seconds after their headers."""

    @web.middleware
    async def edge_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        request_id = request_id_of(request)
        path = request.path
        style = style_of(path)
        request[STYLE] = style
        request[REQUEST_ID] = request_id
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        deadline = body_deadline(request, body_timeout)
        try:
            try:
                if not path.startswith("/api/"):
                    response = await handler(request)
                else:
                    try:
                        caller = await identify(request, check_refusals)
                        await count(request, caller)
                        if IDEMPOTENCY_KEY in request.headers:
                            response = await idempotent(request, handler, caller)
                        else:
                            response = await handler(request)
                    except ApiError:
                        await count_refused(request)  # refused before it was counted: counted per address
                        raise
            finally:
                if deadline is not None:
                    deadline.cancel()
        except web.HTTPException as exc:
            if exc.status < 400:  # a redirect: aiohttp sends it
                exc.headers["X-Request-Id"] = request_id
                raise
            response = render_error(request, exc, style)
        except Exception as exc:
            response = render_error(request, exc, style)
        _finish(request, response, request_id, started)
        return response

    return edge_middleware


def _finish(request: web.Request, response: web.StreamResponse, request_id: str, started: float) -> None:
    """Headers, metrics and the access line of a request answered (errors included)."""
    add_headers(request, response)
    headers = response.headers
    headers["X-Request-Id"] = request_id
    retry_after = request.get(RETRY_AFTER)
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    procedure = request.get(PROCEDURE)
    status = response.status
    seconds = time.perf_counter() - started
    observe(request, procedure, status, seconds)
    caller: Caller | None = request.get(CALLER)
    access_line(request_id, method=request.method, path=request.path, status=status,
                duration_ms=round(seconds * 1000, 2),
                organization=caller.organization.slug if caller and caller.organization else None,
                user=caller.user_id if caller else None, procedure=procedure)
