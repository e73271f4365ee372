"""Rate limits at the edge: per credential per minute by plan, headers on every `/api/`
response in both styles, 429 with Retry-After when exceeded.

Every server here counts on a clock that stands still unless a test moves it: on the real clock a test that spends
hundreds of requests on a busy machine may see the minute turn midway, and the window's counts start again."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from actors.identity.passwords import hash_secret
from actors.runtime.clock import ManualClock
from server.app import create_app
from server.config import Settings
from tests.conftest import server_settings
from tests.harness import Api, Org, Reply, login, make_org
from tests.integration.boards.conftest import make_board
from tests.integration.files.conftest import insert_form
from web.keys import NODE
from web.rate_limit import form_submission_limit

LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
FORM_SUBMISSION_LIMIT = form_submission_limit(600)  # of one form and address, at the default anonymous limit


def limits(reply: Reply) -> tuple[int, int, int]:
    limit, remaining, reset = (int(reply.headers[name]) for name in LIMIT_HEADERS)
    return limit, remaining, reset


@pytest.fixture
def client(clocked_client: Any) -> Any:
    return clocked_client


async def spend(api: Api, count: int) -> list[Reply]:
    return [await api.rest("GET", "/api/v1/auth/me") for _ in range(count)]


async def add_api_key(org: Org) -> str:
    """An API key of the owner, stored as the identity service expects to find it."""
    prefix = secrets.token_hex(4)
    token = f"svc_sk_live_{prefix}{secrets.token_hex(16)}"
    node = org.anonymous.client.app[NODE]
    await node.pool.execute(
        """INSERT INTO credentials (id, kind, organization_id, user_id, name, prefix, secret_hash, scopes)
           VALUES ($1, 'api_key', $2, $3, 'ci', $4, $5, '{read,write}')""",
        f"key_{secrets.token_hex(10)}", org.id, org.owner_id, prefix, await hash_secret(token, rounds=4))
    return token


async def test_free_plan_is_refused_after_60_requests_in_both_styles(client: Any) -> None:
    org = await make_org(client, plan="free")
    replies = await spend(org.owner, 60)
    assert all(reply.status == 200 for reply in replies)
    assert [limits(reply)[1] for reply in replies] == list(range(59, -1, -1))

    rest = await org.owner.rest("GET", "/api/v1/auth/me")
    assert rest.status == 429
    assert rest.error["code"] == "TOO_MANY_REQUESTS" and rest.error["status"] == 429
    limit, remaining, reset = limits(rest)
    assert (limit, remaining) == (60, 0)
    assert 1 <= int(rest.headers["Retry-After"]) <= 60
    assert reset - 60 <= time.time() <= reset

    rpc = await org.owner.query("auth.me")
    assert rpc.status == 429
    assert rpc.error["code"] == -32029
    assert rpc.error["data"]["code"] == "TOO_MANY_REQUESTS" and rpc.error["data"]["httpStatus"] == 429
    assert limits(rpc)[:2] == (60, 0) and "Retry-After" in rpc.headers


async def test_headers_count_down_with_the_plan_limit_and_a_reset_within_a_minute(org: Org) -> None:
    first, second = await spend(org.owner, 2)
    rpc = await org.owner.query("auth.me")
    assert [limits(reply)[:2] for reply in (first, second, rpc)] == [(1000, 999), (1000, 998), (1000, 997)]
    reset = limits(first)[2]
    assert time.time() < reset <= time.time() + 60
    assert reset % 60 == 0 and limits(rpc)[2] in (reset, reset + 60)
    assert "Retry-After" not in first.headers


async def test_headers_are_on_error_responses_too(org: Org) -> None:
    replies = [
        await org.owner.query("no.such.procedure"),
        await org.owner.rest("GET", "/api/v1/no-such-path"),
        await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": ""}),
        await org.anonymous.query("auth.me"),
        await org.anonymous.with_bearer("svc_sk_live_0000000000000000").query("auth.me"),
        await org.owner.on_host("no-such-org.localhost").rest("GET", "/api/v1/auth/me"),
    ]
    assert [reply.status for reply in replies] == [404, 404, 422, 401, 401, 404]
    for reply in replies:
        assert all(name in reply.headers for name in LIMIT_HEADERS), reply


async def test_each_user_has_a_bucket_and_a_session_counts_per_user(client: Any) -> None:
    org = await make_org(client, plan="free")
    second_session = await login(org.anonymous, org.owner_email)
    await spend(org.owner, 30)
    await spend(second_session, 30)
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).status == 429
    assert (await second_session.query("auth.me")).status == 429

    _, member = await org.add_user("member")
    reply = await member.rest("GET", "/api/v1/auth/me")
    assert reply.status == 200 and limits(reply)[:2] == (60, 59)


async def test_an_api_key_has_a_bucket_of_its_own(org: Org) -> None:
    await spend(org.owner, 5)
    key = org.owner.with_bearer(await add_api_key(org))
    reply = await key.query("auth.me")
    assert reply.status == 200 and limits(reply)[:2] == (1000, 999)
    assert limits(await org.owner.query("auth.me"))[:2] == (1000, 994)


async def _server(aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest, **environ: str) -> Any:
    return await aiohttp_client(create_app(server_settings(request, **environ), database_url,
                                           clock=ManualClock(datetime.now(UTC))),
                                cookie_jar=aiohttp.DummyCookieJar())


async def test_unauthenticated_requests_are_limited_per_client_address(
        aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest) -> None:
    client = await _server(aiohttp_client, database_url, request, OBEYA_ANONYMOUS_RATE_LIMIT="60")
    org = await make_org(client, plan="enterprise")  # its login was the address's first request
    replies = [await org.anonymous.query("auth.checkEmail", {"email": f"n{i}@x.test"}) for i in range(59)]
    assert all(reply.status == 200 for reply in replies)
    assert limits(replies[0])[:2] == (60, 58)
    refused = await org.anonymous.rest("GET", "/api/v1/auth/check-email", params={"email": "z@x.test"})
    assert refused.status == 429 and refused.error["code"] == "TOO_MANY_REQUESTS"
    # A credential is no anonymous request: a guessed one is checked and refused on its own account (its
    # own bucket, at the smallest plan's rate), and a valid one from the same address is served.
    guess = await org.anonymous.with_bearer("svc_sk_live_0000000000000000").query("auth.me")
    assert guess.status == 401 and limits(guess)[:2] == (60, 59)
    # The enterprise owner's own bucket is untouched.
    assert limits(await org.owner.query("auth.me"))[:2] == (5000, 4999)


async def test_the_anonymous_limit_fits_a_site_by_default(client: Any) -> None:
    """600 a minute per address: the 61st anonymous request of a minute (the free plan's old limit) passes."""
    org = await make_org(client)
    replies = [await org.anonymous.query("auth.checkEmail", {"email": f"n{i}@x.test"}) for i in range(61)]
    assert [reply.status for reply in replies] == [200] * 61
    assert limits(replies[-1])[:2] == (600, 600 - 62)  # the owner's login was the address's first request


async def test_a_refused_credential_spends_its_own_budget_never_its_addresss(
        aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest) -> None:
    """A stale tablet hammering with a revoked key is refused 401, then 429 once its own minute is spent;
    its neighbours (anonymous, or with a key of their own, from the same address) never notice."""
    client = await _server(aiohttp_client, database_url, request, OBEYA_ANONYMOUS_RATE_LIMIT="60")
    org = await make_org(client)
    stale = org.anonymous.with_bearer(await add_api_key(org))
    assert (await stale.query("auth.me")).status == 200
    revoked = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{await _key_id(org)}/revoke", {})
    assert revoked.status == 200, revoked.body
    statuses = [(await stale.query("auth.me")).status for _ in range(70)]
    assert statuses == [401] * 60 + [429] * 10
    spent = await stale.query("auth.me")
    assert spent.status == 429 and limits(spent)[:2] == (60, 0) and "Retry-After" in spent.headers
    anonymous = await org.anonymous.query("auth.checkEmail", {"email": "free@x.test"})
    assert anonymous.status == 200 and limits(anonymous)[:2] == (60, 58)  # the owner's login, and this one
    fresh = org.anonymous.with_bearer(await add_api_key(org))
    assert (await fresh.query("auth.me")).status == 200


async def _key_id(org: Org) -> str:
    listed = await org.owner.rest("GET", "/api/v1/auth/api-keys")
    assert listed.status == 200, listed.body
    [key] = listed.data
    return str(key["id"])


async def test_public_submissions_are_limited_per_form_and_address(
        client: Any, request: pytest.FixtureRequest) -> None:
    org = await make_org(client)
    board = await make_board(org)
    crowded, other = await insert_form(org, board.id), await insert_form(org, board.id)
    path = f"/api/forms/{crowded['id']}/submit"
    replies = [await org.anonymous.rest("POST", path, {"title": f"report {n}"}) for n in range(FORM_SUBMISSION_LIMIT)]
    assert {reply.status for reply in replies} == {200}
    # The headers tell the bucket nearest its limit: this form's, from this address.
    assert limits(replies[-1])[:2] == (FORM_SUBMISSION_LIMIT, 0)
    refused = await org.anonymous.rest("POST", path, {"title": "one too many"})
    assert refused.status == 429 and refused.error["code"] == "TOO_MANY_REQUESTS" and "Retry-After" in refused.headers
    # The address's other forms and pages go on within the address's own limit.
    elsewhere = await org.anonymous.rest("POST", f"/api/forms/{other['id']}/submit", {"title": "another form"})
    assert elsewhere.status == 200 and limits(elsewhere)[:2] == (600, 600 - FORM_SUBMISSION_LIMIT - 3)
    page = await org.anonymous.rest("GET", f"/api/forms/{crowded['id']}")
    assert page.status == 200 and limits(page)[:2] == (600, 600 - FORM_SUBMISSION_LIMIT - 4)


async def test_a_forms_id_and_slug_share_its_bucket_sized_from_the_anonymous_limit(
        aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest) -> None:
    client = await _server(aiohttp_client, database_url, request, OBEYA_ANONYMOUS_RATE_LIMIT="40")
    org = await make_org(client)
    board = await make_board(org)
    form, other = await insert_form(org, board.id), await insert_form(org, board.id)
    assert form_submission_limit(40) == 20
    statuses = [(await org.anonymous.rest("POST", f"/api/forms/{ref}/submit", {"title": f"report {n}"})).status
                for n, ref in enumerate([form["id"], form["slug"], form["slug"].upper()] * 7)]
    assert statuses == [200] * 20 + [429]
    elsewhere = await org.anonymous.rest("POST", f"/api/forms/{other['slug']}/submit", {"title": "another form"})
    assert elsewhere.status == 200 and limits(elsewhere)[:2] == (40, 40 - 23)  # the owner's login, 21, this one


async def test_the_window_resets_on_the_next_minute(aiohttp_client: Any, database_url: str,
                                                    settings: Any) -> None:
    clock = ManualClock(datetime.now(UTC))
    client = await aiohttp_client(create_app(settings, database_url, clock=clock),
                                  cookie_jar=aiohttp.DummyCookieJar())
    org = await make_org(client, plan="free")
    last = (await spend(org.owner, 60))[-1]
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).status == 429
    clock.advance(limits(last)[2] - clock.now().timestamp())
    again = await org.owner.rest("GET", "/api/v1/auth/me")
    assert again.status == 200
    assert limits(again) == (60, 59, limits(last)[2] + 60)


async def test_nodes_sharing_redis_count_together(aiohttp_client: Any, database_url: str,
                                                  redis_url: str) -> None:
    settings = Settings.from_env({"OBEYA_SERVICE_HOST": "localhost", "OBEYA_REDIS_URL": redis_url})
    clock = ManualClock(datetime.now(UTC))
    node_a, node_b = [await aiohttp_client(create_app(settings, database_url, clock=clock),
                                           cookie_jar=aiohttp.DummyCookieJar()) for _ in range(2)]
    org = await make_org(node_a, plan="free")
    on_b = Api(node_b, org.host, session=org.owner.session)
    await spend(org.owner, 30)
    replies = await spend(on_b, 30)
    assert limits(replies[-1])[:2] == (60, 0)
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).status == 429
