"""The FileStore kept in PostgreSQL (`file_contents`, migration 0032): every node sees every file, with
nothing more to run."""

from __future__ import annotations

import asyncpg


class PostgresFileStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def put(self, org_id: str, file_id: str, data: bytes) -> None:
        await self._pool.execute(
            "INSERT INTO file_contents (file_id, organization_id, content) VALUES ($1, $2, $3)"
            " ON CONFLICT (file_id) DO NOTHING", file_id, org_id, data)

    async def read(self, org_id: str, file_id: str) -> bytes | None:
        content: bytes | None = await self._pool.fetchval(
            "SELECT content FROM file_contents WHERE organization_id = $1 AND file_id = $2", org_id, file_id)
        return content
