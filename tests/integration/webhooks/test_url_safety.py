"""Where webhooks may post (DESIGN: `OBEYA_ENV=production` means HTTPS only and no private addresses):
checked when a webhook is saved and again when the worker connects."""

from __future__ import annotations

import asyncpg
import pytest

from actors.delivery.webhook_sender import PublicOnlyResolver
from actors.delivery.webhooks import check_url
from actors.kernel.node import Node
from protocol.errors import ValidationFailed


@pytest.mark.parametrize("url", ["https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest",
                                 "https://192.168.1.20/", "https://[::1]/hook", "https://[::ffff:10.0.0.1]/",
                                 "https://224.0.0.1/", "https://0.0.0.0/", "https://240.0.0.1/",
                                 "http://example.com/hook", "https://localhost/hook"])
async def test_production_refuses_private_and_plain_http_urls(pool: asyncpg.Pool, url: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await check_url(Node(pool=pool, production=True), url)
    assert refused.value.details[0].field == "url"


async def test_production_accepts_a_public_https_address(pool: asyncpg.Pool) -> None:
    assert await check_url(Node(pool=pool, production=True), "https://93.184.215.14/hook") == \
        "https://93.184.215.14/hook"


async def test_development_allows_local_receivers(pool: asyncpg.Pool) -> None:
    assert await check_url(Node(pool=pool), "http://127.0.0.1:8080/hook") == "http://127.0.0.1:8080/hook"


@pytest.mark.parametrize("host", ["127.0.0.1", "169.254.169.254", "10.1.2.3", "localhost"])
async def test_delivery_time_resolution_refuses_private_addresses(host: str) -> None:
    resolver = PublicOnlyResolver()
    try:
        with pytest.raises(OSError):
            await resolver.resolve(host, 443)
    finally:
        await resolver.close()
