"""The organization's home ("/", "/workspaces/<id>", "/projects/<id>", web/ui/static/screens/home.js) in a real
browser against the real server: an empty organization's first step, a workspace, a project and a board from the
SQCDP template made through the panes, renaming and deleting each (the confirmation naming what goes with it), the
choice kept in the URL across a reload, a project made by someone else appearing live, what a member and a guest
may do, axe and the screenshots."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import check_accessibility, open_page, org_url, screenshot
from tests.harness import Api, Org, make_org

SQCDP = "tpl_vendor_sqcdp"


async def _home(browser: Browser, client: Any, org: Org, path: str = "/", as_user: Api | None = None) -> Page:
    page = await open_page(browser, client, None if as_user else org)
    if as_user is not None:
        assert as_user.session
        await page.context.add_cookies([{"name": "authjs.session-token", "value": as_user.session,
                                         "domain": org.host, "path": "/", "httpOnly": True, "sameSite": "Lax"}])
    await page.goto(f"{org_url(client, org.slug)}{path}")
    return page


async def _plant(org: Org) -> dict[str, Any]:
    """Two workspaces, the first with two projects, the first project with a board."""
    owner = org.owner
    plant = (await owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    await owner.mutate("workspaces.create", {"name": "Plant 2"})
    line = (await owner.mutate("projects.create", {"workspaceId": plant["id"], "name": "Line 4"})).data
    await owner.mutate("projects.create", {"workspaceId": plant["id"], "name": "Paint shop"})
    board = (await owner.mutate("boards.create", {"projectId": line["id"], "name": "Line 4 tier 1"})).data
    return {"workspace": plant["id"], "project": line["id"], "board": board["id"]}


async def test_an_empty_organization_is_led_from_a_workspace_to_a_board_from_the_sqcdp_template(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    page = await _home(browser, client, org)
    first = page.get_by_role("region", name="Create your first workspace")
    await expect(first).to_contain_text("A workspace holds the projects of a plant")
    await check_accessibility(page, "home, empty")
    await page.evaluate("document.activeElement.blur()")
    await screenshot(page, "home-empty")

    await first.get_by_role("button", name="Create your first workspace").click()
    dialog = page.get_by_role("dialog", name="New workspace")
    await dialog.get_by_role("button", name="New workspace").click()
    summary = dialog.get_by_role("alert")
    await expect(summary).to_contain_text("There is a problem")
    await expect(summary.get_by_role("link", name="Enter a name")).to_be_visible()
    await expect(dialog.get_by_label("Workspace name")).to_have_attribute("aria-invalid", "true")
    await dialog.get_by_label("Workspace name").fill("Plant 1")
    await dialog.get_by_role("button", name="New workspace").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Plant 1")
    workspaces = (await org.owner.query("workspaces.list", {})).data["workspaces"]
    assert [w["name"] for w in workspaces] == ["Plant 1"]
    await expect(page).to_have_url(re.compile(rf"/workspaces/{workspaces[0]['id']}$"))

    await page.get_by_role("button", name="New project").click()
    dialog = page.get_by_role("dialog", name="New project")
    await dialog.get_by_label("Project name").fill("Line 4")
    await dialog.get_by_role("button", name="New project").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Line 4")
    projects = (await org.owner.query("projects.list", {"workspaceId": workspaces[0]["id"]})).data["projects"]
    await expect(page).to_have_url(re.compile(rf"/projects/{projects[0]['id']}$"))
    boards = page.get_by_role("region", name="Boards in Line 4")
    await expect(boards).to_contain_text("No boards in this project yet")

    await boards.get_by_role("button", name="New board from a template").click()
    dialog = page.get_by_role("dialog", name="New board from a template")
    lean = dialog.get_by_role("group", name="Lean board templates")
    choices = lean.get_by_role("radio")
    await expect(choices.first).to_have_accessible_name("SQCDP tier-1 board")
    await expect(choices.first).to_be_checked()
    await expect(lean.get_by_text(re.compile(r"\(4 groups, 7 columns, 1 KPI\.\)$"))).to_have_count(1)
    await dialog.get_by_label("Board name").fill("Line 4 tier 1")
    await dialog.get_by_role("button", name="Create board").click()
    await expect(page).to_have_url(re.compile(r"/boards/brd_\w+$"))
    board_id = page.url.rsplit("/", 1)[1]

    board = (await org.owner.query("boards.get", {"id": board_id})).data
    template = (await org.owner.query("templates.getById", {"id": SQCDP})).data
    assert board["name"] == "Line 4 tier 1" and board["projectId"] == projects[0]["id"]
    assert [g["name"] for g in board["groups"]] == [g["name"] for g in template["structure"]["groups"]]
    assert [c["name"] for c in board["columns"]] == [c["name"] for c in template["structure"]["columns"]]
    assert [g["name"] for g in board["groups"]][0] == "S – Safety"


async def test_workspaces_projects_and_boards_are_renamed_and_deleted_with_what_goes_with_them(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    made = await _plant(org)
    page = await _home(browser, client, org, f"/projects/{made['project']}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Line 4")
    workspaces = page.get_by_role("region", name="Workspaces")
    projects = page.get_by_role("region", name="Projects in Plant 1")
    boards = page.get_by_role("region", name="Boards in Line 4")
    await expect(workspaces.get_by_role("link", name="Plant 1")).to_have_attribute("aria-current", "page")
    await expect(projects.get_by_role("link", name="Line 4")).to_have_attribute("aria-current", "page")
    await expect(boards.get_by_role("link", name="Line 4 tier 1")).to_have_attribute("href", f"/boards/{made['board']}")
    await check_accessibility(page, "home with its panes filled")
    await page.evaluate("document.activeElement.blur()")
    await screenshot(page, "home")

    # The choice is the URL: a reload shows the same panes.
    await page.reload()
    await expect(page.get_by_role("region", name="Boards in Line 4").get_by_role("link", name="Line 4 tier 1")
                 ).to_be_visible()
    await expect(projects.get_by_role("link", name="Line 4")).to_have_attribute("aria-current", "page")

    await boards.get_by_role("button", name="Rename Line 4 tier 1").click()
    dialog = page.get_by_role("dialog", name="Rename “Line 4 tier 1”")
    await expect(dialog.get_by_label("Board name")).to_have_value("Line 4 tier 1")
    await dialog.get_by_label("Board name").fill("Line 4 daily board")
    await dialog.get_by_role("button", name="Save name").click()
    await expect(boards.get_by_role("link", name="Line 4 daily board")).to_be_visible()
    assert (await org.owner.query("boards.get", {"id": made["board"]})).data["name"] == "Line 4 daily board"

    await boards.get_by_role("button", name="Delete Line 4 daily board").click()
    dialog = page.get_by_role("dialog", name="Delete “Line 4 daily board”?")
    await expect(dialog).to_contain_text("“Line 4 daily board” is deleted with its groups, columns, items, KPIs and "
                                         "actions. This cannot be undone.")
    await dialog.get_by_role("button", name="Delete board").click()
    await expect(boards).to_contain_text("No boards in this project yet")
    assert (await org.owner.query("boards.get", {"id": made["board"]})).status == 404

    await projects.get_by_role("button", name="Rename Line 4").click()
    dialog = page.get_by_role("dialog", name="Rename “Line 4”")
    await dialog.get_by_label("Project name").fill("Assembly line 4")
    await dialog.get_by_role("button", name="Save name").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Assembly line 4")
    await expect(page.get_by_role("region", name="Boards in Assembly line 4")).to_be_visible()

    await projects.get_by_role("button", name="Delete Assembly line 4").click()
    dialog = page.get_by_role("dialog", name="Delete “Assembly line 4”?")
    await expect(dialog).to_contain_text("“Assembly line 4” is deleted with its 0 boards")
    await dialog.get_by_role("button", name="Delete project").click()
    await expect(page).to_have_url(re.compile(rf"/workspaces/{made['workspace']}$"))
    await expect(page.get_by_role("heading", level=1)).to_have_text("Plant 1")
    await expect(projects.get_by_role("link")).to_have_text(["Paint shop"])

    await workspaces.get_by_role("button", name="Rename Plant 1").click()
    dialog = page.get_by_role("dialog", name="Rename “Plant 1”")
    await dialog.get_by_label("Workspace name").fill("Plant Lyon")
    await dialog.get_by_role("button", name="Save name").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Plant Lyon")
    await expect(workspaces.get_by_role("link", name="Plant Lyon")).to_be_visible()

    await workspaces.get_by_role("button", name="Delete Plant Lyon").click()
    dialog = page.get_by_role("dialog", name="Delete “Plant Lyon”?")
    await expect(dialog).to_contain_text("“Plant Lyon” is deleted with its 1 project and every board and item in it.")
    await dialog.get_by_role("button", name="Delete workspace").click()
    await expect(page).to_have_url(re.compile(r"/$"))
    await expect(page.get_by_role("region", name="Workspaces").get_by_role("link")).to_have_text(["Plant 2"])
    listed = (await org.owner.query("workspaces.list", {})).data["workspaces"]
    assert [w["name"] for w in listed] == ["Plant 2"]


async def test_a_project_made_or_deleted_by_someone_else_appears_and_goes_live(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    made = await _plant(org)
    _, member = await org.add_user("member", name="Mia Martin")
    page = await _home(browser, client, org, f"/workspaces/{made['workspace']}")
    projects = page.get_by_role("region", name="Projects in Plant 1")
    await expect(projects.get_by_role("link")).to_have_count(2)

    made_live = (await member.mutate("projects.create", {"workspaceId": made["workspace"], "name": "Press shop"})).data
    pressed = projects.get_by_role("link", name="Press shop")
    await expect(pressed).to_have_attribute("href", f"/projects/{made_live['id']}")
    await member.mutate("projects.delete", {"id": made_live["id"]})
    await expect(pressed).to_have_count(0)
    await expect(projects.get_by_role("link")).to_have_count(2)


async def test_a_member_creates_projects_and_boards_but_not_workspaces_and_a_guest_creates_nothing(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    made = await _plant(org)
    _, member = await org.add_user("member", name="Mia Martin")
    page = await _home(browser, client, org, f"/projects/{made['project']}", as_user=member)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Line 4")
    await expect(page.get_by_role("button", name="New project")).to_be_visible()
    await expect(page.get_by_role("button", name="New board from a template")).to_be_visible()
    await expect(page.get_by_role("button", name="New workspace")).to_have_count(0)
    await expect(page.get_by_role("button", name="Delete Plant 1")).to_have_count(0)

    # A guest sees the workspaces they are added to, and may change nothing.
    guest_id, guest = await org.add_user("guest", name="Gus Guest")
    await org.owner.mutate("workspaces.members.add", {"workspaceId": made["workspace"], "userId": guest_id})
    page = await _home(browser, client, org, f"/projects/{made['project']}", as_user=guest)
    await expect(page.get_by_role("region", name="Boards in Line 4").get_by_role("link", name="Line 4 tier 1")
                 ).to_be_visible()
    await expect(page.get_by_role("button")).to_have_text(["Sign out"])

    empty = await make_org(client)
    _, guest = await empty.add_user("guest", name="Gus Guest")
    page = await _home(browser, client, empty, as_user=guest)
    await expect(page.get_by_role("region", name="Create your first workspace")).to_contain_text(
        "Ask an administrator of your organization to create one.")
    await expect(page.get_by_role("button", name="Create your first workspace")).to_have_count(0)
