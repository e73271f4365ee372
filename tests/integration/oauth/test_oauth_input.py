"""Odd form input on the OAuth endpoints (RFC 6749 3.1: no parameter more than once): a repeated parameter or a
body that is not UTF-8 is invalid_request 400 on /oauth/token and /oauth/revoke and a 400 page on the authorize
form, never a 500 and never the first of two values silently taken."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.oauth.flow import AUTH_HOST, AUTHORIZE_URL, Browser, csrf_of, oauth_client, post_form, register

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
ODD_BODIES = [
    pytest.param(b"grant_type=refresh_token&grant_type=authorization_code&code=x&refresh_token=y", id="repeated"),
    pytest.param(b"grant_type=authorization_code&code=%FF%FE", id="percent-encoded-latin1"),
    pytest.param(b"grant_type=authorization_code&code=\xff\xfe", id="raw-latin1"),
]


@pytest.mark.parametrize("body", ODD_BODIES)
async def test_token_endpoint_refuses_odd_bodies(client: TestClient, body: bytes) -> None:
    org = await make_org(client)
    app = await register(org)
    response = await post_form(client, "/oauth/token", {}, content=body, headers=FORM,
                               auth=(app["clientId"], app["clientSecret"]))
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_request"


async def test_repeated_client_id_is_invalid_request(client: TestClient) -> None:
    org = await make_org(client)
    app = await register(org)
    body = f"grant_type=authorization_code&code=x&client_id={app['clientId']}&client_id=oac_other".encode()
    response = await post_form(client, "/oauth/token", {}, content=body, headers=FORM)
    assert response.status_code == 400 and response.json()["error"] == "invalid_request", response.text


@pytest.mark.parametrize("body", [pytest.param(b"token=a&token=b", id="repeated"),
                                  pytest.param(b"token=%FF", id="percent-encoded-latin1"),
                                  pytest.param(b"token=\xff", id="raw-latin1")])
async def test_revocation_refuses_odd_bodies(client: TestClient, body: bytes) -> None:
    org = await make_org(client)
    app = await register(org)
    response = await post_form(client, "/oauth/revoke", {}, content=body, headers=FORM,
                               auth=(app["clientId"], app["clientSecret"]))
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_request"


async def _post_raw(client: TestClient, browser: Browser, url: str, body: bytes) -> tuple[int, str]:
    path = url.split(AUTH_HOST, 1)[1]
    cookies = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())
    async with client.request("POST", path, data=body, allow_redirects=False,
                              headers={"Host": AUTH_HOST, "Cookie": cookies, **FORM}) as response:
        return response.status, await response.text()


async def test_authorize_form_refuses_odd_bodies(client: TestClient) -> None:
    org = await make_org(client)
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43)
    browser = Browser(client)
    consent = await browser.sign_in(url, org.owner_email)
    csrf = csrf_of(consent.text).encode()
    organization = org.id.encode()
    for body in (b"csrf=" + csrf + b"&action=deny&action=approve&organization=" + organization,
                 b"csrf=" + csrf + b"&action=approve&organization=" + organization + b"&organization=x",
                 b"csrf=" + csrf + b"&action=approve&organization=%FF",
                 b"csrf=" + csrf + b"&action=approve&organization=\xff"):
        status, text = await _post_raw(client, browser, url, body)
        assert status == 400, (body, status, text)
    forged, text = await _post_raw(client, browser, url, b"csrf=%C3%A9t%C3%A9&action=approve&organization="
                                                         + organization)
    assert forged == 403, text  # a CSRF value that is not ASCII is a wrong one, not a 500
    # The same form, well formed, still goes through.
    assert (await browser.decide(url, consent)).status == 302


async def test_authorize_query_with_a_repeated_parameter_is_refused(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    browser = Browser(client)
    twice = await browser.open("GET", f"{AUTHORIZE_URL}?client_id={app['clientId']}&response_type=code"
                                      f"&scope=read&scope=write&state=s1")
    assert twice.status == 302 and twice.query()["error"] == "invalid_request" and twice.query()["state"] == "s1"
    clients = await browser.open("GET", f"{AUTHORIZE_URL}?client_id={app['clientId']}&client_id=oac_x"
                                        "&response_type=code")
    assert clients.status == 400 and clients.location is None
