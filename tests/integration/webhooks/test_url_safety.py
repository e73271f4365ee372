"""Where webhooks may post (docs/api.md: `OBEYA_ENV=production` means HTTPS only; no private addresses in any
environment unless OBEYA_ALLOW_PRIVATE_TARGETS=1): checked when a webhook is saved and again when the
worker connects (tests/integration/webhooks/test_address_policy.py: the policy in every environment)."""

from __future__ import annotations

import asyncpg
import pytest

from actors.delivery.addresses import PublicOnlyResolver
from actors.delivery.webhooks import check_url
from actors.kernel.settings import NodeSettings
from protocol.errors import ValidationFailed
from server.node_services import build_node


@pytest.mark.parametrize("url", ["https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest",
                                 "https://192.168.1.20/", "https://[::1]/hook", "https://[::ffff:10.0.0.1]/",
                                 "https://224.0.0.1/", "https://0.0.0.0/", "https://240.0.0.1/",
                                 "http://example.com/hook", "https://localhost/hook"])
async def test_production_refuses_private_and_plain_http_urls(pool: asyncpg.Pool, url: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await check_url(build_node(pool, NodeSettings(production=True)), url)
    assert refused.value.details[0].field == "url"


async def test_production_accepts_a_public_https_address(pool: asyncpg.Pool) -> None:
    assert await check_url(build_node(pool, NodeSettings(production=True)), "https://93.184.215.14/hook") == \
        "https://93.184.215.14/hook"


async def test_development_allows_local_receivers_only_when_private_targets_are_allowed(pool: asyncpg.Pool) -> None:
    allowed = build_node(pool, NodeSettings(allow_private_targets=True))
    assert await check_url(allowed, "http://127.0.0.1:8080/hook") == "http://127.0.0.1:8080/hook"
    with pytest.raises(ValidationFailed) as refused:
        await check_url(build_node(pool), "http://127.0.0.1:8080/hook")
    assert refused.value.details[0].field == "url"
    assert refused.value.details[0].message == "must not point to a loopback address (127.0.0.1)"


async def test_production_with_private_targets_allowed_still_requires_https(pool: asyncpg.Pool) -> None:
    node = build_node(pool, NodeSettings(production=True, allow_private_targets=True))
    assert await check_url(node, "https://127.0.0.1/hook") == "https://127.0.0.1/hook"
    with pytest.raises(ValidationFailed, match="must use HTTPS"):
        await check_url(node, "http://127.0.0.1/hook")


@pytest.mark.parametrize("host", ["127.0.0.1", "169.254.169.254", "10.1.2.3", "localhost"])
async def test_delivery_time_resolution_refuses_private_addresses(host: str) -> None:
    resolver = PublicOnlyResolver()
    try:
        with pytest.raises(OSError):
            await resolver.resolve(host, 443)
    finally:
        await resolver.close()
