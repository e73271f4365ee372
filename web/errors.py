"""Turning an unexpected exception into a logged 500 without leaking its text to the caller; a database that
is away is a 503, a transaction that collided with a concurrent one (deadlock, serialization) a 409."""

from __future__ import annotations

import structlog
from aiohttp import web

from protocol.errors import ApiError, Conflict, InternalError, ServiceUnavailable

log = structlog.get_logger("obeya.web")


def unexpected_error(request: web.Request, error: BaseException) -> ApiError:
    import asyncpg

    if isinstance(error, (asyncpg.CannotConnectNowError, asyncpg.TooManyConnectionsError,
                          ConnectionError, OSError)):
        log.warning("dependency_unavailable", error=type(error).__name__)
        return ServiceUnavailable("a dependency is unavailable; retry shortly")
    if isinstance(error, asyncpg.TransactionRollbackError):  # 40001 serialization failure, 40P01 deadlock
        log.warning("transaction_collided", method=request.method, path=request.path, error=type(error).__name__)
        return Conflict("the change collided with a concurrent one; retry")
    log.error("unhandled_error", method=request.method, path=request.path, exc_info=error)
    return InternalError("internal server error")
