"""A server whose clock the test drives (expiry, the last-used flusher)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from actors.runtime.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime.now(UTC))


@pytest.fixture
async def clocked_client(aiohttp_client: Any, database_url: str, settings: Any, clock: ManualClock) -> Any:
    from server.app import create_app

    return await aiohttp_client(create_app(settings, database_url, clock=clock),
                                cookie_jar=aiohttp.DummyCookieJar())
