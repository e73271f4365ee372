"""What a caller is told when the database refused or failed a change: one mapping, by SQLSTATE class
(never by message text), used by the actor runtime's commit, the kernel's write path and the edge; in the
runtime, the lowest of them, so that the runtime imports nothing above it.

- class 40 (transaction rollback: 40001 serialization failure, 40P01 deadlock): 409, retry;
- 23503 foreign-key violation: a row the change refers to was deleted meanwhile, 404;
- the rest of class 23 (unique, check, not-null, exclusion): 409, the change conflicts with stored data;
- a connection that failed or timed out, the server shutting down or cancelling the statement (class 57:
  a restart, an administrator's pg_cancel_backend) or short of resources (class 53): 503, retry; so is a
  connection whose protocol broke (asyncpg's InternalClientError, e.g. "cannot switch to state 12" on a
  connection PostgreSQL terminated): storage/pool.py discards that connection, so a retry gets a fresh one;
- anything else: 500, logged by the edge, its text never shown.
"""

from __future__ import annotations

import asyncpg

from protocol.errors import ApiError, Conflict, InternalError, NotFound, ServiceUnavailable

COLLIDED = "the change collided with a concurrent one; retry"
MISSING = "something the change refers to no longer exists"
CONFLICTS = "the change conflicts with stored data"
UNAVAILABLE = "the database is unavailable; retry"


def database_error(exc: BaseException, *, missing: ApiError | None = None) -> ApiError | None:
    """The typed error for a failure of the database or of the way to it; None for anything else.
    `missing` replaces the generic 404 of a foreign-key violation (e.g. NotFound("board not found"))."""
    match exc:
        case asyncpg.TransactionRollbackError():
            return Conflict(COLLIDED)
        case asyncpg.ForeignKeyViolationError():
            return missing if missing is not None else NotFound(MISSING)
        case asyncpg.IntegrityConstraintViolationError():
            return Conflict(CONFLICTS)
        case (asyncpg.PostgresConnectionError() | asyncpg.OperatorInterventionError()
              | asyncpg.InsufficientResourcesError() | asyncpg.InterfaceError() | asyncpg.InternalClientError()
              | OSError() | TimeoutError()):
            return ServiceUnavailable(UNAVAILABLE)
        case _:
            return None


def as_api_error(exc: BaseException, *, missing: ApiError | None = None) -> ApiError:
    """What a caller is told when activation, a commit or a unit of work failed: ApiErrors pass through,
    database failures are mapped, anything else is an internal error."""
    if isinstance(exc, ApiError):
        return exc
    return database_error(exc, missing=missing) or InternalError("internal error")

