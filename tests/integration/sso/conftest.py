"""A real OpenID provider per test, its client's redirect URI the test organization's callback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.clients import oidc_provider
from tests.harness import Org, make_org
from tests.integration.sso.flow import callback_uri


@pytest.fixture(scope="session")
def provider_installed() -> None:
    oidc_provider.install()


@pytest.fixture
async def enterprise(client: Any) -> Org:
    return await make_org(client, plan="enterprise")


@pytest.fixture
async def provider(provider_installed: None, enterprise: Org) -> AsyncIterator[oidc_provider.OidcProvider]:
    async with oidc_provider.running([callback_uri(enterprise)]) as running:
        yield running
