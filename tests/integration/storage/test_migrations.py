"""Migrations apply once, in order, and record themselves; concurrent starts apply each file once."""

from __future__ import annotations

import asyncio

import asyncpg

from storage.migrate import apply_migrations, migration_files, pending_migrations


async def test_migrations_are_recorded_and_not_reapplied(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        assert await pending_migrations(conn) == []
        assert await apply_migrations(conn) == []
        versions = [r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations ORDER BY 1")]
    assert versions == [number for number, _, _ in migration_files()]


async def test_concurrent_nodes_apply_each_migration_once(admin_database_url: str) -> None:
    from tests.conftest import _drop_database, _with_database

    name = "obeya_test_concurrent_migrate"
    await _drop_database(admin_database_url, name)
    conn = await asyncpg.connect(admin_database_url)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    url = _with_database(admin_database_url, name)
    try:
        conns = [await asyncpg.connect(url) for _ in range(4)]
        results = await asyncio.gather(*(apply_migrations(c) for c in conns))
        for c in conns:
            await c.close()
        applied = [name for result in results for name in result]
        assert sorted(applied) == sorted(name for _, name, _ in migration_files())
    finally:
        await _drop_database(admin_database_url, name)
