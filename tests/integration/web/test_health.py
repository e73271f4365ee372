"""`/healthz` answers while the process is up; `/readyz` only while the database answers and every
migration is applied."""

from __future__ import annotations

from typing import Any

from web.keys import NODE


async def test_health_and_readiness(client: Any) -> None:
    health = await client.get("/healthz")
    assert health.status == 200 and await health.json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status == 200 and await ready.json() == {"status": "ok"}


async def test_not_ready_while_a_migration_is_missing(client: Any) -> None:
    pool = client.server.app[NODE].pool
    version = await pool.fetchval("SELECT max(version) FROM schema_migrations")
    row = await pool.fetchrow("SELECT version, name, applied_at FROM schema_migrations WHERE version = $1", version)
    await pool.execute("DELETE FROM schema_migrations WHERE version = $1", version)
    try:
        ready = await client.get("/readyz")
        body = await ready.json()
        assert ready.status == 503
        assert body["status"] == "unavailable" and row["name"] in body["reason"]
    finally:
        await pool.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                           row["version"], row["name"], row["applied_at"])
    assert (await client.get("/readyz")).status == 200
