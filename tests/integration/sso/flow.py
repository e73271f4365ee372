"""Driving a single sign-on the way a browser does, against the real server and a real OpenID provider
(tests/clients/oidc_provider.py): start on the organization's host, the provider's login and consent forms,
the callback."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import aiohttp

from server.config import DEFAULT_PORT
from tests.clients.oidc_provider import OidcProvider
from tests.harness import Api, Org, Reply
from web.routes_sso import STATE_COOKIE

_FORM = re.compile(r'<form[^>]*action="([^"]+)"[^>]*method="post">\s*<input type="hidden" name="prompt" '
                   r'value="(\w+)"/>')


async def configure(org: Org, provider: OidcProvider, *, domains: list[str] | None = None,
                    enforce: bool = False) -> None:
    reply = await org.owner.mutate("sso.updateConfig", {
        "issuer": provider.issuer, "clientId": provider.client_id, "clientSecret": provider.client_secret,
        "enforce": enforce, "allowedDomains": domains or []})
    assert reply.status == 200, reply.body


def callback_uri(org: Org) -> str:
    return f"http://{org.host}:{DEFAULT_PORT}/api/v1/auth/sso/callback"


@dataclass
class Started:
    location: str   # the provider's authorization URL
    state: str      # the browser-binding cookie the server set


async def start(org: Org, return_to: str | None = None) -> Started:
    client = org.anonymous.client
    params = {"returnTo": return_to} if return_to is not None else {}
    async with client.get("/api/v1/auth/sso/start", params=params, headers={"Host": org.host},
                          allow_redirects=False) as response:
        assert response.status == 302, await response.text()
        cookie = response.cookies[STATE_COOKIE]
        assert cookie["httponly"] and cookie["path"] == "/api/v1/auth/sso"
        return Started(response.headers["Location"], cookie.value)


async def sign_in_at_provider(location: str, email: str, back_to: str) -> str:
    """Follow the provider's redirects and fill its login and consent forms as `email`; the URL it finally
    sends the browser to (under `back_to`)."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
        url, form = location, None
        for _ in range(12):
            if form is None:
                request = browser.get(url, allow_redirects=False)
            else:
                request = browser.post(url, data=form, allow_redirects=False)
            async with request as response:
                if response.status in (302, 303):
                    url, form = urljoin(url, response.headers["Location"]), None
                    if url.startswith(back_to):
                        return url
                    continue
                page = await response.text()
                assert response.status == 200, page
            action, prompt = _FORM.search(page).groups()  # type: ignore[union-attr]
            url = urljoin(url, action)
            form = {"prompt": prompt, "login": email, "password": "any"} if prompt == "login" else {"prompt": prompt}
    raise AssertionError("the provider never sent the browser back")


async def callback(org: Org, url: str, state: str | None) -> Reply:
    parts = urlsplit(url)
    headers = {"Host": org.host}
    if state is not None:
        headers["Cookie"] = f"{STATE_COOKIE}={state}"
    async with org.anonymous.client.get(f"{parts.path}?{parts.query}", headers=headers,
                                        allow_redirects=False) as response:
        return Reply(response.status, await response.text(), response.headers)


def session_of(reply: Reply) -> str:
    cookies = [c for c in reply.headers.getall("Set-Cookie") if c.startswith("authjs.session-token=")]
    assert len(cookies) == 1, reply.headers
    return cookies[0].split(";", 1)[0].split("=", 1)[1]


async def sign_in(org: Org, email: str, return_to: str | None = None) -> tuple[Reply, Api | None]:
    """The whole sign-in; the callback's answer and, when it signed in, the browser's Api."""
    started = await start(org, return_to)
    back = await sign_in_at_provider(started.location, email, callback_uri(org))
    reply = await callback(org, back, started.state)
    if reply.status != 302:
        return reply, None
    return reply, org.anonymous.with_session(session_of(reply))


def new_email(domain: str) -> str:
    return f"sso-{secrets.token_hex(4)}@{domain}"


