"""The notifications in a real browser against the real server: an action another member assigns to the owner
raises the unread count in the top bar live, on whatever screen is open; the notifications page (web/ui/static/
screens/notifications.js) lists it with its link to the action; marking one and then all as read lowers the
count; axe and the screenshot."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Browser, Route, expect

from tests.browser.conftest import check_accessibility, open_page, org_url, screenshot
from tests.harness import Org, make_org


async def _board(org: Org) -> str:
    workspace = (await org.owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    project = (await org.owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"})).data
    board = (await org.owner.mutate("boards.create", {"projectId": project["id"], "name": "Line 4 tier 1"})).data
    return str(board["id"])


async def test_actions_assigned_by_someone_else_are_counted_live_listed_and_marked_read(browser: Browser,
                                                                                        client: Any) -> None:
    org = await make_org(client)
    board = await _board(org)
    _, member = await org.add_user("member", name="Mia Martin")
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/")
    main_navigation = page.get_by_role("navigation", name="Main")
    await expect(main_navigation.get_by_role("link", name="Notifications", exact=True)).to_be_visible()

    first = (await member.mutate("actions.create", {
        "boardId": board, "title": "Fix the guard on press 3", "priority": "high", "assigneeId": org.owner_id,
        "dueDate": "2026-12-04"})).data
    link = main_navigation.get_by_role("link", name=re.compile(r"^Notifications"))
    await expect(link).to_have_accessible_name(re.compile(r"1 unread notification$"))
    second = (await member.mutate("actions.create", {
        "boardId": board, "title": "Order spare torque wrenches", "priority": "medium", "assigneeId": org.owner_id,
        "dueDate": "2026-12-11"})).data
    await expect(link).to_have_accessible_name(re.compile(r"2 unread notifications$"))
    await expect(link).to_contain_text("2")

    await link.click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Notifications")
    listed = page.get_by_role("list", name="Your notifications, newest first")
    entries = listed.get_by_role("listitem")
    await expect(entries).to_have_count(2)
    await expect(entries.nth(0).get_by_role("link")).to_have_attribute("href", f"/actions/{second['id']}")
    await expect(entries.nth(1).get_by_role("link")).to_have_attribute("href", f"/actions/{first['id']}")
    await expect(entries.nth(1)).to_contain_text("Fix the guard on press 3")
    await expect(entries.nth(1)).to_contain_text("Unread")
    await expect(page.get_by_text("You have 2 unread notifications.")).to_be_visible()
    await check_accessibility(page, "notifications")
    await page.evaluate("document.activeElement.blur()")
    await screenshot(page, "notifications")

    await entries.nth(1).get_by_role(
        "button", name="Mark as read: An action was assigned to you: Fix the guard on press 3").click()
    await expect(link).to_have_accessible_name(re.compile(r"1 unread notification$"))
    await expect(entries.nth(1)).to_contain_text("Read")
    await expect(entries.nth(1).get_by_role("button")).to_have_count(0)
    await expect(entries.nth(0).get_by_role("button", name=re.compile("^Mark as read: "))).to_be_visible()

    await page.get_by_role("button", name="Mark all as read").click()
    await expect(link).to_have_accessible_name("Notifications")
    await expect(listed.get_by_role("button")).to_have_count(0)
    await expect(page.get_by_role("button", name="Mark all as read")).to_have_count(0)
    assert (await org.owner.query("notifications.unreadCount", {})).data["count"] == 0

    # The link leads to the action.
    await entries.nth(1).get_by_role("link").click()
    await expect(page).to_have_url(re.compile(rf"/actions/{first['id']}$"))
    await expect(page.get_by_role("heading", level=1)).to_have_text("Fix the guard on press 3")


async def test_a_notification_made_while_the_count_is_first_read_is_counted_once(browser: Browser,
                                                                                 client: Any) -> None:
    org = await make_org(client)
    board = await _board(org)
    _, member = await org.add_user("member", name="Mia Martin")
    page = await open_page(browser, client, org)
    assigned: list[str] = []

    async def assign_then_answer(route: Route) -> None:
        # The page has subscribed to its notifications and asks for the count: an action is assigned now, so the
        # count read includes its notification and the event arrives while the read is on its way.
        if not assigned:
            action = (await member.mutate("actions.create", {
                "boardId": board, "title": "Fix the guard on press 3", "priority": "high",
                "assigneeId": org.owner_id, "dueDate": "2026-12-04"})).data
            assigned.append(action["id"])
        await route.continue_()

    await page.route(re.compile(r"/api/trpc/notifications\.unreadCount"), assign_then_answer)
    await page.goto(f"{org_url(client, org.slug)}/notifications")
    listed = page.get_by_role("list", name="Your notifications, newest first")
    await expect(listed.get_by_role("listitem")).to_have_count(1)
    link = page.get_by_role("navigation", name="Main").get_by_role("link", name=re.compile(r"^Notifications"))
    await expect(link).to_have_accessible_name(re.compile(r"1 unread notification$"))
    await expect(page.get_by_text("You have 1 unread notification.")).to_be_visible()
    assert len(assigned) == 1
