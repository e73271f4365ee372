"""The OpenID provider fixture itself: it starts, serves its discovery document and signing keys, and stops."""

from __future__ import annotations

import aiohttp
import pytest

from tests.clients import oidc_provider
from tests.clients.node_packages import NPM_TIMEOUT_S


@pytest.fixture(scope="module")
def installed() -> None:
    """`npm ci` when needed, outside the test's event loop (the loop guard fails a test blocked by it)."""
    oidc_provider.install()


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_the_provider_serves_its_discovery_document_and_keys(installed: None) -> None:
    async with oidc_provider.running(["http://acme.localhost/api/v1/auth/sso/callback"]) as provider:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{provider.issuer}/.well-known/openid-configuration") as response:
                discovery = await response.json()
            async with session.get(discovery["jwks_uri"]) as response:
                keys = (await response.json())["keys"]
    assert discovery["issuer"] == provider.issuer
    assert discovery["authorization_endpoint"] == f"{provider.issuer}/auth"
    assert "S256" in discovery["code_challenge_methods_supported"]
    assert [key["kty"] for key in keys] == ["RSA"] and "d" not in keys[0]
    assert provider.process.returncode is not None  # stopped
