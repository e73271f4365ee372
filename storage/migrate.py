"""Applies the numbered SQL files in `storage/migrations/` once each, in order, under an advisory lock
so that several nodes starting at once apply each file exactly once."""

from __future__ import annotations

import re
from importlib import resources

from storage.connection import Connection

# An arbitrary constant shared by every node: the advisory lock that serialises migrations.
MIGRATION_LOCK_ID = 0x0BE7A_0001
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migration_files() -> list[tuple[int, str, str]]:
    """(number, file name, SQL) for every migration, in order."""
    found = []
    for entry in resources.files("storage.migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


async def apply_migrations(conn: Connection) -> list[str]:
    """Apply what is missing; return the names applied now."""
    applied_now: list[str] = []
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK_ID)
    try:
        await conn.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())""")
        done = {row["version"] for row in await conn.fetch("SELECT version FROM schema_migrations")}
        for number, name, sql in migration_files():
            if number in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", number, name)
            applied_now.append(name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_ID)
    return applied_now


async def pending_migrations(conn: Connection) -> list[str]:
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    done = set()
    if exists:
        done = {row["version"] for row in await conn.fetch("SELECT version FROM schema_migrations")}
    return [name for number, name, _ in migration_files() if number not in done]
