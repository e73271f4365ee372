"""A KPI's page (/kpis/<id>, web/ui/static/screens/kpi.js) and an action's page (/actions/<id>,
web/ui/static/screens/action.js) in a real browser against the real server. The KPI: a value entered through the
form (a bad one first: the GOV.UK error summary and the field's message), its status in words and its row in the
history, a value set through the API arriving live, the alert a value past its threshold raises acknowledged and
resolved. The action: status and due date changed, an escalation, and the conflict choice when the action was
changed through the API after the page loaded. Axe and the screenshots of both."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import allow_console_errors, check_accessibility, open_page, org_url, screenshot
from tests.harness import Org, make_org


async def _sqcdp_board(org: Org) -> dict[str, Any]:
    """A board made from the SQCDP tier-1 template."""
    owner = org.owner
    workspace = (await owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    project = (await owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"})).data
    board = (await owner.mutate("templates.apply", {"templateId": "tpl_vendor_sqcdp", "projectId": project["id"],
                                                    "boardName": "Line 4 tier 1"})).data
    return dict(board)


async def _open(browser: Browser, client: Any, org: Org, path: str) -> Page:
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}{path}")
    return page


async def _clear_for_the_shot(page: Page) -> None:
    """No focus ring, the top of the page, and no toast (one may or may not still be shown, so no wait on it)."""
    await page.evaluate("""() => {
      document.querySelectorAll('.notices button[aria-label="Dismiss"]').forEach((button) => button.click());
      document.activeElement.blur();
      window.scrollTo(0, 0);
    }""")
    await expect(page.get_by_role("button", name="Dismiss")).to_have_count(0)


async def test_a_kpi_value_is_entered_arrives_live_and_its_alert_is_acknowledged_and_resolved(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _sqcdp_board(org)
    kpi = (await org.owner.mutate("kpis.define", {
        "boardId": board["id"], "name": "First pass yield", "category": "quality", "direction": "higher_is_better",
        "frequency": "daily", "unit": "%", "responsibleUserId": org.owner_id,
        "thresholds": {"green": {"min": 95}, "amber": {"min": 90, "max": 95}, "red": {"max": 90}}})).data
    page = await _open(browser, client, org, f"/kpis/{kpi['id']}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("First pass yield")
    await expect(page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="Line 4 tier 1")
                 ).to_have_attribute("href", f"/boards/{board['id']}")
    await expect(page.get_by_text("No status until a value is entered")).to_be_visible()
    await expect(page.get_by_text("No values recorded yet.")).to_be_visible()

    form = page.get_by_role("form", name="Enter a value")
    value = form.get_by_label("Value", exact=True)
    await value.fill("ninety")
    await form.get_by_role("button", name="Record value").click()
    summary = form.get_by_role("alert")
    await expect(summary).to_contain_text("There is a problem")
    await expect(summary.get_by_role("link", name="Enter the value as a number, like 2.5")).to_be_visible()
    await expect(value).to_have_attribute("aria-invalid", "true")
    await expect(value).to_have_accessible_description(re.compile("Error: Enter the value as a number, like 2.5"))
    await summary.get_by_role("link").click()
    await expect(value).to_be_focused()

    await value.fill("96,5")
    await form.get_by_label("Comment (optional)").fill("Day shift")
    await form.get_by_role("button", name="Record value").click()
    figures = page.locator(".kpi-figures")
    await expect(figures).to_contain_text("96.5 %")
    await expect(figures).to_contain_text("Green: on target")
    history = page.get_by_role("table", name="Recent values")
    await expect(history.get_by_role("row").nth(1)).to_contain_text("96.5 %GreenDay shiftEntered")
    await expect(value).to_have_value("")
    assert (await org.owner.query("kpis.getValue", {"kpiId": kpi["id"]})).data["value"] == 96.5

    # A value set elsewhere (the API) arrives live; past the red threshold it raises an alert.
    await org.owner.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 87.25, "comment": "Night shift"})
    await expect(figures).to_contain_text("87.25 %")
    await expect(figures).to_contain_text("Red: off target")
    await expect(history.get_by_role("row")).to_have_count(3)
    await expect(history.get_by_role("row").nth(1)).to_contain_text("87.25 %RedNight shift")
    alerts = page.get_by_role("region", name="Alerts")
    alert = alerts.get_by_role("listitem")
    await expect(alert).to_have_count(1)
    await expect(alert).to_contain_text("Active")
    await expect(alert).to_contain_text("87.25 % recorded")
    await check_accessibility(page, "kpi")
    await _clear_for_the_shot(page)
    await screenshot(page, "kpi")

    await alert.get_by_role("button", name=re.compile(r"^Acknowledge the Red alert of ")).click()
    await expect(alert).to_contain_text("Acknowledged")
    await expect(alert.get_by_role("button", name=re.compile("^Acknowledge"))).to_have_count(0)
    await alert.get_by_role("button", name=re.compile(r"^Resolve the Red alert of ")).click()
    await expect(alert).to_contain_text("Resolved")
    await expect(alert.get_by_role("button")).to_have_count(0)
    listed = (await org.owner.query("kpis.getAlerts", {"boardId": board["id"], "kpiId": kpi["id"]})).data["alerts"]
    assert [(a["threshold"], a["status"]) for a in listed] == [("red", "resolved")]
