"""The integration settings sections in a real browser against the real server: webhooks with their delivery log
and re-send to a receiver on 127.0.0.1, automations with "Run now" and the run history, single sign-on (the
secret never shown back), billing through the sandbox processor's checkout and back, the activity trail, and
board exports downloaded as files. Each section is checked with axe and photographed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import check_accessibility, open_page, org_url, screenshot
from tests.harness import Api, Org, make_org
from tests.integration.boards.conftest import make_board, make_project
from tests.integration.webhooks.conftest import Receiver, delivery_settled, receiver  # noqa: F401  (fixture)

pytestmark = pytest.mark.workers("webhook-sender", "automations")


async def settings(browser: Any, client: Any, org: Org, section: str) -> Page:
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/settings/{section}")
    return page


async def first_run(api: Api, board_id: str) -> dict[str, Any]:
    """The board's newest automation run once the engine has recorded one."""
    for _ in range(500):
        reply = await api.query("automations.getExecutionHistory", {"boardId": board_id})
        assert reply.status == 200, reply.body
        if reply.data["items"]:
            return dict(reply.data["items"][0])
        await asyncio.sleep(0.01)
    raise AssertionError("no run was recorded")


async def test_webhook_made_in_the_page_logs_a_failure_and_resends_it(browser: Any, client: Any,
                                                                     receiver: Receiver) -> None:  # noqa: F811
    org = await make_org(client)
    page = await settings(browser, client, org, "webhooks")
    await expect(page.get_by_role("heading", level=2, name="Webhooks")).to_be_visible()
    await page.get_by_role("button", name="Add a webhook").click()
    form = page.get_by_role("dialog", name="Add a webhook")
    await form.get_by_role("button", name="Add webhook").click()  # nothing filled in: the GOV.UK errors
    summary = form.get_by_role("alert")
    await expect(summary.get_by_role("link", name="Enter the URL to send events to")).to_be_visible()
    await expect(summary.get_by_role("link", name="Choose at least one event")).to_be_visible()
    await form.get_by_label("URL", exact=True).fill(receiver.url)
    await form.get_by_role("checkbox", name="A project is created").check()
    await form.get_by_label("Signing secret (optional)").fill("whsec-from-the-page")
    await form.get_by_role("button", name="Add webhook").click()
    row = page.get_by_role("row").filter(has_text=receiver.url)
    await expect(row.get_by_role("cell").nth(2)).to_have_text("Active")
    hook = (await org.owner.query("webhooks.list", {})).data[0]
    assert hook["url"] == receiver.url and hook["events"] == ["project.created"] and hook["secretSet"] is True

    receiver.status = 500
    await make_project(org)
    first = await receiver.next()
    await delivery_settled(org.owner, hook["id"], 1, "retrying")
    await row.get_by_role("button", name=f"Delivery log of {receiver.url}").click()
    log = page.get_by_role("region", name=f"Delivery log: {receiver.url}")
    newest = log.get_by_role("table").get_by_role("row").nth(1)
    await expect(newest).to_contain_text("project.created")
    await expect(newest.get_by_role("cell").nth(2)).to_have_text("Failed, will retry")
    await expect(newest.get_by_role("cell").nth(3)).to_have_text("500")
    await check_accessibility(page, "settings-webhooks")
    await screenshot(page, "settings-webhooks")

    receiver.status = 200
    await log.get_by_role("button", name="Re-send failed deliveries").click()
    await expect(log.get_by_role("status")).to_have_text("1 delivery is being sent again.")
    again = await receiver.next(timeout=10)
    assert again.headers["webhook-id"] == first.headers["webhook-id"]
    await delivery_settled(org.owner, hook["id"], 1, "succeeded")
    await log.get_by_role("button", name="Check the log again").click()
    await expect(newest.get_by_role("cell").nth(2)).to_have_text("Delivered")
    await expect(newest.get_by_role("cell").nth(3)).to_have_text("200")


async def test_webhook_is_edited_and_deleted_after_a_confirmation(browser: Any, client: Any) -> None:
    org = await make_org(client)
    made = await org.owner.rest("POST", "/api/v1/webhooks", {"url": "https://hooks.example.com/a",
                                                              "events": ["item.created"]})
    assert made.status == 201, made.body
    page = await settings(browser, client, org, "webhooks")
    await page.get_by_role("button", name="Edit https://hooks.example.com/a").click()
    form = page.get_by_role("dialog", name="Edit the webhook")
    await form.get_by_role("checkbox", name="An item is deleted").check()
    await form.get_by_role("checkbox", name="Send events").uncheck()
    await form.get_by_role("button", name="Save webhook").click()
    await expect(page.get_by_role("row").filter(has_text="hooks.example.com/a")).to_contain_text("Paused")
    hook = (await org.owner.query("webhooks.list", {})).data[0]
    assert hook["events"] == ["item.created", "item.deleted"] and hook["active"] is False

    await page.get_by_role("button", name="Delete https://hooks.example.com/a").click()
    confirm = page.get_by_role("dialog", name="Delete this webhook?")
    await confirm.get_by_role("button", name="Delete webhook").click()
    await expect(page.get_by_text("No webhooks yet.")).to_be_visible()
    assert (await org.owner.query("webhooks.list", {})).data == []


async def test_automation_made_in_the_page_runs_now_and_shows_in_the_history(browser: Any, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org)
    await board.add_item("Pump 3 leaks")
    page = await settings(browser, client, org, "automations")
    await expect(page.get_by_role("combobox", name="Board")).to_have_value(board.id)
    await page.get_by_role("button", name="Add a rule").click()
    form = page.get_by_role("dialog", name="Add a rule")
    await form.get_by_role("button", name="Add a condition").click()
    await form.get_by_role("button", name="Add an action").click()
    await form.get_by_role("button", name="Remove action 2").click()  # focus goes to action 1, not the page
    await expect(form.get_by_label("Action", exact=True)).to_be_focused()
    await form.get_by_role("button", name="Remove condition 1").click()  # the first: focus goes to its add button
    await expect(form.get_by_role("button", name="Add a condition")).to_be_focused()
    await form.get_by_label("Trigger").select_option("recurring")
    await form.get_by_label("Schedule (cron, UTC)").fill("every morning")
    await form.get_by_label("Action", exact=True).select_option("create_subitem")
    await form.get_by_label("Name", exact=True).nth(1).fill("Check the seal")
    await form.get_by_role("button", name="Add rule").click()
    summary = form.get_by_role("alert")
    await expect(summary.get_by_role("link", name="Enter a name for the rule")).to_be_visible()
    await form.get_by_label("Name", exact=True).first.fill("Seal check")
    await form.get_by_role("button", name="Add rule").click()  # the server refuses the cron expression
    await expect(summary.get_by_role("link")).to_have_text(
        "Schedule (cron, UTC) must be a cron expression of five fields (UTC)")
    await form.get_by_label("Trigger").select_option("item.created")
    await form.get_by_role("button", name="Add rule").click()

    row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Seal check"))
    await expect(row).to_contain_text("An item is created")
    await expect(row.get_by_role("switch", name="Enabled: Seal check")).to_be_checked()
    await row.get_by_role("switch", name="Enabled: Seal check").uncheck()
    await expect(page.get_by_role("status").filter(has_text="Seal check is disabled").first).to_be_visible()
    rules = (await org.owner.query("automations.list", {"boardId": board.id})).data["automations"]
    assert [(rule["name"], rule["enabled"]) for rule in rules] == [("Seal check", False)]

    await row.get_by_role("button", name="Run now: Seal check").click()
    await expect(page.get_by_role("status").filter(has_text="1 run queued").first).to_be_visible()
    run = await first_run(org.owner, board.id)
    assert run["status"] == "success", run
    history = page.get_by_role("table", name="Run history")
    await page.get_by_role("button", name="Check the history again").click()
    entry = history.get_by_role("row").nth(1)
    await expect(entry).to_contain_text("Seal check")
    await expect(entry).to_contain_text("Succeeded")
    await expect(entry).to_contain_text("Run by hand")
    await expect(row.get_by_role("cell").nth(2)).to_contain_text("1 run")  # the rule's last run, read again
    await entry.get_by_role("button").click()
    detail = page.get_by_role("dialog")
    await expect(detail).to_contain_text("Add a sub-item: done")
    await detail.get_by_role("button", name="Close").click()
    await check_accessibility(page, "settings-automations")
    await screenshot(page, "settings-automations")


async def test_a_plan_without_automations_is_sent_to_billing(browser: Any, client: Any) -> None:
    org = await make_org(client, plan="free")
    page = await settings(browser, client, org, "automations")
    await expect(page.get_by_text("Your plan does not include automations")).to_be_visible()
    await expect(page.get_by_text("Plans with automations: Starter, Business and Enterprise. This organization is on "
                                  "the Free plan.")).to_be_visible()
    await expect(page.get_by_role("button", name="Add a rule")).to_have_count(0)
    await page.get_by_role("link", name="Compare plans and upgrade in Billing").click()
    await expect(page).to_have_url(f"{org_url(client, org.slug)}/settings/billing")


async def test_sso_settings_are_saved_and_the_secret_never_shown_back(browser: Any, client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    page = await settings(browser, client, org, "sso")
    redirect = f"{org_url(client, org.slug)}/api/v1/auth/sso/callback"
    await expect(page.get_by_role("textbox", name="Redirect URI")).to_have_value(redirect)
    await page.get_by_label("Issuer URL").fill("https://id.example.com/realms/plant")
    await page.get_by_label("Client ID").fill("obeya-plant")
    await page.get_by_label("Client secret").fill("a-very-secret-value")
    await page.get_by_label("Allowed e-mail domains (optional)").fill("plant.example.com")
    await page.get_by_role("checkbox", name="Require single sign-on for everyone but the owner").check()
    await page.get_by_role("button", name="Save single sign-on settings").click()
    await expect(page.get_by_role("status").filter(has_text="Single sign-on settings saved")).to_be_visible()
    config = (await org.owner.query("sso.getConfig", {})).data
    assert config["issuer"] == "https://id.example.com/realms/plant" and config["clientId"] == "obeya-plant"
    assert config["hasClientSecret"] is True and config["enforce"] is True
    assert config["allowedDomains"] == ["plant.example.com"]

    await page.reload()
    await expect(page.get_by_label("Client ID")).to_have_value("obeya-plant")
    await expect(page.get_by_label("Client secret")).to_have_value("")
    await expect(page.get_by_text("A secret is set.")).to_be_visible()
    assert "a-very-secret-value" not in await page.content()
    await check_accessibility(page, "settings-sso")
    await screenshot(page, "settings-sso")


async def test_billing_upgrade_through_the_sandbox_checkout_shows_the_new_plan(browser: Any, client: Any) -> None:
    org = await make_org(client, plan="starter")
    page = await settings(browser, client, org, "billing")
    current = page.get_by_role("region", name="Your subscription")
    await expect(current).to_contain_text("Starter")
    await page.get_by_role("button", name="Upgrade to Business").click()
    await page.get_by_role("button", name="Pay").click()
    await expect(page).to_have_url(f"{org_url(client, org.slug)}/settings/billing?checkout=success")
    await expect(page.get_by_role("status").filter(has_text="now on the Business plan")).to_be_visible()
    await expect(page.get_by_role("region", name="Your subscription")).to_contain_text("Business")
    plan = (await org.owner.query("billing.getSubscription", {})).data["subscription"]["plan"]
    assert plan == "business"
    await check_accessibility(page, "settings-billing")
    await screenshot(page, "settings-billing")


async def test_activity_lists_a_change_made_through_the_api(browser: Any, client: Any) -> None:
    org = await make_org(client)
    made = await org.owner.mutate("workspaces.create", {"name": "Plant 7"})
    assert made.status == 200, made.body
    page = await settings(browser, client, org, "activity")
    entry = page.get_by_role("row").filter(has_text="Created a workspace")
    await expect(entry).to_contain_text("Olga Owner")
    await expect(entry.get_by_role("cell").nth(3)).to_have_text("Workspace: Plant 7")
    await expect(entry.get_by_role("link", name="Plant 7")).to_have_attribute(
        "href", f"/workspaces/{made.data['id']}")
    await page.get_by_label("Kind of thing").select_option(label="Workspace")
    await expect(page.get_by_role("table", name="Activity").get_by_role("row")).to_have_count(2)  # header + entry
    await check_accessibility(page, "settings-activity")
    await screenshot(page, "settings-activity")


async def test_an_export_downloads_the_boards_items(browser: Any, client: Any, tmp_path: Path) -> None:
    org = await make_org(client)
    board = await make_board(org)
    for name in ("Pump A", "Pump B"):
        await board.add_item(name)
    page = await settings(browser, client, org, "exports")
    await expect(page.get_by_role("combobox", name="Board")).to_have_value(board.id)
    async with page.expect_download() as csv_download:
        await page.get_by_role("button", name="Download the items").click()
    download = await csv_download.value
    assert download.suggested_filename == "Tier-1-board-items.csv"
    await download.save_as(tmp_path / "items.csv")  # the browser is remote: its files are copied, not shared
    text = (tmp_path / "items.csv").read_text(encoding="utf-8")
    header, *rows = text.splitlines()
    assert header.startswith("Group,Item Name,Created At")
    assert sorted(row.split(",")[1] for row in rows) == ["Pump A", "Pump B"]

    await page.get_by_role("radio", name="JSON (one object per item)").check()
    async with page.expect_download() as json_download:
        await page.get_by_role("button", name="Download the items").click()
    download = await json_download.value
    assert download.suggested_filename == "Tier-1-board-items.json"
    await download.save_as(tmp_path / "items.json")
    items = json.loads((tmp_path / "items.json").read_text(encoding="utf-8"))
    assert sorted(item["Item Name"] for item in items) == ["Pump A", "Pump B"]
    await check_accessibility(page, "settings-exports")
    await screenshot(page, "settings-exports")
