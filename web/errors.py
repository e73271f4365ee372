"""Turning an unexpected exception into a logged 500 without leaking its text to the caller; a database that
is away is a 503, a transaction that collided with a concurrent one (deadlock, serialization) a 409 — as the
runtime maps them (actors/runtime/db_errors.py), so that `web/` knows nothing of the database driver."""

from __future__ import annotations

import structlog
from aiohttp import web

from actors.runtime.db_errors import database_error
from protocol.errors import ApiError, Conflict, InternalError, ServiceUnavailable

log = structlog.get_logger("obeya.web")


def unexpected_error(request: web.Request, error: BaseException) -> ApiError:
    mapped = database_error(error)
    if isinstance(mapped, ServiceUnavailable) or isinstance(error, ConnectionError):
        log.warning("dependency_unavailable", error=type(error).__name__)
        return ServiceUnavailable("a dependency is unavailable; retry shortly")
    if isinstance(mapped, Conflict):
        log.warning("transaction_collided", method=request.method, path=request.path, error=type(error).__name__)
        return mapped
    if mapped is not None:  # a constraint a handler did not expect: still the caller's answer, not a bug
        log.warning("constraint_violated", method=request.method, path=request.path, error=type(error).__name__)
        return mapped
    log.error("unhandled_error", method=request.method, path=request.path, exc_info=error)
    return InternalError("internal server error")
