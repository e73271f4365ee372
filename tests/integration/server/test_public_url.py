"""Every absolute URL the API answers with is the public URL's (OBEYA_PUBLIC_URL: scheme, the organization's
`<slug>.` in front of its host, and its port), and answers when requested exactly as printed: a server whose
public URL is `http://localhost:<its own port>`, reached by a real HTTP client that resolves `*.localhost` to
the loopback address as browsers do."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from server.app import create_app
from tests.clients import oidc_provider
from tests.conftest import server_settings
from tests.harness import Org, free_port, make_org
from tests.integration.approvals.conftest import email_of, mails, make_flow, make_form, one_step, submit
from tests.integration.billing.test_billing import checkout
from tests.integration.files.conftest import uploaded
from tests.integration.forms.conftest import form_board, published_form
from tests.integration.sso.conftest import provider_installed  # noqa: F401  (fixture)
from tests.integration.sso.flow import configure, sign_in_at_provider
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink, sink_fixture, smtp_url_fixture  # noqa: F401  (fixtures)
from web.routes_sso import STATE_COOKIE

pytestmark = QUIET_PLAIN_AUTH


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
async def public_client(request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, port: int,
                        smtp_url: str) -> Any:
    """The test server on `port`, its public URL `http://localhost:<port>`, mailing to the SMTP sink."""
    settings = server_settings(request, OBEYA_PUBLIC_URL=f"http://localhost:{port}", OBEYA_SMTP_URL=smtp_url)
    return await aiohttp_client(create_app(settings, database_url), server_kwargs={"port": port},
                                cookie_jar=aiohttp.DummyCookieJar())


@pytest.fixture
async def org(public_client: Any) -> Org:
    return await make_org(public_client)


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


@pytest.mark.workers("mail-sender")
async def test_an_invitations_link_opens_its_page(org: Org, port: int, sink: Sink,
                                                  browser: aiohttp.ClientSession) -> None:
    invited = await org.owner.mutate("organizations.members.invite", {"email": "newcomer@example.test"})
    assert invited.status == 200, invited.body
    [body] = await mails(sink, "newcomer@example.test", 1)
    link = re.search(r"(http://\S+/invite\?token=)(\S+)", body)
    assert link and link[1] == f"http://{org.slug}.localhost:{port}/invite?token=", body
    async with browser.get(link[0]) as page:
        text = await page.text()
        assert page.status == 200 and page.content_type == "text/html", text
    assert "newcomer@example.test" in text and "member" in text
    # It leads to the app's screen that accepts, carrying the same token; opening that screen accepts nothing.
    screen = re.search(r"<a class='button' href='([^']+)'>Accept the invitation</a>", text)
    assert screen and screen[1] == f"/invite/accept?token={link[2]}", text
    async with browser.get(f"http://{org.slug}.localhost:{port}{screen[1]}") as app:
        assert app.status == 200 and 'id="app"' in await app.text()
    async with browser.get(link[0]) as again:
        assert again.status == 200  # still pending
    # What the page says a script sends accepts the invitation, at the address it prints.
    accept = re.search(r"-d '([^']+)' (\S+)</pre>", text.replace("&quot;", '"').replace("&#x27;", "'"))
    assert accept and accept[2] == f"http://{org.slug}.localhost:{port}/api/v1/invitations/accept", text
    async with browser.post(accept[2], json={"token": link[2], "name": "New Comer", "password": "a long password"}
                            ) as accepted:
        assert accepted.status == 200, await accepted.text()
    async with browser.get(link[0]) as spent:
        assert spent.status == 404  # accepted: the link no longer invites


@pytest.mark.workers("mail-sender")
async def test_an_approval_emails_decide_link_opens_its_page(org: Org, port: int, sink: Sink,
                                                             browser: aiohttp.ClientSession) -> None:
    form = await make_form(org)
    approver_id, _ = await org.add_user("member")
    await make_flow(form, one_step([approver_id]))
    await submit(form, {"title": "Desk", "amount": 10})
    [body] = await mails(sink, await email_of(form, approver_id), 1)
    approve = re.search(r"Approve: (\S+)", body)
    assert approve and approve[1].startswith(f"http://{org.slug}.localhost:{port}/api/approvals/decide?token="), body
    async with browser.get(approve[1]) as page:
        text = await page.text()
        assert page.status == 200 and "Approval requested: Purchase request" in text, text


@pytest.mark.usefixtures("provider_installed")
async def test_single_sign_on_sends_the_provider_back_to_the_public_url(public_client: Any, port: int,
                                                                        browser: aiohttp.ClientSession) -> None:
    org = await make_org(public_client, plan="enterprise")
    callback = f"http://{org.slug}.localhost:{port}/api/v1/auth/sso/callback"
    async with oidc_provider.running([callback]) as provider:
        await configure(org, provider)
        async with browser.get(f"http://{org.host}:{port}/api/v1/auth/sso/start", allow_redirects=False) as started:
            assert started.status == 302, await started.text()
            state = started.cookies[STATE_COOKIE].value
            location = started.headers["Location"]
        assert parse_qs(urlsplit(location).query)["redirect_uri"] == [callback]
        _, member = await org.add_user("member")  # the owner signs in with a password only
        back = await sign_in_at_provider(location, (await member.query("auth.me")).data["email"], callback)
        async with browser.get(back, headers={"Cookie": f"{STATE_COOKIE}={state}"},
                               allow_redirects=False) as signed_in:
            assert signed_in.status == 302, await signed_in.text()
            assert "authjs.session-token" in signed_in.cookies
