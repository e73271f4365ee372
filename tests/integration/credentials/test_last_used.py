"""Last-used times: shown at once without a write per request, written by the periodic flusher in one
statement, and flushed once more when the server stops."""

from __future__ import annotations

from typing import Any

import aiohttp
import asyncpg
import pytest

from actors.identity.last_used import FLUSH_SECONDS
from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import make_org
from tests.integration.credentials.helpers import create_key
from web.keys import NODE

pytestmark = pytest.mark.workers("last-used-flusher")


async def _stored_last_used(pool: asyncpg.Pool, credential_id: str) -> Any:
    return await pool.fetchval("SELECT last_used_at FROM credentials WHERE id = $1", credential_id)


async def test_list_shows_a_use_before_any_flush_and_the_flusher_writes_it(
        clocked_client: Any, clock: ManualClock, pool: asyncpg.Pool) -> None:
    org = await make_org(clocked_client)
    key, api_key = await create_key(org.owner)
    assert api_key["lastUsedAt"] is None
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200
    used_at = clock.now()

    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert listed.data[0]["lastUsedAt"] == iso(used_at)
    assert await _stored_last_used(pool, api_key["id"]) is None  # no write on the request path

    clock.advance(FLUSH_SECONDS)
    await clocked_client.server.app[NODE].workers.idle()  # the flusher woke on the clock and wrote
    assert await _stored_last_used(pool, api_key["id"]) == used_at
    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert listed.data[0]["lastUsedAt"] == iso(used_at)


async def test_stopping_the_server_flushes_pending_uses(aiohttp_client: Any, database_url: str, settings: Any,
                                                        pool: asyncpg.Pool) -> None:
    from server.app import create_app

    client = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    org = await make_org(client)
    key, api_key = await create_key(org.owner)
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 200
    assert await _stored_last_used(pool, api_key["id"]) is None
    await client.close()
    assert await _stored_last_used(pool, api_key["id"]) is not None
