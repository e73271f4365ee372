"""What a caller is told when a handler fails unexpectedly."""

from __future__ import annotations

import asyncpg
from aiohttp.test_utils import make_mocked_request

from web.errors import unexpected_error


def test_a_collision_with_a_concurrent_transaction_is_a_conflict_to_retry() -> None:
    request = make_mocked_request("POST", "/api/trpc/problemSolving.linkToRootCause")
    for error in (asyncpg.exceptions.DeadlockDetectedError("deadlock detected"),
                  asyncpg.exceptions.SerializationError("could not serialize access")):
        answer = unexpected_error(request, error)
        assert (answer.status, answer.code) == (409, "CONFLICT") and "retry" in answer.message


def test_a_database_that_is_away_is_unavailable_and_a_bug_is_an_internal_error() -> None:
    request = make_mocked_request("GET", "/api/trpc/items.list")
    assert unexpected_error(request, ConnectionRefusedError()).status == 503
    internal = unexpected_error(request, KeyError("secret detail"))
    assert internal.status == 500 and "secret" not in internal.message
