"""The OAuth 2.0 authorization-code flow with PKCE (RFC 6749, RFC 7636) driven by authlib's
AsyncOAuth2Client against the real server, the browser part by the test's own HTTP client."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from tests.harness import Api, make_org
from tests.integration.oauth.flow import (
    AUTHORIZE_URL,
    REDIRECT_URI,
    Browser,
    approve,
    authorize,
    csrf_of,
    endpoint,
    fetch_tokens,
    oauth_client,
    post_form,
    register,
)


async def test_full_flow_with_pkce(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        token = await fetch_tokens(clocked_client, org, oauth)
        assert token["access_token"].startswith("svc_oat_") and token["refresh_token"].startswith("svc_ort_")
        assert token["token_type"] == "bearer" and token["expires_in"] == 3600 and token["scope"] == "read write"
        api = Api(clocked_client, org.host).with_bearer(token["access_token"])
        me = await api.query("auth.me")
        assert me.status == 200, me.body
        assert me.data["id"] == org.owner_id
        created = await api.mutate("workspaces.create", {"name": "Via OAuth"})
        assert created.status == 200, created.body


async def test_secrets_never_reach_the_logs(clocked_client: Any, capfd: pytest.CaptureFixture[str]) -> None:
    """Client secret, code, verifier and tokens, accepted or refused, appear in no log line."""
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app, auth_method="client_secret_post") as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
        token = await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        renewed = await oauth.refresh_token(endpoint(clocked_client, "/oauth/token"),
                                            refresh_token=token["refresh_token"])
        await oauth.revoke_token(endpoint(clocked_client, "/oauth/revoke"), token=renewed["access_token"])
    refused = await post_form(clocked_client, "/oauth/token", {"grant_type": "authorization_code", "code": code,
                                                               "code_verifier": verifier},
                              auth=(app["clientId"], app["clientSecret"] + "x"))
    assert refused.status_code == 401
    assert (await Api(clocked_client, org.host).with_bearer(renewed["access_token"]).query("auth.me")).status == 401
    logged = "".join(capfd.readouterr())
    assert "/oauth/token" in logged  # the requests were logged
    for secret in (app["clientSecret"], code, verifier, token["access_token"], token["refresh_token"],
                   renewed["access_token"], renewed["refresh_token"]):
        assert secret not in logged


async def test_token_response_headers_and_post_auth(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app, auth_method="client_secret_post") as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
    response = await post_form(clocked_client, "/oauth/token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
        "client_id": app["clientId"], "client_secret": app["clientSecret"], "code_verifier": verifier})
    assert response.status_code == 200, response.text
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Pragma"] == "no-cache"
    assert set(response.json()) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}


async def test_public_app_needs_pkce(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org, public=True)
    async with oauth_client(clocked_client, app) as oauth:
        url, state = oauth.create_authorization_url(AUTHORIZE_URL)  # no code_verifier: no challenge
        page = await Browser(clocked_client).open("GET", url)
        assert page.status == 302 and page.query() == {
            "error": "invalid_request", "error_description": "a public client must send a PKCE code_challenge",
            "state": state}
        code, verifier = await authorize(clocked_client, org, oauth)
        with pytest.raises(OAuthError) as refused:
            await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code)
        assert refused.value.error == "invalid_request"
        token = await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        assert token["access_token"].startswith("svc_oat_")


async def test_wrong_verifier_is_invalid_grant(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
        with pytest.raises(OAuthError) as refused:
            await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code,
                                    code_verifier=verifier[::-1])
        assert refused.value.error == "invalid_grant"


async def test_verifier_for_a_code_without_challenge_is_invalid_grant(clocked_client: Any) -> None:
    """PKCE downgrade protection (RFC 7636, OAuth 2.1 4.1.3): a code issued without a code_challenge cannot be
    exchanged with a code_verifier; the same code still goes through without one."""
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        code, verifier = await authorize(clocked_client, org, oauth, pkce=False)
        with pytest.raises(OAuthError) as refused:
            await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        assert refused.value.error == "invalid_grant"
        token = await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code)
        assert token["access_token"].startswith("svc_oat_")


async def test_reused_code_revokes_its_tokens(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
        token = await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        api = Api(clocked_client, org.host).with_bearer(token["access_token"])
        assert (await api.query("auth.me")).status == 200
        with pytest.raises(OAuthError) as refused:
            await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        assert refused.value.error == "invalid_grant"
        assert (await api.query("auth.me")).status == 401
        with pytest.raises(OAuthError) as spent:
            await oauth.refresh_token(endpoint(clocked_client, "/oauth/token"), refresh_token=token["refresh_token"])
        assert spent.value.error == "invalid_grant"


async def test_code_expires_after_60_seconds(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
        clock.advance(61)
        with pytest.raises(OAuthError) as refused:
            await oauth.fetch_token(endpoint(clocked_client, "/oauth/token"), code=code, code_verifier=verifier)
        assert refused.value.error == "invalid_grant"


async def test_redirect_uri_mismatch(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    browser = Browser(clocked_client)
    async with oauth_client(clocked_client, app) as oauth:
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43,
                                                redirect_uri="https://evil.example.com/callback")
        page = await browser.open("GET", url)
        assert page.status == 400 and page.location is None and "not registered" in page.text
        code, verifier = await authorize(clocked_client, org, oauth)
        response = await post_form(clocked_client, "/oauth/token", {
            "grant_type": "authorization_code", "code": code, "redirect_uri": "https://client.example.com/other",
            "code_verifier": verifier}, auth=(app["clientId"], app["clientSecret"]))
        assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    bogus = await browser.open("GET", f"{AUTHORIZE_URL}?client_id=oac_nothing&redirect_uri={REDIRECT_URI}"
                                      "&response_type=code")
    assert bogus.status == 400 and bogus.location is None


async def test_redirect_uri_at_the_token_endpoint_only_when_sent_at_authorize(clocked_client: Any) -> None:
    """RFC 6749 4.1.3: redirect_uri is required at the token endpoint only if the authorization request had it
    (then identical). An app with one registered URI may leave it out of both."""
    org = await make_org(clocked_client)
    app = await register(org)
    verifier = generate_token(48)
    url = (f"{AUTHORIZE_URL}?client_id={app['clientId']}&response_type=code&state=s1&code_challenge_method=S256"
           f"&code_challenge={create_s256_code_challenge(verifier)}")
    basic = (app["clientId"], app["clientSecret"])
    exchange = {"grant_type": "authorization_code", "code_verifier": verifier}
    params = await approve(clocked_client, url, org.owner_email)
    other = await post_form(clocked_client, "/oauth/token", {
        **exchange, "code": params["code"], "redirect_uri": "https://client.example.com/other"}, auth=basic)
    assert other.status_code == 400 and other.json()["error"] == "invalid_grant"
    without = await post_form(clocked_client, "/oauth/token", {**exchange, "code": params["code"]}, auth=basic)
    assert without.status_code == 200, without.text
    params = await approve(clocked_client, url, org.owner_email)
    same = await post_form(clocked_client, "/oauth/token", {**exchange, "code": params["code"],
                                                            "redirect_uri": REDIRECT_URI}, auth=basic)
    assert same.status_code == 200, same.text
    # Sent at authorize (the standard client always sends it): the token request must repeat it.
    async with oauth_client(clocked_client, app) as oauth:
        code, verifier = await authorize(clocked_client, org, oauth)
    missing = await post_form(clocked_client, "/oauth/token", {
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier}, auth=basic)
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_grant"


async def test_deny_is_access_denied(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        url, state = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43)
    browser = Browser(clocked_client)
    consent = await browser.sign_in(url, org.owner_email)
    back = await browser.decide(url, consent, "deny")
    assert back.status == 302 and back.location is not None and back.location.startswith(REDIRECT_URI)
    assert back.query() == {"error": "access_denied", "error_description": "the user denied the request",
                            "state": state}


async def test_unknown_scope_is_invalid_scope(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org, scopes=("read",))
    async with oauth_client(clocked_client, app, scope="read write") as oauth:
        url, state = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43)
    page = await Browser(clocked_client).open("GET", url)
    assert page.status == 302 and page.query()["error"] == "invalid_scope" and page.query()["state"] == state


async def test_forms_without_csrf_are_refused(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43)
    browser = Browser(clocked_client)
    await browser.open("GET", url)
    forged = await browser.open("POST", url, {"csrf": "guessed", "action": "signin", "email": org.owner_email,
                                              "password": "correct horse battery"})
    assert forged.status == 403 and "authjs.session-token" not in browser.cookies
    consent = await browser.sign_in(url, org.owner_email)
    cross_site = Browser(clocked_client, cookies={k: v for k, v in browser.cookies.items()
                                                  if k == "authjs.session-token"})
    refused = await cross_site.decide(url, consent)
    assert refused.status == 403 and refused.location is None


async def test_oauth_paths_only_on_the_auth_host(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    elsewhere = Browser(clocked_client, host=org.host)
    assert (await elsewhere.open("GET", f"{AUTHORIZE_URL}?client_id=x")).status == 404
    assert (await elsewhere.open("POST", "http://x/oauth/token", {"grant_type": "x"})).status == 404
    assert (await Browser(clocked_client).open("GET", "http://x/oauth/nothing")).status == 404


async def test_expired_access_token_is_401(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        token = await fetch_tokens(clocked_client, org, oauth)
    api = Api(clocked_client, org.host).with_bearer(token["access_token"])
    assert (await api.query("auth.me")).status == 200
    clock.advance(timedelta(hours=1).total_seconds())
    assert (await api.query("auth.me")).status == 401


async def test_other_response_type_goes_back_with_its_error(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    page = await Browser(clocked_client).open(
        "GET", f"{AUTHORIZE_URL}?client_id={app['clientId']}&redirect_uri={REDIRECT_URI}&response_type=token"
               "&state=s1")
    assert page.status == 302 and page.location is not None and page.location.startswith(REDIRECT_URI)
    assert page.query()["error"] == "unsupported_response_type" and page.query()["state"] == "s1"


async def test_sign_in_form_uses_the_login_throttle(clocked_client: Any) -> None:
    org = await make_org(clocked_client)
    app = await register(org)
    async with oauth_client(clocked_client, app) as oauth:
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier="v" * 43)
    browser = Browser(clocked_client)
    csrf = csrf_of((await browser.open("GET", url)).text)
    statuses = []
    for _ in range(7):
        page = await browser.open("POST", url, {"csrf": csrf, "action": "signin", "email": org.owner_email,
                                                "password": "wrong password"})
        statuses.append(page.status)
    assert statuses == [401] * 5 + [429] * 2  # as at login: five free failures, then locked
    assert "authjs.session-token" not in browser.cookies
