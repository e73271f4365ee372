"""Turning an unexpected exception into a logged 500 without leaking its text to the caller."""

from __future__ import annotations

import structlog
from aiohttp import web

from protocol.errors import ApiError, InternalError, ServiceUnavailable

log = structlog.get_logger("obeya.web")


def unexpected_error(request: web.Request, error: BaseException) -> ApiError:
    import asyncpg

    if isinstance(error, (asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError,
                          ConnectionError, OSError)):
        log.warning("dependency_unavailable", error=type(error).__name__)
        return ServiceUnavailable("a dependency is unavailable; retry shortly")
    log.error("unhandled_error", method=request.method, path=request.path, exc_info=error)
    return InternalError("internal server error")
