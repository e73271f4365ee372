"""Every absolute URL the API answers with is the public URL's (OBEYA_PUBLIC_URL: scheme, the organization's
`<slug>.` in front of its host, and its port), and answers when requested exactly as printed: a server whose
public URL is `http://localhost:<its own port>`, reached by a real HTTP client that resolves `*.localhost` to
the loopback address as browsers do."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from server.app import create_app
from tests.conftest import server_settings
from tests.harness import Org, free_port, make_org
from tests.integration.billing.test_billing import checkout
from tests.integration.files.conftest import uploaded
from tests.integration.forms.conftest import form_board, published_form


class LocalhostResolver(AbstractResolver):
    """`localhost` and every `*.localhost` name is 127.0.0.1 (RFC 6761; browsers and curl do the same)."""

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[
            ResolveResult]:
        assert host == "localhost" or host.endswith(".localhost"), host
        return [{"hostname": host, "host": "127.0.0.1", "port": port, "family": socket.AF_INET, "proto": 0,
                 "flags": socket.AI_NUMERICHOST}]

    async def close(self) -> None:
        pass


@pytest.fixture
async def port() -> int:
    return free_port()


@pytest.fixture
async def org(request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, port: int) -> Org:
    settings = server_settings(request, OBEYA_PUBLIC_URL=f"http://localhost:{port}")
    client = await aiohttp_client(create_app(settings, database_url), server_kwargs={"port": port},
                                  cookie_jar=aiohttp.DummyCookieJar())
    return await make_org(client)


def localhost_browser() -> aiohttp.ClientSession:
    """An HTTP client that reaches `*.localhost` as a browser does, sending exactly the cookies it is given."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=LocalhostResolver()),
                                 cookie_jar=aiohttp.DummyCookieJar())


@pytest.fixture
async def browser() -> AsyncIterator[aiohttp.ClientSession]:
    async with localhost_browser() as session:
        yield session


def _cookie(org: Org) -> dict[str, str]:
    return {"Cookie": f"authjs.session-token={org.owner.session}"}


async def test_a_forms_public_url_opens_the_form_page(org: Org, port: int, browser: aiohttp.ClientSession) -> None:
    form = await published_form(await form_board(org))
    assert form["publicUrl"] == f"http://{org.slug}.localhost:{port}/forms/{form['slug']}"
    async with browser.get(form["publicUrl"]) as page:
        assert page.status == 200 and page.content_type == "text/html"
        assert "Defect report" in await page.text()


async def test_a_files_url_downloads_it(org: Org, port: int, browser: aiohttp.ClientSession) -> None:
    view = await uploaded(org.owner, b"line 3 notes", "notes.txt")
    assert view["url"] == f"http://{org.slug}.localhost:{port}/api/v1/files/{view['id']}"
    async with browser.get(view["url"], headers=_cookie(org)) as download:
        assert download.status == 200 and await download.read() == b"line 3 notes"


async def test_checkout_and_portal_links_open_their_pages(org: Org, port: int,
                                                          browser: aiohttp.ClientSession) -> None:
    session = await checkout(org, "starter")
    assert session["checkoutUrl"] == f"http://{org.slug}.localhost:{port}/billing/sandbox/checkout/" \
                                     f"{session['sessionId']}"
    async with browser.get(session["checkoutUrl"]) as page:
        assert page.status == 200 and ">Pay<" in await page.text()
    portal = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    assert portal.status == 200, portal.body
    assert portal.data["portalUrl"].startswith(f"http://{org.slug}.localhost:{port}/billing/sandbox/portal/")
    async with browser.get(portal.data["portalUrl"]) as page:
        assert page.status == 200


async def test_the_openapi_server_is_the_organizations_public_url(org: Org, port: int,
                                                                  browser: aiohttp.ClientSession) -> None:
    async with browser.get(f"http://{org.host}:{port}/api/v1/openapi.json") as reply:
        [server] = (await reply.json())["servers"]
    assert server == {"url": f"http://{{organization}}.localhost:{port}",
                      "variables": {"organization": {"default": "acme", "description": "the organization's slug"}}}
    base = server["url"].replace("{organization}", org.slug)
    async with browser.get(f"{base}/api/v1/auth/me", headers=_cookie(org)) as me:
        assert me.status == 200 and (await me.json())["data"]["email"] == org.owner_email
