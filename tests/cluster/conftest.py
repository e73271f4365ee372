"""The `cluster` fixture: nodes started as processes (tests/cluster/harness.py), all stopped after the test;
and the live tests' `screens` (Socket.IO clients, closed after the test)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.cluster.harness import Cluster
from tests.integration.live.conftest import screens  # noqa: F401  (fixture re-exported for the live tests)


@pytest.fixture
async def cluster(database_url: str, redis_url: str) -> AsyncIterator[Cluster]:
    nodes = Cluster(database_url, redis_url)
    try:
        yield nodes
    finally:
        await nodes.stop()
