"""A refresh token's reuse detected on one node ends the grant's access tokens on every node at once (through
the cross-node credential invalidation API-key revocation uses), not when the other node's cache expires."""

from __future__ import annotations

import secrets

import asyncpg
import pytest
from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.errors import InvalidGrantError
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from actors.identity import oauth_grants
from actors.identity.accounts import create_organization
from actors.identity.callers import verify_bearer
from actors.kernel.credential_cache import secret_digest
from actors.kernel.redis_invalidation import RedisInvalidations
from protocol.errors import Unauthorized
from protocol.ids import Prefix, new_id
from server.node_services import build_node
from storage import oauth as repo
from tests.harness import PASSWORD
from tests.integration.kernel.test_redis_invalidation import _within_deadline
from tests.integration.oauth.flow import REDIRECT_URI


async def test_reuse_on_one_node_ends_the_grant_on_the_other(pool: asyncpg.Pool, redis_url: str) -> None:
    channel = f"obeya:invalidate:test:{secrets.token_hex(4)}"
    a, b = build_node(pool), build_node(pool)
    on_a, on_b = RedisInvalidations(redis_url, a, channel=channel), RedisInvalidations(redis_url, b, channel=channel)
    await on_a.start()
    await on_b.start()
    try:
        slug = f"org-{secrets.token_hex(5)}"
        org_id, user_id = await create_organization(a, slug=slug, name="Nodes", owner_email=f"o@{slug}.test",
                                                    owner_password=PASSWORD, plan="business")
        app = await repo.insert_app(pool, app_id=new_id(Prefix.OAUTH_APP), org_id=org_id,
                                    client_id=new_id(Prefix.OAUTH_CLIENT), secret_digest=None, name="Two nodes",
                                    redirect_uris=[REDIRECT_URI], scopes=["read"], public=True,
                                    created_by=user_id, now=a.clock.now())
        verifier = generate_token(48)
        code = await oauth_grants.issue_code(a, app=app, org_id=org_id, user_id=user_id, scopes=["read"],
                                             redirect_uri=REDIRECT_URI, redirect_uri_sent=True,
                                             code_challenge=create_s256_code_challenge(verifier))
        first = await oauth_grants.exchange_code(a, app, code, REDIRECT_URI, verifier)
        second = await oauth_grants.refresh(a, app, first["refresh_token"], None)
        digest = secret_digest(second["access_token"])
        verified = await verify_bearer(b, second["access_token"], digest)  # now cached on B
        assert verified.kind == "oauth_token" and verified.scopes == ("read",) and b.credentials.get(digest)

        with pytest.raises(InvalidGrantError):
            await oauth_grants.refresh(a, app, first["refresh_token"], None)  # the spent one: reuse

        await _within_deadline(lambda: b.credentials.get(digest) is None)
        with pytest.raises(Unauthorized):
            await verify_bearer(b, second["access_token"], digest)
    finally:
        await on_a.stop()
        await on_b.stop()
