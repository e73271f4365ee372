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


async def _action(org: Org) -> tuple[dict[str, Any], str, str]:
    """An action on an SQCDP board, owned by a member; answers it, the member's id and the other member's."""
    board = await _sqcdp_board(org)
    mia, _ = await org.add_user("member", name="Mia Martin")
    theo, _ = await org.add_user("member", name="Theo Team-lead")
    action = (await org.owner.mutate("actions.create", {
        "boardId": board["id"], "title": "Fix the guard on press 3", "priority": "high", "assigneeId": mia,
        "dueDate": "2026-12-04", "description": "The light curtain trips without cause.",
        "category": "safety"})).data
    return dict(action), mia, theo


async def test_an_action_changes_status_and_due_date_and_is_escalated(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    action, _, theo = await _action(org)
    page = await _open(browser, client, org, f"/actions/{action['id']}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Fix the guard on press 3")
    facts = page.locator(".action-facts")
    await expect(facts).to_contain_text("StatusOpen")
    await expect(facts).to_contain_text("OwnerMia Martin")
    await expect(facts).to_contain_text("Due4 Dec 2026")
    await expect(page.get_by_text("The light curtain trips without cause.")).to_be_visible()

    form = page.get_by_role("form", name="Change status, owner or due date")
    await form.get_by_label("Status").select_option(label="In progress")
    await form.get_by_label("Due").fill("2026-12-18")
    await form.get_by_role("button", name="Save changes").click()
    await expect(facts).to_contain_text("StatusIn progress")
    await expect(facts).to_contain_text("Due18 Dec 2026")
    saved = (await org.owner.query("actions.getById", {"id": action["id"]})).data
    assert (saved["status"], saved["dueDate"]) == ("in_progress", "2026-12-18")

    await page.get_by_role("button", name="Escalate").click()
    dialog = page.get_by_role("dialog", name="Escalate this action")
    await dialog.get_by_role("button", name="Escalate").click()
    summary = dialog.get_by_role("alert")
    await expect(summary.get_by_role("link", name="Choose who the action is escalated to")).to_be_visible()
    await expect(summary.get_by_role("link", name="Enter the reason")).to_be_visible()
    await dialog.get_by_label("Escalate to").select_option(label="Theo Team-lead")
    await dialog.get_by_label("Reason").fill("Needs a maintenance slot this week")
    await dialog.get_by_role("button", name="Escalate").click()
    await expect(dialog).to_be_hidden()
    await expect(facts).to_contain_text("EscalationLevel 1, escalated to Theo Team-lead")
    history = page.get_by_role("region", name="Escalation history")
    await expect(history).to_contain_text("Level 0 to 1: Needs a maintenance slot this week")
    saved = (await org.owner.query("actions.getById", {"id": action["id"]})).data
    assert (saved["escalationLevel"], saved["escalatedTo"]["id"]) == (1, theo)

    await check_accessibility(page, "action")
    await _clear_for_the_shot(page)
    await screenshot(page, "action")


async def test_a_change_made_through_the_api_after_loading_is_offered_as_a_choice(browser: Browser,
                                                                                  client: Any) -> None:
    org = await make_org(client)
    action, _, theo = await _action(org)
    page = await _open(browser, client, org, f"/actions/{action['id']}")
    form = page.get_by_role("form", name="Change status, owner or due date")
    await form.get_by_label("Status").select_option(label="Completed")

    await org.owner.mutate("actions.update", {"id": action["id"], "assigneeId": theo, "dueDate": "2026-12-01"})
    facts = page.locator(".action-facts")
    await expect(facts).to_contain_text("OwnerTheo Team-lead")
    conflict = page.get_by_role("alert").filter(has_text="Someone changed this action while you were editing it")
    # The browser logs the refused write (409) as a console error: here it is the point.
    with allow_console_errors(page, r"status of 409 \(Conflict\)"):
        await form.get_by_role("button", name="Save changes").click()
        await expect(conflict).to_contain_text("Now savedOpen; owner Theo Team-lead; due 1 Dec 2026")
    # Theirs is kept where the person changed nothing: only the status is theirs to overwrite.
    await expect(conflict).to_contain_text("Your changeCompleted; owner Theo Team-lead; due 1 Dec 2026")
    await expect(form.get_by_label("Owner")).to_have_value(theo)
    await expect(form.get_by_label("Status")).to_have_value("completed")
    assert (await org.owner.query("actions.getById", {"id": action["id"]})).data["status"] == "open"

    await conflict.get_by_role("button", name="Save mine over it").click()
    await expect(conflict).to_have_count(0)
    await expect(facts).to_contain_text("StatusCompleted")
    saved = (await org.owner.query("actions.getById", {"id": action["id"]})).data
    assert (saved["status"], saved["assigneeId"], saved["dueDate"]) == ("completed", theo, "2026-12-01")
