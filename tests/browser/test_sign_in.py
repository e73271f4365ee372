"""Signing in and joining in a real browser: sign-up on the service host with the suggested address, the new
organization's sign-in with its welcome, a wrong password, signing out, a deep link kept through sign-in, an
invitation accepted from its e-mailed page, and sign-up's refusals on their fields."""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page, expect

from actors.kernel import sealing
from tests.browser.conftest import open_page
from tests.harness import PASSWORD, Org
from web.keys import NODE


async def _signed_out_page(browser: Browser, client: Any) -> Page:
    return await open_page(browser, client, viewport=(1100, 900))


async def _sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    await page.get_by_label("E-mail address").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in", exact=True).click()


async def _invitation_token(client: Any, email: str) -> str:
    """The token of the invitation mailed to `email`, from the stored mail (the text the sender would send)."""
    node = client.server.app[NODE]
    sealed = await node.pool.fetchval(
        "SELECT sealed_body FROM emails WHERE recipient = $1 ORDER BY created_at DESC LIMIT 1", email)
    body = await sealing.open_sealed(node.pool, sealed, node.settings.secret_key)
    found = re.search(r"Invitation token: (\S+)", body)
    assert found, body
    return found[1]


async def test_sign_up_then_sign_in_on_the_new_organizations_address(
        browser: Any, client: Any, service_url: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(service_url(client) + "/")
    await expect(page.get_by_role("heading", name="Welcome to Obeya", level=1)).to_be_visible()
    await expect(page.get_by_label("Your organization's address")).to_be_visible()
    await check_accessibility(page, "welcome")
    await screenshot(page, "welcome")

    await page.get_by_role("link", name="Create an organization").click()
    await expect(page.get_by_role("heading", name="Create an organization", level=1)).to_be_visible()
    suffix = secrets.token_hex(3)
    email = f"ada-{suffix}@example.test"
    await page.get_by_label("Your name").fill("Ada Lovelace")
    await page.get_by_label("E-mail address").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_label("Organization name").fill(f"Lyon Plant {suffix}")
    slug = f"lyon-plant-{suffix}"
    await expect(page.get_by_label("Organization address")).to_have_value(slug)  # suggested from the name
    await check_accessibility(page, "signup")
    await page.get_by_role("button", name="Create the organization").click()

    await expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    assert page.url.startswith(org_url(client, slug) + "/signin?")
    await expect(page.get_by_text(f"{slug}.localhost is ready. Sign in to start.")).to_be_visible()
    await expect(page.get_by_label("E-mail address")).to_have_value(email)
    await check_accessibility(page, "signin")
    await screenshot(page, "signin")

    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in", exact=True).click()
    await expect(page.get_by_role("link", name=f"Lyon Plant {suffix}")).to_be_visible()  # the top bar's name
    assert page.url == org_url(client, slug) + "/"


async def test_a_wrong_password_is_said_next_to_the_field(browser: Any, client: Any, org: Org, org_url: Any,
                                                          check_accessibility: Any, screenshot: Any) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(f"{org_url(client, org.slug)}/signin?email={org.owner_email}")
    await page.get_by_label("Password").fill("not the password")
    await page.get_by_role("button", name="Sign in", exact=True).click()
    summary = page.get_by_role("alert").filter(has=page.get_by_role("heading", name="There is a problem"))
    await expect(summary.get_by_role("link", name=re.compile("password is not right"))).to_be_visible()
    await expect(page.locator("#field-password-error")).to_contain_text("password is not right")
    await expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    await check_accessibility(page, "signin with an error")

    await summary.get_by_role("link").click()  # the summary leads to the field
    await expect(page.get_by_label("Password")).to_be_focused()
    await _sign_in(page, org.owner_email)
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()


async def test_signing_out_shows_the_sign_in_screen(browser: Any, client: Any, org: Org, org_url: Any) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(org_url(client, org.slug) + "/")
    await _sign_in(page, org.owner_email)
    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    assert page.url == org_url(client, org.slug) + "/signin"
    await page.reload()  # the session is over on the server too
    await expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()


async def test_a_deep_link_while_signed_out_returns_there_after_signing_in(browser: Any, client: Any, org: Org,
                                                                           org_url: Any) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(org_url(client, org.slug) + "/settings/members")
    await expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    sso = page.get_by_role("link", name="Sign in with single sign-on")
    await expect(sso).to_have_attribute("href", "/api/v1/auth/sso/start?returnTo=%2Fsettings%2Fmembers")
    await _sign_in(page, org.owner_email)
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    assert page.url == org_url(client, org.slug) + "/settings/members"


@pytest.mark.parametrize("destination", ["//evil.example/x", "/\\evil.example/x", "https://evil.example/x",
                                         "/api/v1/auth/logout"])
async def test_next_names_only_a_page_of_the_app_on_this_host(browser: Any, client: Any, org: Org, org_url: Any,
                                                              destination: str) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(org_url(client, org.slug) + "/signin?next=" + quote(destination, safe=""))
    await _sign_in(page, org.owner_email)
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    assert page.url == org_url(client, org.slug) + "/"


async def test_an_invitation_is_accepted_from_its_page(browser: Any, client: Any, org: Org, org_url: Any,
                                                       check_accessibility: Any, screenshot: Any) -> None:
    email = f"nia-{secrets.token_hex(3)}@example.test"
    invited = await org.owner.mutate("organizations.members.invite", {"email": email, "role": "member"})
    assert invited.status == 200, invited.body
    token = await _invitation_token(client, email)

    page = await _signed_out_page(browser, client)
    await page.goto(f"{org_url(client, org.slug)}/invite?token={token}")
    await expect(page.get_by_role("heading", name=re.compile("You are invited to"))).to_be_visible()
    await page.get_by_role("link", name="Accept the invitation").click()
    await expect(page.get_by_role("heading", name="Accept the invitation", level=1)).to_be_visible()
    await page.get_by_role("button", name="Accept and sign in").click()  # nothing entered yet
    await expect(page.get_by_role("link", name="Enter your name")).to_be_visible()
    await check_accessibility(page, "invite")
    await screenshot(page, "invite")

    await page.get_by_label("Your name").fill("Nia Nights")
    await page.get_by_label("Password").fill("a new long password")
    await page.get_by_role("button", name="Accept and sign in").click()
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    await expect(page.get_by_text("Nia Nights")).to_be_visible()
    assert page.url == org_url(client, org.slug) + "/"
    members = await org.owner.query("organizations.members.list")
    assert {m["email"]: m["role"] for m in members.data["members"]}[email] == "member"

    await page.goto(f"{org_url(client, org.slug)}/invite/accept?token={token}")  # used: it says so
    await page.get_by_label("Your name").fill("Nia Nights")
    await page.get_by_label("Password").fill("a new long password")
    await page.get_by_role("button", name="Accept and sign in").click()
    await expect(page.get_by_role("heading", name="This invitation cannot be used")).to_be_visible()


async def test_sign_up_refusals_are_shown_by_their_fields(browser: Any, client: Any, org: Org, service_url: Any,
                                                          check_accessibility: Any, screenshot: Any) -> None:
    page = await _signed_out_page(browser, client)
    await page.goto(service_url(client) + "/signup")
    await page.get_by_label("Your name").fill("Bob Builder")
    await page.get_by_label("E-mail address").fill(f"bob-{secrets.token_hex(3)}@example.test")
    await page.get_by_label("Password").fill("short")
    await page.get_by_label("Organization name").fill("Anything")
    address = page.get_by_label("Organization address")
    await address.fill(org.slug)  # taken
    await page.get_by_role("button", name="Create the organization").click()
    await expect(page.locator("#field-password-error")).to_contain_text("8 to 200 characters")

    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Create the organization").click()
    taken = f"The address {org.slug}.localhost is already taken. Choose another address"
    await expect(page.locator("#field-organizationSlug-error")).to_contain_text(taken)
    await expect(page.get_by_role("link", name=taken)).to_be_visible()  # in the summary
    await expect(address).to_have_attribute("aria-invalid", "true")
    await check_accessibility(page, "signup with errors")
    await screenshot(page, "signup")
