"""The parts of an OAuth flow the tests share: an app registered through oauthApps.create, a "browser" (the
test's aiohttp client, its own cookies, the auth host) that signs in and answers the consent page, and authlib's
AsyncOAuth2Client pointed at the real server's token and revocation endpoints."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from aiohttp.test_utils import TestClient
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client

from tests.harness import PASSWORD, Org

AUTH_HOST = "auth.localhost"
AUTHORIZE_URL = f"http://{AUTH_HOST}/oauth/authorize"
REDIRECT_URI = "https://client.example.com/callback"


async def register(org: Org, *, public: bool = False, scopes: tuple[str, ...] = ("read", "write")) -> dict[str, Any]:
    reply = await org.owner.mutate("oauthApps.create", {"name": "Line dashboard", "redirectUris": [REDIRECT_URI],
                                                        "scopes": list(scopes), "public": public})
    assert reply.status == 200, reply.body
    return dict(reply.data)


# The test server speaks plain HTTP on 127.0.0.1: no certificate store to load (70-140 ms per client, on the
# event loop under test).
NO_TLS = False

def oauth_client(client: TestClient, app: dict[str, Any], *, scope: str = "read write",
                 auth_method: str = "client_secret_basic") -> AsyncOAuth2Client:
    """authlib's client for `app`, talking to the test server as the auth host."""
    return AsyncOAuth2Client(client_id=app["clientId"], client_secret=app.get("clientSecret"), scope=scope,
                             redirect_uri=REDIRECT_URI, code_challenge_method="S256",
                             token_endpoint_auth_method="none" if app["public"] else auth_method,
                             revocation_endpoint_auth_method="none" if app["public"] else auth_method,
                             headers={"Host": AUTH_HOST}, verify=NO_TLS)


def endpoint(client: TestClient, path: str) -> str:
    return str(client.make_url(path))


def csrf_of(text: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', text)
    assert found is not None, text
    return found.group(1)


@dataclass
class Page:
    status: int
    location: str | None
    text: str
    policy: str = ""  # its Content-Security-Policy

    def query(self) -> dict[str, str]:
        assert self.location is not None, (self.status, self.text)
        return {key: values[0] for key, values in parse_qs(urlsplit(self.location).query).items()}


@dataclass
class Browser:
    """A browser on the auth host: keeps its cookies, does not follow redirects (the test looks at each)."""

    client: TestClient
    cookies: dict[str, str] = field(default_factory=dict)
    host: str = AUTH_HOST

    async def open(self, method: str, url: str, form: dict[str, str] | None = None) -> Page:
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = {"Host": self.host}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        async with self.client.request(method, path, data=form, headers=headers, allow_redirects=False) as response:
            for header in response.headers.getall("Set-Cookie", []):
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return Page(response.status, response.headers.get("Location"), await response.text(),
                        response.headers.get("Content-Security-Policy", ""))

    async def sign_in(self, url: str, email: str, password: str = PASSWORD) -> Page:
        """Open the authorize URL, sign in on its form and follow back to the consent page."""
        page = await self.open("GET", url)
        assert page.status == 200 and "Sign in" in page.text, page.text
        signed = await self.open("POST", url, {"csrf": csrf_of(page.text), "action": "signin", "email": email,
                                               "password": password})
        assert signed.status == 303, signed.text
        assert signed.location is not None
        consent = await self.open("GET", signed.location)
        assert consent.status == 200 and "Approve" in consent.text, consent.text
        return consent

    async def decide(self, url: str, consent: Page, action: str = "approve",
                     organization: str | None = None) -> Page:
        form = {"csrf": csrf_of(consent.text), "action": action}
        if organization is not None:
            form["organization"] = organization
        else:
            found = re.search(r'name="organization" value="([^"]+)"|<option value="([^"]+)"', consent.text)
            assert found is not None, consent.text
            form["organization"] = found.group(1) or found.group(2)
        return await self.open("POST", url, form)


async def authorize(client: TestClient, org: Org, oauth: AsyncOAuth2Client, *, email: str | None = None,
                    extra: dict[str, str] | None = None, pkce: bool = True) -> tuple[str, str]:
    """Run the browser part of the flow as `email` (the owner by default): (code, code_verifier); without `pkce`
    the request has no code_challenge (the verifier returned is one the client never committed to)."""
    verifier = generate_token(48)
    url, state = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier=verifier if pkce else None,
                                                **(extra or {}))
    params = await approve(client, url, email or org.owner_email)
    assert params["state"] == state
    return params["code"], verifier


async def fetch_tokens(client: TestClient, org: Org, oauth: AsyncOAuth2Client, *, email: str | None = None) -> Any:
    """The whole flow as `email` (the owner by default): browser, code, then authlib's token request."""
    code, verifier = await authorize(client, org, oauth, email=email)
    return await oauth.fetch_token(endpoint(client, "/oauth/token"), code=code, code_verifier=verifier)


async def approve(client: TestClient, url: str, email: str) -> dict[str, str]:
    """Sign in as `email` on the authorize `url`, approve, and return the query the app's redirect URI gets."""
    browser = Browser(client)
    back = await browser.decide(url, await browser.sign_in(url, email))
    assert back.status == 302 and back.location is not None and back.location.startswith(REDIRECT_URI), back
    return back.query()


async def post_form(client: TestClient, path: str, data: dict[str, str], *,
                    auth: tuple[str, str] | None = None, content: bytes | None = None,
                    headers: dict[str, str] | None = None) -> httpx.Response:
    """A raw form POST to the auth host (what the tests check that the OAuth client would not send)."""
    async with httpx.AsyncClient(headers={"Host": AUTH_HOST, **(headers or {})}, verify=NO_TLS) as raw:
        if content is not None:
            return await raw.post(endpoint(client, path), content=content, auth=auth)
        return await raw.post(endpoint(client, path), data=data, auth=auth)
