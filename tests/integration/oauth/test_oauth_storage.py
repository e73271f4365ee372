"""storage/oauth.py under concurrency: deleting an app names exactly the tokens it deleted (their ids are what
the caches are told to forget), including a token minted while the deletion ran; a code approved while its user
leaves the organization is not issued."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta
from typing import Any

import asyncpg

from actors.identity import oauth_grants
from actors.identity.accounts import create_organization
from protocol.ids import Prefix, new_id
from server.node_services import build_node
from storage import oauth as repo
from tests.harness import PASSWORD
from tests.integration.oauth.flow import REDIRECT_URI
from tests.integration.storage.member_removal import made_while_removed


async def _blocked(pool: asyncpg.Pool, pid: int) -> None:
    """Until the backend `pid` waits on another's lock (at most 5 s)."""
    for _ in range(500):
        if await pool.fetchval("SELECT cardinality(pg_blocking_pids($1)) > 0", pid):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"backend {pid} never waited on a lock")


async def test_delete_app_returns_a_token_minted_while_it_ran(pool: asyncpg.Pool) -> None:
    node = build_node(pool)
    slug = f"org-{secrets.token_hex(5)}"
    org_id, user_id = await create_organization(node, slug=slug, name="Race", owner_email=f"o@{slug}.test",
                                                owner_password=PASSWORD, plan="business")
    now = node.clock.now()
    app = await repo.insert_app(pool, app_id=new_id(Prefix.OAUTH_APP), org_id=org_id,
                                client_id=new_id(Prefix.OAUTH_CLIENT), secret_digest=None, name="Racing",
                                redirect_uris=[REDIRECT_URI], scopes=["read"], public=True, created_by=user_id, now=now)
    await oauth_grants.issue_code(node, app=app, org_id=org_id, user_id=user_id, scopes=["read"],
                                  redirect_uri=REDIRECT_URI, redirect_uri_sent=True, code_challenge=None)
    grant_id = await pool.fetchval("SELECT id FROM oauth_grants WHERE app_id = $1", app["id"])
    token_id = new_id(Prefix.OAUTH_ACCESS_TOKEN)
    async with pool.acquire() as minting, pool.acquire() as deleting:
        async with minting.transaction():  # a refresh or code exchange in flight: its token not yet committed
            await repo.insert_token(minting, token_id=token_id, grant_id=grant_id, kind="access",
                                    token_digest=secrets.token_hex(32), scopes=["read"],
                                    expires_at=now + timedelta(hours=1), now=now)

            async def delete() -> list[str]:
                async with deleting.transaction():
                    return await repo.delete_app(deleting, org_id, app["id"])

            deletion = asyncio.create_task(delete())
            await _blocked(pool, deleting.get_server_pid())
        assert await deletion == [token_id]
    assert await pool.fetchval("SELECT count(*) FROM oauth_tokens WHERE id = $1", token_id) == 0


async def test_no_code_for_a_member_leaving_meanwhile(pool: asyncpg.Pool) -> None:
    node = build_node(pool)

    async def approve(org_id: str, owner_id: str, member_id: str) -> Any:
        app = await repo.insert_app(pool, app_id=new_id(Prefix.OAUTH_APP), org_id=org_id,
                                    client_id=new_id(Prefix.OAUTH_CLIENT), secret_digest=None, name="Racing",
                                    redirect_uris=[REDIRECT_URI], scopes=["read"], public=True,
                                    created_by=owner_id, now=node.clock.now())
        return await oauth_grants.issue_code(
            node, app=app, org_id=org_id, user_id=member_id, scopes=["read"], redirect_uri=REDIRECT_URI,
            redirect_uri_sent=True, code_challenge=None)

    await made_while_removed(pool, approve, "oauth_grants")
