"""storage/credentials.py and storage/mcp_keys.py under concurrency: a key or token made while its member is
being removed is not stored (else the removal's revocation would miss it and a return would revive it)."""

from __future__ import annotations

import secrets
from typing import Any

import asyncpg

from protocol.ids import Prefix, new_id
from storage import credentials as credential_repo
from storage import mcp_keys as mcp_key_repo
from tests.integration.storage.member_removal import made_while_removed


async def test_no_api_key_or_token_for_a_member_leaving_meanwhile(pool: asyncpg.Pool) -> None:
    for kind in ("api_key", "personal_token"):
        async def insert(org_id: str, _owner_id: str, user_id: str, kind: str = kind) -> Any:
            return await credential_repo.insert(pool, credential_id=new_id(Prefix.API_KEY), kind=kind, org_id=org_id,
                                                user_id=user_id, name="racing", prefix=secrets.token_hex(4),
                                                secret_hash="x", scopes=[], expires_at=None)
        await made_while_removed(pool, insert, "credentials")


async def test_no_mcp_key_for_a_member_leaving_meanwhile(pool: asyncpg.Pool) -> None:
    async def insert(org_id: str, _owner_id: str, user_id: str) -> Any:
        return await mcp_key_repo.insert(pool, key_id=new_id(Prefix.MCP_KEY), org_id=org_id, user_id=user_id,
                                         name="racing", prefix=secrets.token_hex(4), secret_hash="x", allowed_tools=[],
                                         allowed_resources=[], expires_at=None)
    await made_while_removed(pool, insert, "mcp_keys")
