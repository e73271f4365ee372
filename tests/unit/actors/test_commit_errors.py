"""What a caller is told when a commit fails: decided by SQLSTATE class, never by message text."""

from __future__ import annotations

import asyncpg

from actors.runtime.lifecycle import as_api_error
from protocol.errors import Conflict, InternalError, NotFound, ServiceUnavailable
from storage.epochs import StaleEpoch


def test_commit_errors_map_to_typed_api_errors() -> None:
    stale = StaleEpoch("newer activation")
    assert as_api_error(stale) is stale
    assert isinstance(as_api_error(NotFound("gone")), NotFound)
    assert isinstance(as_api_error(asyncpg.SerializationError("could not serialize")), Conflict)
    assert isinstance(as_api_error(asyncpg.DeadlockDetectedError("deadlock")), Conflict)
    assert isinstance(as_api_error(asyncpg.CheckViolationError("check")), Conflict)
    assert isinstance(as_api_error(asyncpg.ConnectionDoesNotExistError("closed")), ServiceUnavailable)
    assert isinstance(as_api_error(ConnectionResetError()), ServiceUnavailable)
    # A PostgreSQL restart or an administrator cancelling the statement: retry, not a 500.
    assert isinstance(as_api_error(asyncpg.AdminShutdownError("terminating connection")), ServiceUnavailable)
    assert isinstance(as_api_error(asyncpg.QueryCanceledError("canceling statement")), ServiceUnavailable)
    assert isinstance(as_api_error(asyncpg.CannotConnectNowError("starting up")), ServiceUnavailable)
    assert isinstance(as_api_error(asyncpg.TooManyConnectionsError("too many")), ServiceUnavailable)
    assert isinstance(as_api_error(asyncpg.DiskFullError("disk full")), ServiceUnavailable)
    assert isinstance(as_api_error(KeyError("bug")), InternalError)
