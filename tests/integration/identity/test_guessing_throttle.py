"""The guessing throttle (actors/identity/throttle.py): per-account backoff on password login, whatever the
source address, capped and reset by a right password. Invalid bearer credentials and session tokens are not
throttled per address: a site shares one, and a fresh key or session from it works whatever others sent.
Time is the test's ManualClock."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from actors.kernel import sealing
from actors.runtime.clock import ManualClock
from server.app import create_app
from tests.conftest import server_settings
from tests.harness import PASSWORD, Api, Org, make_org
from web.keys import NODE

TEST_REMOTE = "X-Test-Remote"  # the client address a request pretends to come from (test middleware below)


@web.middleware
async def _remote_from_header(request: web.Request,
                              handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    remote = request.headers.get(TEST_REMOTE)
    return await handler(request.clone(remote=remote) if remote else request)


async def _server(request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock,
                  **environ: str) -> Any:
    """A server on the test's clock whose requests may name their client address."""
    app = create_app(server_settings(request, **environ), database_url, clock=clock)
    app.middlewares.insert(0, _remote_from_header)
    return await aiohttp_client(app, cookie_jar=aiohttp.DummyCookieJar())


def _from(api: Api, address: str) -> Api:
    return Api(api.client, api.host, api.session, api.bearer, {TEST_REMOTE: address})


async def _login(api: Api, email: str, password: str) -> Any:
    return await api.rest("POST", "/api/v1/auth/login", {"email": email, "password": password})


async def test_the_sixth_wrong_password_waits_and_a_right_one_after_the_delay_resets(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    org = await make_org(await _server(request, aiohttp_client, database_url, clock))
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "wrong password")).status == 401
    refused = await _login(org.anonymous, org.owner_email, "wrong password")
    assert refused.status == 429 and refused.error["code"] == "TOO_MANY_REQUESTS"
    assert refused.headers["Retry-After"] == "2"
    # Inside the delay the right password is not even checked: the throttle is no password oracle.
    right_too_soon = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert right_too_soon.status == 429 and "Set-Cookie" not in right_too_soon.headers
    clock.advance(2)
    assert (await _login(org.anonymous, org.owner_email, PASSWORD)).status == 200
    # The success forgot the failures: five free ones again, then the shortest delay.
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "wrong password")).status == 401
    again = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert again.status == 429 and again.headers["Retry-After"] == "2"


async def test_failures_from_ten_addresses_count_toward_one_account(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    org = await make_org(await _server(request, aiohttp_client, database_url, clock))
    statuses = [(await _login(_from(org.anonymous, f"198.51.100.{n}"), org.owner_email.upper(), "guess")).status
                for n in range(1, 11)]
    assert statuses == [401] * 5 + [429] * 5
    # Another account is not affected, nor is an unknown e-mail told apart from a registered one.
    _, member = await org.add_user("member")
    unknown = f"nobody-{secrets.token_hex(4)}@example.test"
    unknown_statuses = [(await _login(_from(org.anonymous, f"198.51.100.{n}"), unknown, "guess")).status
                        for n in range(1, 7)]
    assert unknown_statuses == [401] * 5 + [429]
    assert (await member.query("auth.me")).status == 200


async def test_passwords_guessed_through_an_invitation_count_toward_the_account(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    """Accepting an invitation as an existing account checks its password: a refusal leaves the invitation
    pending, so without the account's throttle one token would be an unthrottled password oracle."""
    client = await _server(request, aiohttp_client, database_url, clock)
    org, other = await make_org(client), await make_org(client)
    assert (await org.owner.mutate("organizations.members.invite", {"email": other.owner_email})).status == 200
    pool = client.server.app[NODE].pool
    sealed = await pool.fetchval("SELECT sealed_body FROM emails WHERE recipient = $1", other.owner_email)
    token = re.search(r"Invitation token: (\S+)", await sealing.open_sealed(pool, sealed, None))
    assert token is not None

    async def accept(password: str) -> Any:
        return await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token.group(1), "name": "Guess", "password": password})

    assert [(await accept(f"wrong password {n}")).status for n in range(5)] == [401] * 5
    refused = await accept(PASSWORD)
    assert refused.status == 429 and refused.headers["Retry-After"] == "2"
    # One account, one count: login waits too, and the right password after the delay joins.
    assert (await _login(other.anonymous, other.owner_email, PASSWORD)).status == 429
    clock.advance(2)
    assert (await accept(PASSWORD)).status == 200


async def test_the_delay_doubles_up_to_its_cap_and_a_quiet_hour_forgets(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    org = await make_org(await _server(request, aiohttp_client, database_url, clock))
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "wrong")).status == 401
    delays = []
    for _ in range(12):
        refused = await _login(org.anonymous, org.owner_email, "wrong")
        assert refused.status == 429
        delay = int(refused.headers["Retry-After"])
        delays.append(delay)
        clock.advance(delay)
        assert (await _login(org.anonymous, org.owner_email, "wrong")).status == 401  # counted, lock longer
    assert delays[:9] == [2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert delays[9:] == [900, 900, 900]  # 15 minutes at most: the owner is never locked out for longer
    capped = await _login(org.anonymous, org.owner_email, PASSWORD)
    assert capped.status == 429 and int(capped.headers["Retry-After"]) <= 900
    clock.advance(900)
    assert (await _login(org.anonymous, org.owner_email, PASSWORD)).status == 200
    # Failures an hour old are forgotten even without a success.
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "wrong")).status == 401
    clock.advance(3601)
    for _ in range(5):
        assert (await _login(org.anonymous, org.owner_email, "wrong")).status == 401


async def test_invalid_credentials_from_one_address_never_refuse_a_valid_one_from_it(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    """A tablet still holding a revoked key, and a browser with stale session cookies, share the plant's
    address: every fresh key, token and session from that address works at once."""
    org: Org = await make_org(await _server(request, aiohttp_client, database_url, clock))
    address = f"203.0.113.{secrets.randbelow(250) + 1}"
    floor = _from(org.anonymous, address)
    for _ in range(30):
        assert (await floor.with_bearer("svc_pat_" + secrets.token_hex(20)).query("auth.me")).status == 401
        assert (await floor.with_bearer("svc_sk_live_" + secrets.token_hex(20)).query("auth.me")).status == 401
        assert (await floor.with_session(secrets.token_urlsafe(32)).query("auth.me")).status == 401
    # Never used before, so not verified on this node yet: checked against the database, not refused.
    made = await org.owner.mutate("auth.tokens.create", {"name": "script", "scopes": ["read"]})
    fresh_token = await floor.with_bearer(made.data["token"]).query("auth.me")
    assert fresh_token.status == 200 and fresh_token.data["email"] == org.owner_email
    key = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "tablet"})
    assert key.status == 201, key.body
    assert (await floor.with_bearer(key.data["key"]).query("auth.me")).status == 200
    signed_in = await _login(floor, org.owner_email, PASSWORD)
    assert signed_in.status == 200
    session = signed_in.headers.getall("Set-Cookie")[0].split(";", 1)[0].split("=", 1)[1]
    assert (await floor.with_session(session).query("auth.me")).status == 200
    # Still no throttle an hour of guessing later: each guess is refused 401, none locks the address.
    clock.advance(3600)
    assert (await floor.with_bearer("svc_pat_" + secrets.token_hex(20)).query("auth.me")).status == 401


async def test_made_up_credentials_from_one_address_are_stopped_while_its_verified_ones_go_on(
        request: pytest.FixtureRequest, aiohttp_client: Any, database_url: str, clock: ManualClock) -> None:
    """A fresh made-up bearer per request buys no fresh budget: past its address's refusals (here 120 a
    minute, twice one credential's), the address's unverified credentials wait; a key this node verified
    before goes on, and a new key from another address is checked as usual."""
    client = await _server(request, aiohttp_client, database_url, clock, OBEYA_ANONYMOUS_RATE_LIMIT="60")
    org: Org = await make_org(client)
    floor = _from(org.anonymous, f"203.0.113.{secrets.randbelow(250) + 1}")

    async def new_key(name: str) -> str:
        made = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": name})
        assert made.status == 201, made.body
        return str(made.data["key"])

    tablet = floor.with_bearer(await new_key("tablet"))
    assert (await tablet.query("auth.me")).status == 200
    sprayed = [await floor.with_bearer("svc_sk_live_" + secrets.token_hex(20)).query("auth.me") for _ in range(130)]
    assert [reply.status for reply in sprayed] == [401] * 120 + [429] * 10
    assert "Retry-After" in sprayed[-1].headers
    assert [(await tablet.query("auth.me")).status for _ in range(5)] == [200] * 5
    elsewhere = _from(org.anonymous, "198.51.100.7").with_bearer(await new_key("office"))
    assert (await elsewhere.query("auth.me")).status == 200
    # A new key from the spraying address waits out the minute like the spray, then works.
    late = floor.with_bearer(await new_key("late tablet"))
    waiting = await late.query("auth.me")
    assert waiting.status == 429
    clock.advance(int(waiting.headers["Retry-After"]))
    assert (await late.query("auth.me")).status == 200
