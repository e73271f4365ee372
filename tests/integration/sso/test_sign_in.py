"""The single sign-on in a browser, end to end against a real OpenID provider: start, the provider's forms, the
callback, then the session cookie works on /api/trpc. And every way it must refuse."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from actors.identity import sso_provider
from actors.identity.accounts import create_organization
from actors.identity.sso import state_digest
from actors.identity.sso_provider import SSO_PROVIDER_SECONDS, SSO_PROVIDERS
from storage import notifications as notifications_repo
from tests.clients import oidc_provider
from tests.clients.node_packages import NPM_TIMEOUT_S
from tests.clients.oidc_provider import OidcProvider
from tests.harness import PASSWORD, Api, Org, free_port, login, make_org
from tests.integration.sso.flow import callback, callback_uri, configure, new_email, sign_in, sign_in_at_provider, start
from web.keys import NODE

pytestmark = pytest.mark.timeout(NPM_TIMEOUT_S + 60)


async def test_a_new_user_of_an_allowed_domain_joins_as_a_member(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    email = new_email("acme-sso.test")
    reply, browser = await sign_in(enterprise, email, return_to="/boards?tab=mine")
    assert reply.status == 302 and reply.headers["Location"] == "/boards?tab=mine"
    assert browser is not None
    me = await browser.query("auth.me")
    assert me.status == 200 and me.data["email"] == email
    node = browser.client.server.app[NODE]
    role = await node.pool.fetchval("""SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id
                                        WHERE m.organization_id = $1 AND u.email = $2""", enterprise.id, email)
    assert role == "member"
    # The new user has no password anyone knows: a password login does not open a session.
    refused = await enterprise.anonymous.rest("POST", "/api/v1/auth/login", {"email": email, "password": "a guess"})
    assert refused.status == 401


async def test_an_existing_member_signs_in_whatever_the_domain(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=[])
    _, member = await enterprise.add_user("member")
    email = (await member.query("auth.me")).data["email"]
    reply, browser = await sign_in(enterprise, email)
    assert reply.status == 302 and reply.headers["Location"] == "/"
    assert browser is not None and (await browser.query("auth.me")).data["email"] == email


async def test_a_domain_not_allowed_is_refused(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    reply, browser = await sign_in(enterprise, new_email("elsewhere.test"))
    assert reply.status == 403 and browser is None
    assert "not a member" in reply.body and "authjs.session-token" not in str(reply.headers)


async def test_an_account_made_elsewhere_does_not_join_through_an_allowed_domain(
        client: Any, enterprise: Org, provider: OidcProvider) -> None:
    """Nothing proves the organization owns the domain it allows: its provider asserting the e-mail of an
    account from another organization does not make that account a member; an invitation does."""
    await configure(enterprise, provider, domains=["acme-sso.test"])
    email = new_email("acme-sso.test")
    await create_organization(client.server.app[NODE], slug=f"other-{secrets.token_hex(4)}", name="Other",
                              owner_email=email, owner_password=PASSWORD, plan="free")
    reply, browser = await sign_in(enterprise, email)
    assert reply.status == 403 and browser is None and "invitation" in reply.body
    assert "authjs.session-token" not in str(reply.headers)
    joined = await client.server.app[NODE].pool.fetchval(
        """SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND u.email = $2""", enterprise.id, email)
    assert joined == 0


async def test_a_member_removed_and_of_no_other_organization_rejoins_through_an_allowed_domain(
        enterprise: Org, provider: OidcProvider) -> None:
    """The sign-in made the account and it has no password anyone knows: an invitation could not bring it back."""
    await configure(enterprise, provider, domains=["acme-sso.test"])
    email = new_email("acme-sso.test")
    _, browser = await sign_in(enterprise, email)
    assert browser is not None
    user_id = (await browser.query("auth.me")).data["id"]
    assert (await enterprise.owner.mutate("organizations.members.remove", {"userId": user_id})).status == 200
    again, back = await sign_in(enterprise, email)
    assert again.status == 302 and back is not None
    assert (await back.query("auth.me")).data["id"] == user_id


async def test_a_public_mail_domain_allowed_before_it_was_refused_joins_nobody(
        client: Any, enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    await client.server.app[NODE].pool.execute(
        "UPDATE sso_configs SET allowed_domains = ARRAY['gmail.com'] WHERE organization_id = $1", enterprise.id)
    reply, browser = await sign_in(enterprise, new_email("gmail.com"))
    assert reply.status == 403 and browser is None and "not a member" in reply.body


async def test_the_state_is_bound_to_the_browser_and_used_once(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    email = new_email("acme-sso.test")
    started = await start(enterprise)
    back = await sign_in_at_provider(started.location, email, callback_uri(enterprise))
    assert (await callback(enterprise, back, None)).status == 400            # no state cookie
    assert (await callback(enterprise, back, "someone-elses")).status == 400  # another browser's
    assert (await callback(enterprise, back, started.state)).status == 302
    replay = await callback(enterprise, back, started.state)
    assert replay.status == 400 and "already used" in replay.body


async def test_an_expired_sign_in_is_refused(clocked_client: Any, clock: Any, provider_installed: None) -> None:
    org = await make_org(clocked_client, plan="enterprise")
    async with oidc_provider.running([callback_uri(org)]) as provider:
        await configure(org, provider, domains=["acme-sso.test"])
        started = await start(org)
        back = await sign_in_at_provider(started.location, new_email("acme-sso.test"), callback_uri(org))
        clock.advance(11 * 60)
        expired = await callback(org, back, started.state)
    assert expired.status == 400 and "expired" in expired.body


async def test_return_to_must_be_a_path_here(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider)
    for target in ("https://evil.test/", "//evil.test/", "/\\evil.test"):
        async with enterprise.anonymous.client.get("/api/v1/auth/sso/start", params={"returnTo": target},
                                                   headers={"Host": enterprise.host},
                                                   allow_redirects=False) as response:
            assert response.status == 400, target


async def test_the_provider_restarting_with_new_keys_is_followed(clocked_client: Any, clock: Any,
                                                                 provider_installed: None) -> None:
    """Key rotation: a token signed with a new kid validates once the keys are fetched again, which an unknown kid
    does at most once per KEYS_COOLDOWN_S."""
    org = await make_org(clocked_client, plan="enterprise")
    node = clocked_client.server.app[NODE]
    async with oidc_provider.running([callback_uri(org)]) as provider:
        await configure(org, provider, domains=["acme-sso.test"])
        first, _ = await sign_in(org, new_email("acme-sso.test"))
        assert first.status == 302
        info = node.plugins[SSO_PROVIDERS].peek(provider.issuer)[1]
        old_kids = set(info.keys)
        await oidc_provider.stop(provider)
        restarted = await oidc_provider.start(provider.redirect_uris, port=provider.port,
                                              client_id=provider.client_id, client_secret=provider.client_secret)
        try:
            too_soon, _ = await sign_in(org, new_email("acme-sso.test"))
            clock.advance(sso_provider.KEYS_COOLDOWN_S)
            second, browser = await sign_in(org, new_email("acme-sso.test"))
        finally:
            await oidc_provider.stop(restarted)
    assert too_soon.status == 401 and "does not publish" in too_soon.body
    assert second.status == 302 and browser is not None
    new_kids = set(node.plugins[SSO_PROVIDERS].peek(provider.issuer)[1].keys)
    assert new_kids and not new_kids & old_kids


async def test_the_provider_documents_are_cached_on_the_node_and_its_clock(clocked_client: Any, clock: Any,
                                                                          provider_installed: None) -> None:
    org = await make_org(clocked_client, plan="enterprise")
    node = clocked_client.server.app[NODE]
    async with oidc_provider.running([callback_uri(org)]) as provider:
        await configure(org, provider, domains=["acme-sso.test"])
        await start(org)
        cached, info = node.plugins[SSO_PROVIDERS].peek(provider.issuer)
        assert cached and info is not None and info.discovery["issuer"] == provider.issuer
        await start(org)
        assert node.plugins[SSO_PROVIDERS].peek(provider.issuer)[1] is info  # not fetched again
        clock.advance(SSO_PROVIDER_SECONDS)
        assert node.plugins[SSO_PROVIDERS].peek(provider.issuer) == (False, None)
        reply, browser = await sign_in(org, new_email("acme-sso.test"))
        assert reply.status == 302 and browser is not None
        assert node.plugins[SSO_PROVIDERS].peek(provider.issuer)[1] is not info


async def test_an_unreachable_provider_is_a_clear_503(enterprise: Org) -> None:
    reply = await enterprise.owner.mutate("sso.updateConfig", {
        "issuer": f"http://127.0.0.1:{free_port()}", "clientId": "x", "clientSecret": "y", "allowedDomains": []})
    assert reply.status == 200
    async with enterprise.anonymous.client.get("/api/v1/auth/sso/start", headers={"Host": enterprise.host},
                                               allow_redirects=False) as response:
        assert response.status == 503
        assert "identity provider" in await response.text()


async def test_without_a_configuration_start_is_refused(enterprise: Org) -> None:
    async with enterprise.anonymous.client.get("/api/v1/auth/sso/start", headers={"Host": enterprise.host},
                                               allow_redirects=False) as response:
        assert response.status == 403 and "not configured" in await response.text()


async def test_enforcement_leaves_the_password_only_to_the_owner(enterprise: Org, provider: OidcProvider) -> None:
    _, member = await enterprise.add_user("member")
    _, admin = await enterprise.add_user("admin")
    member_email = (await member.query("auth.me")).data["email"]
    admin_email = (await admin.query("auth.me")).data["email"]
    await configure(enterprise, provider, enforce=True)
    for email in (member_email, admin_email):
        refused = await enterprise.anonymous.rest("POST", "/api/v1/auth/login",
                                                  {"email": email, "password": PASSWORD})
        assert refused.status == 403, refused.body
        assert refused.error["message"] == "this organization signs in through its identity provider"
    wrong = await enterprise.anonymous.rest("POST", "/api/v1/auth/login",
                                            {"email": member_email, "password": "not it"})
    assert wrong.status == 401  # the refusal says nothing to whoever lacks the password
    owner = await login(enterprise.anonymous, enterprise.owner_email)  # break-glass: 200
    assert (await owner.query("auth.me")).status == 200
    # The member still gets in, through the provider.
    reply, browser = await sign_in(enterprise, member_email)
    assert reply.status == 302 and browser is not None
    # Enforcement off again: passwords work for everyone.
    await configure(enterprise, provider, enforce=False)
    await login(enterprise.anonymous, member_email)


async def test_an_unverified_email_is_refused(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    reply, browser = await sign_in(enterprise, "unverified-" + new_email("acme-sso.test"))
    assert reply.status == 403 and browser is None and "not verified" in reply.body


async def test_a_provider_error_is_a_plain_401_page(enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider)
    started = await start(enterprise)
    reply = await callback(enterprise, f"{callback_uri(enterprise)}?error=access_denied&state={started.state}",
                           started.state)
    assert reply.status == 401 and "access_denied" in reply.body
    assert reply.headers["Content-Type"].startswith("text/html")
    node = enterprise.anonymous.client.server.app[NODE]
    assert await node.pool.fetchval("SELECT count(*) FROM sso_attempts WHERE state_digest = $1",
                                    state_digest(started.state)) == 0  # the sign-in is over


async def test_the_email_is_read_from_userinfo_when_the_id_token_lacks_it(enterprise: Org,
                                                                          provider_installed: None) -> None:
    async with oidc_provider.running([callback_uri(enterprise)], conform=True) as provider:
        await configure(enterprise, provider, domains=["acme-sso.test"])
        email = new_email("acme-sso.test")
        reply, browser = await sign_in(enterprise, email)
    assert reply.status == 302 and browser is not None
    assert (await browser.query("auth.me")).data["email"] == email


async def member_owning_another_organization(client: Any, org: Org) -> tuple[Api, str, str]:
    """A new member of `org` who also owns an organization of their own: their password session, their e-mail and
    that organization's slug."""
    _, member = await org.add_user("member")
    email = (await member.query("auth.me")).data["email"]
    other_slug = f"other-{secrets.token_hex(4)}"
    await create_organization(client.server.app[NODE], slug=other_slug, name="Other", owner_email=email,
                              owner_password=PASSWORD, plan="business")
    return member, email, other_slug


async def test_a_single_sign_on_session_is_good_on_its_organization_only(client: Any, enterprise: Org,
                                                                          provider: OidcProvider) -> None:
    """The organization's admin chooses the provider, so its word on an e-mail holds on that host only: a
    member of another organization too is not signed in there by it."""
    await configure(enterprise, provider)
    _, email, other_slug = await member_owning_another_organization(client, enterprise)
    reply, browser = await sign_in(enterprise, email)
    assert reply.status == 302 and browser is not None
    assert (await browser.query("auth.me")).status == 200
    elsewhere = browser.on_host(f"{other_slug}.localhost")
    assert (await elsewhere.query("auth.me")).status == 401
    assert (await elsewhere.query("organizations.get")).status == 401
    # The member's password session still works there.
    assert (await (await login(elsewhere.with_session(None), email)).query("auth.me")).status == 200


async def test_a_single_sign_on_session_shows_and_changes_nothing_of_the_users_other_organizations(
        client: Any, enterprise: Org, provider: OidcProvider) -> None:
    """auth.me lists the session's organization only, and the profile every organization of the user sees is
    not changed through it (403 saying why); the password session still changes it."""
    await configure(enterprise, provider)
    member, email, other_slug = await member_owning_another_organization(client, enterprise)
    _, browser = await sign_in(enterprise, email)
    assert browser is not None
    me = await browser.query("auth.me")
    assert me.status == 200
    assert [m["organizationSlug"] for m in me.data["memberships"]] == [enterprise.slug]
    refused = await browser.mutate("auth.updateProfile", {"name": "Renamed by a provider"})
    assert refused.status == 403 and "single sign-on" in str(refused.body)
    patched = await browser.rest("PATCH", "/api/v1/auth/me", {"image": "https://example.test/a.png"})
    assert patched.status == 403
    assert (await member.query("auth.me")).data["name"] != "Renamed by a provider"
    assert len((await member.query("auth.me")).data["memberships"]) == 2
    assert (await member.mutate("auth.updateProfile", {"name": "Chosen"})).status == 200

    # Notifications too: the session's organization's only.
    node = client.server.app[NODE]
    other_id = await node.pool.fetchval("SELECT id FROM organizations WHERE slug = $1", other_slug)
    async with node.pool.acquire() as conn:
        here = await notifications_repo.insert(conn, me.data["id"], enterprise.id, "mention", "Here", None, None, None)
        there = await notifications_repo.insert(conn, me.data["id"], other_id, "mention", "Elsewhere: the merger",
                                                None, None, None)
    listed = await browser.query("notifications.list", {})
    assert [n["id"] for n in listed.data["notifications"]] == [here["id"]], listed.body
    assert (await browser.query("notifications.unreadCount")).data["count"] == 1
    assert (await browser.mutate("notifications.markAsRead", {"id": there["id"]})).status == 404
    assert (await browser.mutate("notifications.markAllAsRead")).data["count"] == 1
    assert (await member.query("notifications.unreadCount")).data["count"] == 1  # the other's, still unread


async def test_a_single_sign_on_user_of_one_organization_changes_their_profile(enterprise: Org,
                                                                                provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    _, browser = await sign_in(enterprise, new_email("acme-sso.test"))
    assert browser is not None
    changed = await browser.mutate("auth.updateProfile", {"name": "Ada"})
    assert changed.status == 200 and changed.data["name"] == "Ada"


async def test_a_deactivated_member_is_not_let_back_in(client: Any, enterprise: Org, provider: OidcProvider) -> None:
    await configure(enterprise, provider, domains=["acme-sso.test"])
    email = new_email("acme-sso.test")
    first, _ = await sign_in(enterprise, email)
    assert first.status == 302
    node = client.server.app[NODE]
    await node.pool.execute("""UPDATE memberships SET status = 'deactivated' WHERE organization_id = $1
                                 AND user_id = (SELECT id FROM users WHERE email = $2)""", enterprise.id, email)
    again, browser = await sign_in(enterprise, email)
    assert again.status == 403 and browser is None and "deactivated" in again.body


async def test_enforcement_is_not_bypassed_by_a_password_session_from_elsewhere(enterprise: Org,
                                                                                provider: OidcProvider) -> None:
    """A password login on the service's own host (no organization, so nothing to enforce there) opens a session
    that is good on every host: under enforcement it must not open the organization for anyone but the owner."""
    _, member = await enterprise.add_user("member")
    email = (await member.query("auth.me")).data["email"]
    await configure(enterprise, provider, enforce=True)
    apex = await login(enterprise.anonymous.on_host("localhost"), email)
    carried = apex.on_host(enterprise.host)
    assert (await carried.query("organizations.get")).status == 401
    assert (await member.query("organizations.get")).status == 401  # the session opened before enforcement too
    assert (await enterprise.owner.query("organizations.get")).status == 200  # break-glass
    owner_elsewhere = await login(enterprise.anonymous.on_host("localhost"), enterprise.owner_email)
    assert (await owner_elsewhere.on_host(enterprise.host).query("organizations.get")).status == 200
    await configure(enterprise, provider, enforce=False)
    assert (await carried.query("organizations.get")).status == 200
    assert (await member.query("organizations.get")).status == 200


async def test_an_admin_cannot_become_the_owner_through_a_provider_of_their_own(enterprise: Org,
                                                                                 provider: OidcProvider) -> None:
    """An admin may set the provider, and a provider asserts any e-mail: signing the owner in through it would
    hand an admin the owner's powers. The owner signs in with the password (break-glass)."""
    _, admin = await enterprise.add_user("admin")
    reply = await admin.mutate("sso.updateConfig", {
        "issuer": provider.issuer, "clientId": provider.client_id, "clientSecret": provider.client_secret,
        "enforce": False, "allowedDomains": []})
    assert reply.status == 200, reply.body
    refused, browser = await sign_in(enterprise, enterprise.owner_email)
    assert refused.status == 403 and browser is None and "owner" in refused.body
    assert "authjs.session-token" not in str(refused.headers)
