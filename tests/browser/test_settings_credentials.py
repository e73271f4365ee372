"""The settings area in a real browser against the real server: members and invitations, and every kind of
credential made in the page (API key, personal token, OAuth application, assistant key), the secret shown
once and working on the API until it is revoked in the page; what a member who is not an admin sees; the plan
message where the plan has no API access. axe on every section, and a screenshot of each."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from playwright.async_api import Page, Route, expect

from tests.harness import Org, make_org


async def settings(open_page: Any, org_url: Any, browser: Any, client: Any, org: Org, section: str | None) -> Page:
    """A page signed in as `org.owner`, at the settings section (None: at /settings)."""
    page: Page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/settings{'' if section is None else f'/{section}'}")
    await expect(page.get_by_role("heading", level=1, name="Settings")).to_be_visible()
    return page


async def confirm(page: Page, button: str) -> None:
    """Press `button` in the confirmation dialog that is open."""
    await page.get_by_role("dialog").get_by_role("button", name=button, exact=True).click()
    await expect(page.get_by_role("dialog")).to_have_count(0)


async def test_an_owner_invites_someone_and_changes_a_members_role(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    member_id, _ = await org.add_user("member", name="Mia Member")
    page = await settings(open_page, org_url, browser, client, org, "members")
    members = page.get_by_role("table", name="Members")
    await expect(members.get_by_role("row", name=re.compile("Olga Owner"))).to_contain_text(
        "The owner cannot be removed or given another role.")

    await page.get_by_label("E-mail address").fill("pat@example.com")
    await page.get_by_label("Role", exact=True).select_option(label="Guest")
    await page.get_by_role("button", name="Send invitation").click()
    invitations = page.get_by_role("table", name="Pending invitations")
    invitation = invitations.get_by_role("row", name=re.compile("pat@example.com"))
    await expect(invitation).to_contain_text("Guest")
    await expect(invitation).to_contain_text("Invitation pending")
    listed = (await org.owner.query("organizations.members.list", {"status": "pending"})).data["members"]
    assert [(entry["email"], entry["role"]) for entry in listed] == [("pat@example.com", "guest")]

    await page.get_by_role("button", name="Change role of Mia Member").click()
    dialog = page.get_by_role("dialog", name="Change the role of Mia Member")
    await dialog.get_by_label("New role").select_option(label="Admin")
    await dialog.get_by_role("button", name="Save role").click()
    await expect(members.get_by_role("row", name=re.compile("Mia Member"))).to_contain_text("Admin")
    listed = (await org.owner.query("organizations.members.list", {"search": "Mia"})).data["members"]
    assert [(entry["id"], entry["role"]) for entry in listed] == [(member_id, "admin")]
    await check_accessibility(page, "settings-members")
    await screenshot(page, "settings-members")


async def test_an_invalid_invitation_is_explained_next_to_the_field(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "members")
    await page.get_by_label("E-mail address").fill("not an address")
    await page.get_by_role("button", name="Send invitation").click()
    summary = page.get_by_role("alert").filter(has_text="There is a problem")
    await expect(summary.get_by_role("link", name="Enter an e-mail address in the right format")).to_be_visible()
    await expect(page.get_by_label("E-mail address")).to_have_attribute("aria-invalid", "true")


async def test_an_api_key_made_in_the_page_calls_the_api_until_it_is_revoked_there(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "api-keys")
    await page.get_by_label("Name", exact=True).fill("ERP export")
    await page.get_by_label("read:members", exact=True).check()
    await page.get_by_role("button", name="Create key").click()
    secret = await page.get_by_label("API key", exact=True).input_value()
    assert secret.startswith("svc_sk_live_")
    row = page.get_by_role("row", name=re.compile("ERP export"))
    await expect(row).to_contain_text("read:members")
    await expect(row).to_contain_text("Active")
    await check_accessibility(page, "settings-api-keys")
    await screenshot(page, "settings-api-keys")

    as_key = org.anonymous.with_bearer(secret)
    reply = await as_key.query("organizations.get")
    assert reply.status == 200 and reply.data["slug"] == org.slug

    await page.get_by_role("button", name="Done: I have copied it").click()
    await expect(page.get_by_label("API key", exact=True)).to_have_count(0)
    await page.get_by_role("button", name="Revoke ERP export").click()
    await confirm(page, "Revoke")
    await expect(row).to_contain_text("Revoked")
    assert (await as_key.query("organizations.get")).status == 401


async def test_rotating_an_api_key_shows_the_new_secret_once_and_stops_the_old(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "api-keys")
    await page.get_by_label("Name", exact=True).fill("Line PLC")
    await page.get_by_role("button", name="Create key").click()
    old = await page.get_by_label("API key", exact=True).input_value()
    await page.get_by_role("button", name="Rotate Line PLC").click()
    await confirm(page, "Rotate")
    await expect(page.get_by_role("heading", name='New key for "Line PLC"')).to_be_visible()
    new = await page.get_by_label("API key", exact=True).input_value()
    assert new != old and new.startswith("svc_sk_live_")
    assert (await org.anonymous.with_bearer(old).query("organizations.get")).status == 401
    assert (await org.anonymous.with_bearer(new).query("organizations.get")).status == 200
    await expect(page.get_by_role("row", name=re.compile("Line PLC"))).to_have_count(2)

    # Deleting takes the row and its Delete button away: focus goes to the list's heading, not the page's body.
    revoked = page.get_by_role("row", name=re.compile("Line PLC")).filter(
        has_not=page.get_by_role("button", name="Rotate Line PLC"))
    await revoked.get_by_role("button", name="Delete Line PLC").click()
    await confirm(page, "Delete")
    await expect(page.get_by_role("row", name=re.compile("Line PLC"))).to_have_count(1)
    await expect(page.get_by_role("heading", name="Keys", exact=True)).to_be_focused()


async def test_a_key_whose_reply_was_lost_is_listed_with_the_way_to_replace_it(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, allow_console_errors: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "api-keys")
    lost: list[int] = []

    async def lose_the_first_reply(route: Route) -> None:
        if lost:
            await route.continue_()
            return
        # The server makes the key (the request sent from the test to 127.0.0.1, as the browser maps the host).
        host = f"{org.slug}.localhost:{client.server.port}"
        headers = {**await route.request.all_headers(), "host": host}
        reply = await route.fetch(url=route.request.url.replace(host, f"127.0.0.1:{client.server.port}"),
                                  headers=headers)
        lost.append(reply.status)
        await route.abort()  # and its reply never reaches the page, which sends the write again

    await page.route("**/api/trpc/apiKeys.create", lose_the_first_reply)
    await page.get_by_label("Name", exact=True).fill("MES bridge")
    heading = page.get_by_role("heading", name='The key "MES bridge" was made, but it cannot be shown')
    with allow_console_errors(page, "net::ERR_FAILED"):  # the reply lost on purpose
        await page.get_by_role("button", name="Create key").click()
        await expect(heading).to_be_focused()
    await expect(page.get_by_text("The key works and is in the list below: revoke it, then create a new one.")
                 ).to_be_visible()
    await expect(page.get_by_role("row", name=re.compile("MES bridge"))).to_contain_text("Active")
    await expect(page.get_by_label("API key", exact=True)).to_have_count(0)
    assert lost == [200]
    keys = (await org.owner.query("apiKeys.list")).data
    assert [(key["name"], key["status"]) for key in keys] == [("MES bridge", "active")]


async def test_a_personal_token_made_in_the_page_calls_the_api_until_it_is_revoked_there(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "tokens")
    await page.get_by_role("button", name="Create token").click()
    await expect(page.get_by_role("link", name="Tick at least one scope")).to_be_visible()
    await page.get_by_label("Name", exact=True).fill("Shift report")
    await page.get_by_label("read", exact=True).check()
    await page.get_by_label("Expires after").select_option(label="30 days")
    await page.get_by_role("button", name="Create token").click()
    secret = await page.get_by_label("Personal access token", exact=True).input_value()
    assert secret.startswith("svc_pat_")
    row = page.get_by_role("row", name=re.compile("Shift report"))
    await expect(row).to_contain_text("Active")
    await check_accessibility(page, "settings-tokens")
    await screenshot(page, "settings-tokens")

    as_token = org.anonymous.with_bearer(secret)
    assert (await as_token.query("organizations.get")).status == 200
    await page.get_by_role("button", name="Revoke Shift report").click()
    await confirm(page, "Revoke")
    await expect(row).to_contain_text("Revoked")
    assert (await as_token.query("organizations.get")).status == 401


async def test_an_oauth_application_shows_its_client_id_and_its_secret_once(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "applications")
    await page.get_by_label("Name", exact=True).fill("Line dashboard")
    await page.get_by_label("Redirect URIs").fill("https://dash.example.com/callback\nhttp://localhost:3000/cb")
    await page.get_by_label("read", exact=True).check()
    await page.get_by_label("write", exact=True).check()
    await page.get_by_role("button", name="Register application").click()
    secret = await page.get_by_label("Client secret", exact=True).input_value()
    apps = (await org.owner.query("oauthApps.list")).data
    assert [(app["name"], app["public"], app["redirectUris"]) for app in apps] == [
        ("Line dashboard", False, ["https://dash.example.com/callback", "http://localhost:3000/cb"])]
    client_id = apps[0]["clientId"]
    assert secret and "clientSecret" not in apps[0]
    await expect(page.get_by_role("region", name='Application "Line dashboard" registered')).to_contain_text(client_id)
    await expect(page.get_by_role("row", name=re.compile("Line dashboard"))).to_contain_text(client_id)
    await check_accessibility(page, "settings-applications")
    await screenshot(page, "settings-applications")

    await page.reload()
    await expect(page.get_by_role("row", name=re.compile("Line dashboard"))).to_contain_text(client_id)
    await expect(page.get_by_label("Client secret", exact=True)).to_have_count(0)

    await page.get_by_role("button", name="Edit Line dashboard").click()
    dialog = page.get_by_role("dialog", name='Edit "Line dashboard"')
    await dialog.get_by_label("Name", exact=True).fill("Line 3 dashboard")
    await dialog.get_by_role("button", name="Save changes").click()
    await expect(page.get_by_role("row", name=re.compile("Line 3 dashboard"))).to_contain_text(client_id)
    assert (await org.owner.query("oauthApps.list")).data[0]["name"] == "Line 3 dashboard"


async def test_an_assistant_key_is_shown_once(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any,
        screenshot: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, "mcp-keys")
    await page.get_by_label("Name", exact=True).fill("Claude on line 3")
    await page.get_by_label("Tools it may call (optional)").fill("items.create\nboards_get")
    await page.get_by_role("button", name="Create key").click()
    secret = await page.get_by_label("Assistant key", exact=True).input_value()
    assert secret.startswith("svc_mcp_live_")
    row = page.get_by_role("row", name=re.compile("Claude on line 3"))
    await expect(row).to_contain_text("items.create")
    await expect(row).to_contain_text("boards.get")
    await check_accessibility(page, "settings-mcp-keys")
    await screenshot(page, "settings-mcp-keys")
    await page.get_by_role("button", name="Done: I have copied it").click()
    await expect(page.get_by_label("Assistant key", exact=True)).to_have_count(0)
    await page.get_by_role("button", name="Revoke Claude on line 3").click()
    await confirm(page, "Revoke")
    await expect(row).to_contain_text("Revoked")
    keys = (await org.owner.query("mcpKeys.list")).data
    assert [(key["name"], key["status"]) for key in keys] == [("Claude on line 3", "revoked")]


async def test_a_member_sees_only_the_sections_a_member_may_open(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any, check_accessibility: Any) -> None:
    _, member = await org.add_user("member", name="Mia Member")
    page = await settings(open_page, org_url, browser, client, replace(org, owner=member), "members")
    navigation = page.get_by_role("navigation", name="Settings")
    assert await navigation.get_by_role("link").all_inner_texts() == [
        "Members", "Personal access tokens", "Assistant (MCP) keys", "Automations", "Activity", "Exports"]
    await expect(navigation.get_by_role("link", name="Members")).to_have_attribute("aria-current", "page")
    await expect(page.get_by_role("row", name=re.compile("Mia Member"))).to_be_visible()
    await expect(page.get_by_text("Only owners and admins can invite people")).to_be_visible()
    await expect(page.get_by_role("button", name="Send invitation")).to_have_count(0)
    await expect(page.get_by_role("button", name=re.compile("^Change role"))).to_have_count(0)
    await check_accessibility(page, "settings-members-as-member")

    await page.goto(f"{org_url(client, org.slug)}/settings/api-keys")
    await expect(page.get_by_role("heading", name="You do not have access")).to_be_visible()
    await expect(page.get_by_label("Name", exact=True)).to_have_count(0)
    await page.goto(f"{org_url(client, org.slug)}/settings/tokens")
    await expect(page.get_by_role("heading", name="Create a token")).to_be_visible()
    await check_accessibility(page, "settings-tokens-as-member")


async def test_settings_opens_the_first_section_and_an_unknown_one_is_not_found(
        browser: Any, client: Any, org: Org, open_page: Any, org_url: Any) -> None:
    page = await settings(open_page, org_url, browser, client, org, None)
    await expect(page).to_have_url(re.compile("/settings/members$"))
    await page.goto(f"{org_url(client, org.slug)}/settings/nonsense")
    await expect(page.get_by_role("heading", level=1, name="Page not found")).to_be_visible()


async def test_a_plan_without_api_access_lists_and_revokes_but_makes_nothing(
        browser: Any, client: Any, open_page: Any, org_url: Any, check_accessibility: Any) -> None:
    org = await make_org(client, plan="free")
    # A token from before a downgrade (the API makes one on any plan; only using it is refused).
    made = await org.owner.mutate("auth.tokens.create", {"name": "Old export", "scopes": ["read"]})
    assert made.status == 200, made.body
    page = await settings(open_page, org_url, browser, client, org, "tokens")
    await expect(page.get_by_text("This organization is on the Free plan.")).to_be_visible()
    await expect(page.get_by_role("link", name="Compare plans and upgrade in Billing")).to_have_attribute(
        "href", "/settings/billing")
    await expect(page.get_by_role("button", name="Create token")).to_have_count(0)
    row = page.get_by_role("row", name=re.compile("Old export"))
    await expect(row).to_contain_text("Active")
    await check_accessibility(page, "settings-plan-missing")
    await row.get_by_role("button", name="Revoke Old export").click()
    await confirm(page, "Revoke")
    await expect(row).to_contain_text("Revoked")
    tokens = (await org.owner.query("auth.tokens.list")).data
    assert [(token["name"], token["status"]) for token in tokens] == [("Old export", "revoked")]
