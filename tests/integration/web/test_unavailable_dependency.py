"""A call answered 503 because a dependency (the database, Redis) is away says when to retry (`Retry-After`),
in the RPC style as at the edge."""

from __future__ import annotations

from typing import Any

import pytest

import web.rpc
from tests.harness import Org


async def test_an_rpc_call_whose_dependency_is_away_is_a_503_with_retry_after(
        org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    async def away(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionRefusedError("connection refused")

    monkeypatch.setattr(web.rpc, "call_procedure", away)
    refused = await org.owner.query("boards.list", {})
    assert refused.status == 503, refused.body
    assert refused.headers["Retry-After"] == "1"
    assert "X-RateLimit-Limit" in refused.headers
