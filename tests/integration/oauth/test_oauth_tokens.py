"""OAuth tokens after the code exchange: refresh rotation and reuse detection (RFC 6749 6, 10.4), revocation
(RFC 7009), client authentication and its errors (RFC 6749 5.2), secret rotation and app deletion, and the gates
an access token obeys like a personal token (plan, scopes, role, membership, organization)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError

from actors.identity.accounts import create_organization
from tests.harness import PASSWORD, Api, Org, make_org
from tests.integration.billing.test_limits import invitation_token
from tests.integration.oauth.flow import (
    AUTHORIZE_URL,
    Browser,
    authorize,
    endpoint,
    fetch_tokens,
    oauth_client,
    post_form,
    register,
)
from web.keys import NODE


def _bearer(client: TestClient, org: Org, token: str) -> Api:
    return Api(client, org.host).with_bearer(token)


async def test_refresh_rotates_and_reuse_revokes_the_grant(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        first = await fetch_tokens(client, org, oauth)
        second = await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=first["refresh_token"])
        assert second["access_token"] != first["access_token"]
        assert second["refresh_token"] != first["refresh_token"] and second["scope"] == "read write"
        assert (await _bearer(client, org, second["access_token"]).query("auth.me")).status == 200
        narrower = await oauth.refresh_token(endpoint(client, "/oauth/token"),
                                             refresh_token=second["refresh_token"], scope="read")
        assert narrower["scope"] == "read"
        wider = await post_form(client, "/oauth/token", {"grant_type": "refresh_token", "scope": "read admin",
                                                         "refresh_token": narrower["refresh_token"]},
                                auth=(app["clientId"], app["clientSecret"]))
        assert wider.status_code == 400 and wider.json()["error"] == "invalid_scope"
        # The spent first refresh token comes back: someone else holds it; the whole grant ends.
        with pytest.raises(OAuthError) as reused:
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=first["refresh_token"])
        assert reused.value.error == "invalid_grant"
        for token in (first, second, narrower):
            assert (await _bearer(client, org, token["access_token"]).query("auth.me")).status == 401
        with pytest.raises(OAuthError) as dead:
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=narrower["refresh_token"])
        assert dead.value.error == "invalid_grant"


async def test_revocation(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        revoke_url = endpoint(client, "/oauth/revoke")
        tokens = await fetch_tokens(client, org, oauth)
        other = await fetch_tokens(client, org, oauth)
        response = await oauth.revoke_token(revoke_url, token=tokens["access_token"],
                                            token_type_hint="access_token")
        assert response.status_code == 200
        assert (await _bearer(client, org, tokens["access_token"]).query("auth.me")).status == 401
        # An access token's revocation ends only itself: its refresh token still works.
        renewed = await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=tokens["refresh_token"])
        assert (await _bearer(client, org, renewed["access_token"]).query("auth.me")).status == 200
        assert (await oauth.revoke_token(revoke_url, token=renewed["refresh_token"])).status_code == 200
        assert (await _bearer(client, org, renewed["access_token"]).query("auth.me")).status == 401
        with pytest.raises(OAuthError):
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=renewed["refresh_token"])
        assert (await oauth.revoke_token(revoke_url, token="svc_oat_unknown")).status_code == 200
        assert (await _bearer(client, org, other["access_token"]).query("auth.me")).status == 200
    anonymous = await post_form(client, "/oauth/revoke", {"token": other["access_token"]})
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "invalid_client"
    assert "WWW-Authenticate" not in anonymous.headers
    assert (await _bearer(client, org, other["access_token"]).query("auth.me")).status == 200


async def test_client_authentication_and_request_errors(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    basic = (app["clientId"], "wrong")
    refused = await post_form(client, "/oauth/token", {"grant_type": "authorization_code", "code": "x"}, auth=basic)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    assert refused.headers["WWW-Authenticate"].startswith("Basic ")
    posted = await post_form(client, "/oauth/token", {"grant_type": "authorization_code", "code": "x",
                                                      "client_id": app["clientId"], "client_secret": "wrong"})
    # RFC 6749 5.2: invalid_client is 401 however the client authenticated; the Basic challenge only follows Basic.
    assert posted.status_code == 401 and posted.json()["error"] == "invalid_client"
    assert "WWW-Authenticate" not in posted.headers
    unknown = await post_form(client, "/oauth/token", {"grant_type": "authorization_code", "code": "x",
                                                       "client_id": "oac_nobody"})
    assert unknown.status_code == 401 and unknown.json()["error"] == "invalid_client"
    assert "WWW-Authenticate" not in unknown.headers
    good = (app["clientId"], app["clientSecret"])
    grant = await post_form(client, "/oauth/token", {"grant_type": "password"}, auth=good)
    assert grant.status_code == 400 and grant.json()["error"] == "unsupported_grant_type"
    assert grant.headers["Cache-Control"] == "no-store"
    missing = await post_form(client, "/oauth/token", {}, auth=good)
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    as_json = await post_form(client, "/oauth/token", {}, auth=good, content=b'{"grant_type": "refresh_token"}',
                              headers={"Content-Type": "application/json"})
    assert as_json.status_code == 400 and as_json.json()["error"] == "invalid_request"
    code = await post_form(client, "/oauth/token", {"grant_type": "authorization_code", "code": "nope"}, auth=good)
    assert code.status_code == 400 and code.json() == {"error": "invalid_grant",
                                                      "error_description": "unknown authorization code"}


async def test_rotate_secret_kills_the_old_one(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    rotated = (await org.owner.mutate("oauthApps.rotateSecret", {"id": app["id"]})).data
    async with oauth_client(client, app) as old, oauth_client(client, {**app, **rotated}) as new:
        code, verifier = await authorize(client, org, new)
        with pytest.raises(OAuthError) as refused:
            await old.fetch_token(endpoint(client, "/oauth/token"), code=code, code_verifier=verifier)
        assert refused.value.error == "invalid_client"
        token = await new.fetch_token(endpoint(client, "/oauth/token"), code=code, code_verifier=verifier)
        assert token["access_token"].startswith("svc_oat_")


async def test_deleting_the_app_kills_its_tokens(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        tokens = await fetch_tokens(client, org, oauth)
        api = _bearer(client, org, tokens["access_token"])
        assert (await api.query("auth.me")).status == 200
        assert (await org.owner.mutate("oauthApps.delete", {"id": app["id"]})).status == 200
        assert (await api.query("auth.me")).status == 401
        with pytest.raises(OAuthError) as refused:
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=tokens["refresh_token"])
        assert refused.value.error == "invalid_client"


async def test_narrowing_the_app_scopes_narrows_existing_tokens_at_once(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        both = await fetch_tokens(client, org, oauth)
    async with oauth_client(client, app, scope="write") as oauth:
        write_only = await fetch_tokens(client, org, oauth)
    api = _bearer(client, org, both["access_token"])
    assert (await api.mutate("workspaces.create", {"name": "Before"})).status == 200  # cached on this node now
    narrowed = await org.owner.mutate("oauthApps.update", {"id": app["id"], "scopes": ["read"]})
    assert narrowed.status == 200, narrowed.body
    assert (await api.mutate("workspaces.create", {"name": "After"})).status == 403
    assert (await api.query("workspaces.list")).status == 200
    renewed = await post_form(client, "/oauth/token", {"grant_type": "refresh_token",
                                                        "refresh_token": both["refresh_token"]},
                              auth=(app["clientId"], app["clientSecret"]))
    assert renewed.status_code == 200 and renewed.json()["scope"] == "read", renewed.text
    async with oauth_client(client, app) as oauth:
        # A grant left with none of its scopes is revoked.
        assert (await _bearer(client, org, write_only["access_token"]).query("auth.me")).status == 401
        with pytest.raises(OAuthError) as refused:
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=write_only["refresh_token"])
        assert refused.value.error == "invalid_grant"


async def test_plan_gate(client: Any) -> None:
    org = await make_org(client, plan="starter")
    app = await register(org)
    async with oauth_client(client, app) as oauth:
        tokens = await fetch_tokens(client, org, oauth)
    reply = await _bearer(client, org, tokens["access_token"]).query("workspaces.list")
    assert reply.status == 403, reply.body


async def test_scope_and_role_gates(client: Any) -> None:
    org = await make_org(client)
    app = await register(org, scopes=("read", "write", "admin"))
    async with oauth_client(client, app, scope="read") as oauth:
        read_only = await fetch_tokens(client, org, oauth)
    api = _bearer(client, org, read_only["access_token"])
    assert (await api.query("workspaces.list")).status == 200
    assert (await api.mutate("workspaces.create", {"name": "No"})).status == 403
    # Session-only procedures stay closed to an OAuth token, whatever its scopes.
    async with oauth_client(client, app, scope="read write admin") as oauth:
        admin = await fetch_tokens(client, org, oauth)
    assert (await _bearer(client, org, admin["access_token"]).query("oauthApps.list")).status == 403
    # A guest's token cannot do more than the guest: the user's role still applies.
    guest_id, _ = await org.add_user("guest")
    email = await _email(client, guest_id)
    async with oauth_client(client, app, scope="read write") as oauth:
        guest = await fetch_tokens(client, org, oauth, email=email)
    refused = await _bearer(client, org, guest["access_token"]).mutate("workspaces.create", {"name": "No"})
    assert refused.status == 403, refused.body


async def _email(client: TestClient, user_id: str) -> str:
    return str(await client.server.app[NODE].pool.fetchval("SELECT email FROM users WHERE id = $1", user_id))


async def test_member_who_left_loses_their_grants_for_good(client: Any) -> None:
    org = await make_org(client)
    app = await register(org)
    member_id, _ = await org.add_user("member")
    email = await _email(client, member_id)
    async with oauth_client(client, app) as oauth:
        tokens = await fetch_tokens(client, org, oauth, email=email)
    api = _bearer(client, org, tokens["access_token"])
    assert (await api.query("auth.me")).status == 200
    removed = await org.owner.mutate("organizations.members.remove", {"userId": member_id})
    assert removed.status == 200, removed.body
    assert (await api.query("auth.me")).status == 401
    # Back in the organization later: what they granted before leaving stays revoked.
    token = await invitation_token(org, email)
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token, "name": "Member", "password": PASSWORD})
    assert accepted.status == 200, accepted.body
    assert (await api.query("auth.me")).status == 401
    async with oauth_client(client, app) as oauth:
        with pytest.raises(OAuthError) as refused:
            await oauth.refresh_token(endpoint(client, "/oauth/token"), refresh_token=tokens["refresh_token"])
        assert refused.value.error == "invalid_grant"


async def test_token_acts_in_the_organization_chosen(client: Any) -> None:
    home = await make_org(client)
    node = client.server.app[NODE]
    second_id, _ = await create_organization(node, slug=f"org-{secrets.token_hex(5)}", name="Second",
                                             owner_email=home.owner_email, owner_password=PASSWORD,
                                             plan="business")
    second_slug = await node.pool.fetchval("SELECT slug FROM organizations WHERE id = $1", second_id)
    vendor = await make_org(client)
    app = await register(vendor)  # a marketplace app: registered by an organization the user is not in
    async with oauth_client(client, app) as oauth:
        verifier = generate_token(48)
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier=verifier)
        browser = Browser(client)
        consent = await browser.sign_in(url, home.owner_email)
        assert "<select" in consent.text and consent.text.count("<option") == 2
        assert vendor.id not in consent.text
        outsider = await browser.decide(url, consent, organization=vendor.id)
        assert outsider.status == 400 and outsider.location is None
        back = await browser.decide(url, consent, organization=second_id)
        assert back.status == 302, back.text
        tokens = await oauth.fetch_token(endpoint(client, "/oauth/token"), code=back.query()["code"],
                                         code_verifier=verifier)
    chosen = Api(client, f"{second_slug}.localhost").with_bearer(tokens["access_token"])
    assert (await chosen.query("workspaces.list")).status == 200
    assert (await _bearer(client, home, tokens["access_token"]).query("workspaces.list")).status == 401


async def test_an_organization_enforcing_single_sign_on_grants_only_its_owner(client: Any) -> None:
    """The auth host's sign-in is a password's: with SSO enforced, a member's approval is refused (no code), the
    owner's (break-glass) still goes through."""
    org = await make_org(client, plan="enterprise")
    member_id, _ = await org.add_user("member")  # signed in by password here: before enforcement
    enforced = await org.owner.mutate("sso.updateConfig", {
        "issuer": "https://login.example.com", "clientId": "obeya", "clientSecret": "s" * 32, "enforce": True,
        "allowedDomains": []})
    assert enforced.status == 200, enforced.body
    app = await register(org)
    email = await _email(client, member_id)
    async with oauth_client(client, app) as oauth:
        url, _ = oauth.create_authorization_url(AUTHORIZE_URL, code_verifier=generate_token(48))
        browser = Browser(client)
        refused = await browser.decide(url, await browser.sign_in(url, email))
        assert refused.status == 403 and refused.location is None, refused
        assert "identity provider" in refused.text
        assert (await fetch_tokens(client, org, oauth))["access_token"].startswith("svc_oat_")
