"""Device cookies (actors/identity/device_cookies.py, OWASP's "device cookies"): a browser that signed in to an
account carries a signed cookie, and its sign-in attempts are throttled on their own, so a stranger's wrong
passwords never delay the owner there; unknown devices (no cookie, a forged one, another account's) keep the
account's backoff. Time is the test's ManualClock."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from aiohttp import DummyCookieJar
from authlib.common.security import generate_token

from actors.identity.accounts import create_user
from actors.identity.device_cookies import DEVICE_COOKIE
from actors.identity.passwords import hash_secret
from actors.runtime.clock import ManualClock
from server.app import create_app
from tests.conftest import server_settings
from tests.harness import PASSWORD, Api, Reply, make_org
from tests.integration.oauth.flow import AUTHORIZE_URL, Browser, csrf_of, oauth_client, register
from web.keys import NODE

LOGIN = "/api/v1/auth/login"


async def _login(api: Api, email: str, password: str, device: str | None = None) -> Reply:
    headers = {"Cookie": f"{DEVICE_COOKIE}={device}"} if device is not None else None
    return await api.rest("POST", LOGIN, {"email": email, "password": password}, headers=headers)


def _device_cookie(reply: Reply) -> str:
    """The Set-Cookie line of the device cookie a successful sign-in set."""
    [line] = [line for line in reply.headers.getall("Set-Cookie") if line.startswith(f"{DEVICE_COOKIE}=")]
    return str(line)


def _device(reply: Reply) -> str:
    return _device_cookie(reply).split(";", 1)[0].split("=", 1)[1]


async def _lock_the_account(api: Api, email: str, clock: ManualClock) -> int:
    """A stranger's wrong passwords (no device cookie) until the account's delay reaches its 15-minute cap,
    then a burst of tries inside the lock; how many attempts were made."""
    attempts = 0
    for _ in range(5):
        assert (await _login(api, email, "a guess")).status == 401
        attempts += 1
    delay = 0
    while delay < 900:
        refused = await _login(api, email, "a guess")
        assert refused.status == 429
        delay = int(refused.headers["Retry-After"])
        clock.advance(delay)
        assert (await _login(api, email, "a guess")).status == 401  # counted: the next delay doubles
        attempts += 2
    for _ in range(150):
        assert (await _login(api, email, "a guess")).status == 429
        attempts += 1
    return attempts


async def test_a_strangers_guesses_never_delay_the_owner_on_a_known_browser(clocked_client: Any,
                                                                            clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    signed_in = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert signed_in.status == 200
    # The session cookie first (clients read that one), then the device cookie: long-lived and out of scripts'
    # reach.
    assert signed_in.headers.getall("Set-Cookie")[0].startswith("authjs.session-token=")
    cookie = _device_cookie(signed_in)
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=31536000" in cookie
    assert "Path=/" in cookie and "Secure" not in cookie  # development serves plain http
    owners_browser = _device(signed_in)

    assert await _lock_the_account(org.anonymous, org.owner_email, clock) >= 170

    at_once = await _login(org.anonymous, org.owner_email, PASSWORD, owners_browser)
    assert at_once.status == 200 and at_once.data["email"] == org.owner_email
    session = at_once.headers.getall("Set-Cookie")[0].split(";", 1)[0].split("=", 1)[1]
    assert (await org.anonymous.with_session(session).query("auth.me")).status == 200
    assert _device(at_once) != owners_browser  # a fresh nonce with each sign-in
    # Without the cookie the right password still waits: the browser is unknown.
    cookieless = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert cookieless.status == 429 and "Set-Cookie" not in cookieless.headers


async def test_a_forged_or_another_accounts_device_cookie_is_no_cookie(clocked_client: Any,
                                                                       clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    owners_browser = _device(await _login(org.anonymous, org.owner_email, PASSWORD))
    member_email = f"member-{org.slug}@{org.slug}.test"
    await create_user(clocked_client.server.app[NODE], org_slug=org.slug, email=member_email, password=PASSWORD,
                      name="Mo Member")
    members_browser = _device(await _login(org.anonymous, member_email, PASSWORD))
    await _lock_the_account(org.anonymous, org.owner_email, clock)

    nonce, signature = owners_browser.split(".")
    forged = [f"{nonce}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}",  # the signature altered
              f"{members_browser.split('.')[0]}.{signature}",  # another nonce under the owner's signature
              members_browser,  # valid, but for another account
              "no-signature", ".", ""]
    for cookie in forged:
        refused = await _login(org.anonymous, org.owner_email, PASSWORD, cookie)
        assert refused.status == 429, cookie
    # The same e-mail in another case is the same account: its cookie counts.
    assert (await _login(org.anonymous, org.owner_email.upper(), PASSWORD, owners_browser)).status == 200
    # The member's own browser is not affected by the owner's lock either.
    assert (await _login(org.anonymous, member_email, PASSWORD, members_browser)).status == 200


async def test_failures_on_one_browser_lock_that_browser_only(clocked_client: Any, clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    laptop = _device(await _login(org.anonymous, org.owner_email, PASSWORD))
    phone = _device(await _login(org.anonymous, org.owner_email, PASSWORD))
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "typo", laptop)).status == 401
    locked = await _login(org.anonymous, org.owner_email, PASSWORD, laptop)
    assert locked.status == 429 and locked.headers["Retry-After"] == "2"
    assert "browser" in locked.error["message"]
    # The phone and an unknown browser are not delayed by the laptop's failures.
    assert (await _login(org.anonymous, org.owner_email, PASSWORD, phone)).status == 200
    assert (await _login(org.anonymous, org.owner_email, PASSWORD)).status == 200
    clock.advance(2)
    assert (await _login(org.anonymous, org.owner_email, PASSWORD, laptop)).status == 200


async def test_sign_up_makes_the_browser_known(clocked_client: Any, clock: ManualClock) -> None:
    anonymous = Api(clocked_client, "localhost")
    email = "founder@known-browser.test"
    created = await anonymous.rest("POST", "/api/v1/auth/signup", {
        "email": email, "password": PASSWORD, "name": "Fay Founder", "organizationName": "Known Browser",
        "organizationSlug": f"known-{secrets.token_hex(4)}"})
    assert created.status == 201, created.body
    browser = _device(created)
    await _lock_the_account(anonymous, email, clock)
    assert (await _login(anonymous, email, PASSWORD, browser)).status == 200


async def test_in_production_the_cookie_is_secure_and_signed_under_the_configured_key(
        aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest, clock: ManualClock) -> None:
    settings = server_settings(request, OBEYA_ENV="production", OBEYA_BILLING="sandbox", OBEYA_BCRYPT_ROUNDS="10",
                               OBEYA_SECRET_KEY=secrets.token_urlsafe(32))
    client = await aiohttp_client(create_app(settings, database_url, clock=clock), cookie_jar=DummyCookieJar())
    org = await make_org(client)
    signed_in = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert signed_in.status == 200 and "Secure" in _device_cookie(signed_in)
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "a guess")).status == 401
    assert (await _login(org.anonymous, org.owner_email, PASSWORD)).status == 429
    assert (await _login(org.anonymous, org.owner_email, PASSWORD, _device(signed_in))).status == 200


async def test_a_password_change_revokes_the_accounts_device_cookies(clocked_client: Any,
                                                                     clock: ManualClock) -> None:
    """No procedure changes a password yet: the new hash is stored as a change would store it. A browser known
    under the old password is an unknown one now, and signing in with the new password makes it known again."""
    org = await make_org(clocked_client)
    known = _device(await _login(org.anonymous, org.owner_email, PASSWORD))
    new_password = PASSWORD + " changed"
    await clocked_client.server.app[NODE].pool.execute(
        "UPDATE users SET password_hash = $1 WHERE lower(email) = lower($2)",
        await hash_secret(new_password, rounds=4), org.owner_email)
    await _lock_the_account(org.anonymous, org.owner_email, clock)
    assert (await _login(org.anonymous, org.owner_email, new_password, known)).status == 429
    clock.advance(900)
    renewed = await _login(org.anonymous, org.owner_email, new_password, known)
    assert renewed.status == 200
    await _lock_the_account(org.anonymous, org.owner_email, clock)
    assert (await _login(org.anonymous, org.owner_email, new_password, _device(renewed))).status == 200


async def test_a_locked_account_signs_in_on_the_oauth_page_of_a_browser_known_there(clocked_client: Any,
                                                                                    clock: ManualClock) -> None:
    """The OAuth sign-in page is on the auth host, and a browser sends a cookie only to the host that set it:
    that page reads and sets its own device cookie."""
    org = await make_org(clocked_client)
    url, _ = oauth_client(clocked_client, await register(org)).create_authorization_url(
        AUTHORIZE_URL, code_verifier=generate_token(48))
    first = Browser(clocked_client)
    await first.sign_in(url, org.owner_email)
    assert DEVICE_COOKIE in first.cookies
    await _lock_the_account(org.anonymous, org.owner_email, clock)

    known = Browser(clocked_client, cookies={DEVICE_COOKIE: first.cookies[DEVICE_COOKIE]})  # signed out since
    consent = await known.sign_in(url, org.owner_email)
    assert "Approve" in consent.text
    unknown = Browser(clocked_client)
    page = await unknown.open("GET", url)
    refused = await unknown.open("POST", url, {"csrf": csrf_of(page.text), "action": "signin",
                                               "email": org.owner_email, "password": PASSWORD})
    assert refused.status == 429 and "Too many attempts" in refused.text
