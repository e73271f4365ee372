"""The tier-meeting wall screen (/screens/<display id>, web/ui/static/screens/wall.js) and the dashboard's Displays
section (/settings/displays) in a real browser against the real server: the SQCDP letters in their KPIs' status
and the board followed live; a burst of 500 writes followed to exactly the server's state; a network cut and a
server restart caught up once, with the last time the server was heard on screen meanwhile; a revoked display
going dark at once, after a reload, and when it comes back from a cut; a tier meeting started and completed from
the wall while its agenda follows the person leading it; a display link made in the settings opening the wall.
Axe on both, and the screenshots of the wall at 1080p and 4K and of the section."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
from aiohttp import DummyCookieJar
from aiohttp.test_utils import TestClient, TestServer
from playwright.async_api import Browser, Page, expect

from tests.browser.conftest import (
    allow_console_errors,
    check_accessibility,
    open_page,
    org_url,
    screenshot,
    set_offline,
)
from tests.harness import Api, Org, make_org

# What Chromium logs while the page cannot reach the server: the websocket's failed attempts and any read refused.
_UNREACHABLE = r"WebSocket connection to .* failed|net::ERR_(INTERNET_DISCONNECTED|CONNECTION_REFUSED)"
# Socket.IO waits up to 5 s between attempts (live.js), so a page back online may take that long to hear it.
_RECOVERY_MS = 15_000
_HD = (1920, 1080)
_PERCENT = {"green": {"min": 95}, "amber": {"min": 90, "max": 95}, "red": {"max": 90}}
# The letter tiles' colours (screens/wall.css): what the eye reads from across the room, beside the word.
_GREEN, _AMBER, _RED = "rgb(47, 191, 113)", "rgb(255, 191, 71)", "rgb(255, 90, 79)"


@dataclass
class TierBoard:
    id: str
    groups: dict[str, str]  # name -> id
    count: str               # the number column's id
    kpis: dict[str, str]     # name -> id
    mia: str                 # member ids
    theo: str


def _today() -> date:
    """The wall's day: the browser's (open_page: Berlin)."""
    return datetime.now(ZoneInfo("Europe/Berlin")).date()


async def _ok(reply: Any) -> Any:
    assert reply.status == 200, reply.body
    return reply.data


async def _tier_board(org: Org, *, kpis: bool = True) -> TierBoard:
    """A tier-1 board: three groups with items, a number column, five KPIs (one per letter, four with values and
    a target), an action due today and one overdue escalated to Theo."""
    owner = org.owner
    workspace = await _ok(await owner.mutate("workspaces.create", {"name": "Plant 1"}))
    project = await _ok(await owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"}))
    board = await _ok(await owner.mutate("boards.create", {
        "projectId": project["id"], "name": "Line 4 tier 1",
        "groups": [{"name": "Problems"}, {"name": "In progress"}, {"name": "Ideas"}],
        "columns": [{"name": "Count", "type": "number"}]}))
    groups = {group["name"]: group["id"] for group in board["groups"]}
    count = board["columns"][0]["id"] if board["columns"][0]["type"] == "number" else next(
        column["id"] for column in board["columns"] if column["type"] == "number")
    for group, names in (("Problems", ["Press 3 guard trips", "Scrap bin full"]),
                         ("In progress", ["New torque wrench"]), ("Ideas", ["Shadow board for tools"])):
        for name in names:
            await _ok(await owner.mutate("items.create", {"boardId": board["id"], "groupId": groups[group],
                                                          "name": name}))
    mia, _ = await org.add_user("member", name="Mia Martin")
    theo, _ = await org.add_user("member", name="Theo Team-lead")
    defined: dict[str, str] = {}
    if kpis:
        for name, category, values, target in (
                ("Safety walks done", "safety", [96, 97, 99, 98, 100], 98),
                ("First pass yield", "quality", [94, 96, 93, 91, 92], 96),
                ("Scrap cost", "cost", [], None),
                ("On-time delivery", "delivery", [97, 95, 93, 91], 98),
                ("Attendance", "people", [96, 97, 98], 95)):
            kpi = await _ok(await owner.mutate("kpis.define", {
                "boardId": board["id"], "name": name, "category": category, "direction": "higher_is_better",
                "frequency": "daily", "unit": "%", "thresholds": _PERCENT}))
            defined[name] = kpi["id"]
            for value in values:
                await _ok(await owner.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": value}))
            if target is not None:
                await _ok(await owner.mutate("kpis.setTarget", {
                    "kpiId": kpi["id"], "value": target, "deadline": (_today() + timedelta(days=90)).isoformat()}))
        # Below 90 %: a red alert.
        await _ok(await owner.mutate("kpis.setValue", {"kpiId": defined["On-time delivery"], "value": 87}))
    await _ok(await owner.mutate("actions.create", {
        "boardId": board["id"], "title": "Restock cut-resistant gloves", "priority": "medium", "assigneeId": mia,
        "dueDate": _today().isoformat(), "category": "safety"}))
    late = await _ok(await owner.mutate("actions.create", {
        "boardId": board["id"], "title": "Fix the light curtain on press 3", "priority": "high", "assigneeId": mia,
        "dueDate": (_today() - timedelta(days=2)).isoformat(), "category": "safety"}))
    await _ok(await owner.mutate("actions.escalate", {"id": late["id"], "reason": "Waiting for a spare part",
                                                       "escalateToUserId": theo}))
    await _ok(await owner.mutate("actions.create", {
        "boardId": board["id"], "title": "Review the shift plan", "priority": "low", "assigneeId": theo,
        "dueDate": (_today() + timedelta(days=5)).isoformat(), "category": "people"}))
    return TierBoard(board["id"], groups, count, defined, mia, theo)


async def _display(org: Org, board_id: str, name: str = "Line 4 TV") -> dict[str, Any]:
    return dict(await _ok(await org.owner.mutate("displays.create", {"name": name, "boardId": board_id})))


async def _open_wall(browser: Browser, client: Any, url: str, viewport: tuple[int, int] = _HD) -> Page:
    """The wall in a fresh context without anyone signed in: the link is its only credential."""
    page = await open_page(browser, client, viewport=viewport)
    await page.goto(url)
    await expect(page.get_by_role("heading", name="Line 4 tier 1", level=1)).to_be_visible()
    await expect(page.get_by_role("main")).to_have_attribute("aria-busy", "false")
    return page


def _letters(page: Page) -> Any:
    return page.get_by_role("list", name="SQCDP status")


def _region(page: Page, name: str) -> Any:
    return page.get_by_role("region", name=re.compile(rf"^{re.escape(name)}"))


def _group(page: Page, name: str) -> Any:
    return page.get_by_role("region", name=re.compile(rf"^{re.escape(name)} \d+ items?$")).get_by_role("listitem")


def _heard(page: Page) -> Any:
    return page.get_by_role("region", name="Connection to the server").filter(has_text="Last heard from the server at")


async def _mark(page: Page) -> None:
    """A mark on the page's window: it is still there only if the page was never reloaded."""
    await page.evaluate("window.__notReloaded = true")


async def _not_reloaded(page: Page) -> None:
    assert await page.evaluate("window.__notReloaded === true"), "the page was reloaded"


async def _server_items(api: Api, board: TierBoard, group: str) -> list[str]:
    """A group's items as the wall shows them: name, then the count when there is one, in the server's order."""
    items = (await api.query("items.list", {"boardId": board.id, "limit": 200})).data["items"]
    rows = sorted((item for item in items if item["groupId"] == board.groups[group]), key=lambda item: item["position"])
    return [item["name"] + (f" {item['values'][board.count]:g}" if board.count in item.get("values", {}) else "")
            for item in rows]


async def _active_alerts(org: Org, board: TierBoard) -> list[tuple[str, str]]:
    """The board's active alerts, newest first: (KPI name, threshold)."""
    alerts = (await org.owner.query("kpis.getAlerts", {"boardId": board.id, "status": "active"})).data["alerts"]
    return [(alert["kpiName"], alert["threshold"]) for alert in alerts]


async def test_the_wall_shows_the_sqcdp_letters_by_their_kpis_status_and_follows_the_board_live(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _tier_board(org)
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    letters = _letters(page)
    await expect(letters.get_by_role("listitem")).to_have_count(5)
    expected = [("Safety", "On target", _GREEN), ("Quality", "At risk", _AMBER), ("Cost", "No data", None),
                ("Delivery", "Off target", _RED), ("People", "On target", _GREEN)]
    for category, status, colour in expected:
        letter = letters.get_by_role("listitem", name=f"{category}: {status}")
        await expect(letter).to_be_visible()
        await expect(letter).to_contain_text(status)  # the word is on screen, not only the colour
        if colour:
            await expect(letter).to_have_css("background-color", colour)

    await expect(page.get_by_role("img", name="First pass yield: the last 5 values against the target")).to_be_visible()
    await expect(page.get_by_role("img", name="Scrap cost: no values yet")).to_be_visible()
    trends = _region(page, "KPI trends")
    await expect(trends.get_by_role("listitem").filter(has_text="First pass yield")).to_contain_text("92 %")
    await expect(trends.get_by_role("listitem").filter(has_text="First pass yield")).to_contain_text("Target 96 %")

    alert_panel = _region(page, "Active alerts")
    alerts = alert_panel.get_by_role("listitem")
    active = await _active_alerts(org, board)
    assert active == [("On-time delivery", "red"), ("On-time delivery", "amber"), ("First pass yield", "amber")]
    await expect(alert_panel.get_by_role("heading")).to_have_text("Active alerts 3")
    await expect(alerts).to_have_count(3)
    await expect(alerts.first).to_contain_text("On-time delivery")
    await expect(alerts.first).to_contain_text(re.compile(r"87 % · Off target · \d{2}:\d{2}"))

    actions = _region(page, "Actions due today and overdue").get_by_role("listitem")
    await expect(actions).to_have_count(2)
    await expect(actions.nth(0)).to_contain_text("Fix the light curtain on press 3")
    await expect(actions.nth(0)).to_contain_text("Mia Martin")
    await expect(actions.nth(0)).to_contain_text("2 days overdue")
    await expect(actions.nth(0)).to_contain_text("Escalated: level 1 to Theo Team-lead")
    await expect(actions.nth(1)).to_contain_text("Restock cut-resistant gloves")
    await expect(actions.nth(1)).to_contain_text("Due today")

    await expect(_group(page, "Problems")).to_have_text(["Press 3 guard trips", "Scrap bin full"])
    await expect(_group(page, "In progress")).to_have_text(["New torque wrench"])
    await _mark(page)

    # Live: a safety value off target turns the S red and raises an alert; items and actions arrive and leave.
    await _ok(await org.owner.mutate("kpis.setValue", {"kpiId": board.kpis["Safety walks done"], "value": 80}))
    await expect(letters.get_by_role("listitem", name="Safety: Off target")).to_have_css("background-color", _RED)
    # The newest three, and how many more there are.
    await expect(alert_panel.get_by_role("heading")).to_have_text("Active alerts 4")
    await expect(alerts).to_have_count(3)
    await expect(alerts.first).to_contain_text("Safety walks done")
    await expect(alert_panel).to_contain_text("and 1 more")
    await expect(page.get_by_role("img", name="Safety walks done: the last 6 values against the target")
                 ).to_be_visible()
    item = await _ok(await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.groups["Problems"],
                                                             "name": "Oil on the floor at station 2"}))
    await _ok(await org.owner.mutate("items.setValue", {"itemId": item["id"], "columnId": board.count, "value": 3}))
    await expect(_group(page, "Problems")).to_have_text(["Press 3 guard trips", "Scrap bin full",
                                                         "Oil on the floor at station 2 3"])
    listed = (await org.owner.query("actions.list", {"boardId": board.id})).data["actions"]
    gloves = next(action for action in listed if action["title"] == "Restock cut-resistant gloves")
    await _ok(await org.owner.mutate("actions.update", {"id": gloves["id"], "status": "completed"}))
    await expect(actions).to_have_count(1)
    await _ok(await org.owner.mutate("actions.create", {
        "boardId": board.id, "title": "Clean the oil at station 2", "priority": "high", "assigneeId": board.theo,
        "dueDate": _today().isoformat(), "category": "safety"}))
    await expect(actions).to_have_count(2)
    await expect(actions.nth(1)).to_contain_text("Theo Team-lead")
    await _not_reloaded(page)
    await check_accessibility(page, "wall")


async def test_a_burst_of_500_writes_is_followed_in_order_with_nothing_missed(
        browser: Browser, client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    board = await _tier_board(org, kpis=False)
    kpi = await _ok(await org.owner.mutate("kpis.define", {
        "boardId": board.id, "name": "Parts per hour", "category": "delivery", "direction": "higher_is_better",
        "frequency": "daily", "thresholds": {"green": {"min": 400}, "red": {"max": 100}}}))
    items = [await _ok(await org.owner.mutate("items.create", {
        "boardId": board.id, "groupId": board.groups["Ideas"], "name": f"Station {number}"}))
        for number in range(1, 11)]
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    ideas = _group(page, "Ideas")
    await expect(ideas).to_have_count(11)
    await _mark(page)

    # 450 values over ten items (each item's in order, the items side by side) and 50 of the KPI: 500 writes.
    async def count_up(item: dict[str, Any]) -> None:
        for step in range(1, 46):
            await _ok(await org.owner.mutate("items.setValue", {"itemId": item["id"], "columnId": board.count,
                                                                "value": step * 10 + int(item["name"].split()[1])}))

    async def produce() -> None:
        for step in range(1, 51):
            await _ok(await org.owner.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": step * 10}))

    await asyncio.gather(*(count_up(item) for item in items), produce())

    expected = await _server_items(org.owner, board, "Ideas")
    assert expected[1:] == [f"Station {number} {450 + number}" for number in range(1, 11)]
    await expect(ideas).to_have_text(expected, timeout=30_000)
    trends = _region(page, "KPI trends").get_by_role("listitem")
    await expect(trends).to_contain_text("500")
    await expect(_letters(page).get_by_role("listitem", name="Delivery: On target")).to_be_visible()
    # The chart keeps its last 30 values, however many arrived.
    await expect(page.get_by_role("img", name="Parts per hour: the last 30 values against the target")).to_be_visible()
    latest = (await org.owner.query("kpis.getValue", {"kpiId": kpi["id"]})).data
    assert latest["value"] == 500
    await _not_reloaded(page)


async def test_the_wall_catches_up_once_after_a_network_cut_and_a_server_restart(
        browser: Browser, client: Any, database_url: str, request: pytest.FixtureRequest) -> None:
    from server.app import create_app
    from tests.conftest import server_settings

    org = await make_org(client)
    board = await _tier_board(org)
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    await _mark(page)
    fpy = board.kpis["First pass yield"]
    with allow_console_errors(page, _UNREACHABLE):
        await set_offline(page, True)
        await expect(_heard(page)).to_be_visible()
        await expect(_heard(page)).to_contain_text(re.compile(r"at \d{2}:\d{2}:\d{2} \(.+ ago\)"))
        await _ok(await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.groups["Ideas"],
                                                          "name": "Made while cut off"}))
        await _ok(await org.owner.mutate("kpis.setValue", {"kpiId": fpy, "value": 97}))
        await set_offline(page, False)
        await expect(_heard(page)).to_have_count(0, timeout=_RECOVERY_MS)
        await expect(_group(page, "Ideas")).to_have_text(await _server_items(org.owner, board, "Ideas"))
        await expect(page.get_by_text("Made while cut off", exact=True)).to_have_count(1)
        await expect(page.get_by_role("img", name="First pass yield: the last 6 values against the target")
                     ).to_be_visible()
        await expect(_letters(page).get_by_role("listitem", name="Quality: On target")).to_be_visible()

        # The server stops (its live sockets told, then closed) and a new one starts on the same port.
        port = client.server.port
        await client.server.close()
        await expect(_heard(page)).to_be_visible()
        settings = server_settings(request, OBEYA_PUBLIC_URL=f"http://localhost:{port}")
        again = TestClient(TestServer(create_app(settings, database_url), port=port), cookie_jar=DummyCookieJar())
        await again.start_server()
        try:
            owner = Api(again, org.host, session=org.owner.session)
            await _ok(await owner.mutate("items.create", {"boardId": board.id, "groupId": board.groups["Ideas"],
                                                          "name": "Made after the restart"}))
            await _ok(await owner.mutate("kpis.setValue", {"kpiId": fpy, "value": 85}))
            await expect(_heard(page)).to_have_count(0, timeout=_RECOVERY_MS)
            await expect(_group(page, "Ideas")).to_have_text(await _server_items(owner, board, "Ideas"))
            await expect(page.get_by_text("Made after the restart", exact=True)).to_have_count(1)
            await expect(page.get_by_role("img", name="First pass yield: the last 7 values against the target")
                         ).to_be_visible()
            await expect(_letters(page).get_by_role("listitem", name="Quality: Off target")).to_be_visible()
            await _ok(await owner.mutate("items.create", {"boardId": board.id, "groupId": board.groups["Ideas"],
                                                          "name": "Made live again"}))
            await expect(_group(page, "Ideas")).to_have_text(await _server_items(owner, board, "Ideas"))
            await _not_reloaded(page)
        finally:
            await page.context.close()  # before its server stops, so that no last request of it is refused
            await again.close()


async def test_a_revoked_display_goes_dark_at_once_and_stays_dark(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    await _ok(await org.owner.mutate("displays.revoke", {"id": display["id"]}))
    await expect(page.get_by_role("heading", name="This display link was revoked", level=1)).to_be_visible()
    await expect(_letters(page)).to_have_count(0)
    await expect(page.get_by_text("Press 3 guard trips")).to_have_count(0)
    # A reload (the screen switched off and on) finds the link refused: dark again, and it stays so.
    await page.reload()
    await expect(page.get_by_role("heading", name="This display link was revoked", level=1)).to_be_visible()
    await check_accessibility(page, "wall-revoked")

    # A screen cut off while its link is revoked misses the event: reconnecting, it is refused and goes dark.
    other = await _display(org, board.id, name="Line 4 second TV")
    cut = await _open_wall(browser, client, other["url"])
    with allow_console_errors(cut, _UNREACHABLE):
        await set_offline(cut, True)
        await expect(_heard(cut)).to_be_visible()
        await _ok(await org.owner.mutate("displays.revoke", {"id": other["id"]}))
        await set_offline(cut, False)
        await expect(cut.get_by_role("heading", name="This display link was revoked", level=1)).to_be_visible(
            timeout=_RECOVERY_MS)


async def test_the_wall_starts_and_completes_a_tier_meeting_whose_agenda_follows_the_person_leading_it(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _tier_board(org)
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    panel = _region(page, "Tier meeting")
    await panel.get_by_role("radio", name="Tier 2").check()
    await panel.get_by_role("button", name="Start tier 2 meeting").click()
    live = _region(page, "Tier 2 meeting in progress")
    await expect(live).to_be_visible()
    meetings = (await org.owner.query("meetings.list", {"boardId": board.id})).data["meetings"]
    assert [(meeting["tier"], meeting["status"]) for meeting in meetings] == [(2, "in_progress")]
    meeting = meetings[0]
    await expect(live.get_by_role("region", name="KPIs").get_by_role("listitem")).to_have_count(5)
    await expect(live.get_by_role("region", name="KPIs").get_by_role("listitem").first).to_be_visible()
    await expect(live.get_by_role("region", name="Actions due").get_by_role("listitem")).to_have_count(2)

    # The person leading it (on a laptop) puts an entry under discussion and ticks one: the wall follows.
    fpy = f"kpis/{board.kpis['First pass yield']}"
    await _ok(await org.owner.mutate("meetings.markDiscussed", {"id": meeting["id"],
                                                                "entry": f"kpis/{board.kpis['Safety walks done']}"}))
    await _ok(await org.owner.mutate("meetings.focus", {"id": meeting["id"], "entry": fpy}))
    current = live.get_by_role("listitem").filter(has_text="Under discussion")
    await expect(current).to_contain_text("First pass yield")
    await expect(current).to_be_visible()
    await expect(current).to_have_attribute("aria-current", "step")
    await expect(current.get_by_role("timer")).to_have_text(re.compile(r"^0:0\d$"))
    await expect(live.get_by_role("listitem").filter(has_text="Safety walks done")).to_contain_text("Discussed")
    await check_accessibility(page, "wall-meeting")
    await page.evaluate("document.activeElement.blur()")
    await screenshot(page, "wall-1080p")

    big = await _open_wall(browser, client, display["url"], viewport=(3840, 2160))
    await expect(_region(big, "Tier 2 meeting in progress").get_by_role("listitem").filter(
        has_text="Under discussion")).to_contain_text("First pass yield")
    await screenshot(big, "wall-4k")
    await big.context.close()

    complete = live.get_by_role("button", name="Complete meeting")
    await complete.click()
    await live.get_by_role("button", name="Press again to complete the tier 2 meeting").click()
    await expect(panel.get_by_role("button", name="Start tier 2 meeting")).to_be_visible()
    finished = (await org.owner.query("meetings.get", {"id": meeting["id"]})).data
    assert finished["status"] == "completed"


async def test_the_displays_section_makes_a_link_that_opens_the_wall_and_revokes_it(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/settings/displays")
    await expect(page.get_by_role("heading", name="Displays", level=2)).to_be_visible()
    await expect(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Displays")
                 ).to_have_attribute("aria-current", "page")
    form = page.get_by_role("region", name="Create a display link")
    await form.get_by_role("button", name="Create display link").click()
    await expect(form.get_by_role("alert")).to_contain_text("Enter a name for the display")
    await form.get_by_label("Name").fill("Line 4 TV")
    await expect(form.get_by_label("Board")).to_have_value(board.id)
    await form.get_by_role("button", name="Create display link").click()

    link = page.get_by_label("Display link (open it on the wall screen)")
    await expect(link).to_have_value(re.compile(rf"^{re.escape(org_url(client, org.slug))}/screens/\w+#svc_dsp_"))
    url = await link.input_value()
    table = page.get_by_role("table", name="Displays")
    row = table.get_by_role("row", name=re.compile("^Line 4 TV"))
    await expect(row).to_contain_text("Line 4 tier 1")
    await expect(row).to_contain_text("Never")
    await check_accessibility(page, "settings-displays")
    # No toast (it may or may not still be shown, so no wait on it) and no focus ring in the shot.
    await page.evaluate("""() => {
      document.querySelectorAll('.notices button[aria-label="Dismiss"]').forEach((button) => button.click());
      document.activeElement.blur();
    }""")
    await expect(page.get_by_role("button", name="Dismiss")).to_have_count(0)
    await screenshot(page, "settings-displays")

    wall = await _open_wall(browser, client, url)
    await expect(_group(wall, "Problems")).to_have_text(["Press 3 guard trips", "Scrap bin full"])
    await page.reload()
    await expect(table.get_by_role("row", name=re.compile("^Line 4 TV"))).not_to_contain_text("Never")

    await table.get_by_role("button", name="Revoke Line 4 TV").click()
    dialog = page.get_by_role("dialog", name="Revoke this display link?")
    await dialog.get_by_role("button", name="Revoke").click()
    await expect(wall.get_by_role("heading", name="This display link was revoked", level=1)).to_be_visible()
    await expect(table.get_by_role("row", name=re.compile("^Line 4 TV"))).to_contain_text("Revoked")
    await expect(table.get_by_role("button", name="Revoke Line 4 TV")).to_have_count(0)


async def test_a_link_without_its_secret_says_so_and_sends_nothing(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    display = await _display(org, board.id)
    page = await open_page(browser, client, viewport=_HD)
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if "/api/" in request.url else None)
    await page.goto(display["url"].split("#", 1)[0])
    await expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(
        r"^This display link is incomplete: the part after # is missing\."))
    # A fragment cut in the middle of a percent escape is no secret either: the same words, not a blank page.
    await page.goto(display["url"].split("#", 1)[0] + "#svc_dsp_%E0%A4%A")
    await page.reload()
    await expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(
        r"^This display link is incomplete: the part after # is missing\."))
    assert calls == []


async def test_a_board_with_more_kpis_than_one_batch_holds_loads_every_trend(browser: Browser, client: Any) -> None:
    """The trends are read in batched requests, and the server takes at most 50 calls in one: a board of 51 KPIs
    needs two."""
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    for number in range(51):
        kpi = await _ok(await org.owner.mutate("kpis.define", {
            "boardId": board.id, "name": f"Station {number:02d} uptime", "category": "delivery",
            "direction": "higher_is_better", "frequency": "daily", "unit": "%", "thresholds": _PERCENT}))
        await _ok(await org.owner.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 96}))
    display = await _display(org, board.id)
    page = await _open_wall(browser, client, display["url"])
    trends = page.get_by_role("list", name="KPI trends").get_by_role("img")
    await expect(trends).to_have_count(51)
    await expect(trends.last).to_have_accessible_name("Station 50 uptime: the last value against the target")


async def test_a_read_of_the_items_does_not_undo_what_changed_while_it_was_on_its_way(
        browser: Browser, client: Any) -> None:
    """An item restored from the trash is not in its event: the wall reads the board's items again. An item
    deleted while that read is on its way stays deleted when the read (which still has it) lands."""
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    items = (await org.owner.query("items.list", {"boardId": board.id})).data["items"]
    ids = {item["name"]: item["id"] for item in items}
    await _ok(await org.owner.mutate("items.delete", {"id": ids["Scrap bin full"]}))
    display = await _display(org, board.id)
    wall = await _open_wall(browser, client, display["url"])
    await expect(_group(wall, "Problems")).to_have_text(["Press 3 guard trips"])

    fetched, release = asyncio.Event(), asyncio.Event()

    async def held(route: Any) -> None:
        # The server's answer now (read as the owner, who sees what the display sees), with the item deleted below.
        asked = json.loads(parse_qs(urlsplit(route.request.url).query)["input"][0])["json"]
        reply = await org.owner.query("items.list", asked)
        fetched.set()
        await release.wait()
        await route.fulfill(status=reply.status, content_type="application/json", body=json.dumps(reply.body))

    await wall.route(re.compile(r"/api/trpc/items\.list"), held)
    await _ok(await org.owner.mutate("items.restore", {"id": ids["Scrap bin full"]}))
    await asyncio.wait_for(fetched.wait(), 10)
    await _ok(await org.owner.mutate("items.delete", {"id": ids["Press 3 guard trips"]}))
    await expect(_group(wall, "Problems")).to_have_count(0)  # applied live; the read is still held
    release.set()

    await expect(_group(wall, "Problems")).to_have_text(["Scrap bin full"])
    assert [name.split(" ")[0] for name in await _server_items(org.owner, board, "Problems")] == ["Scrap"]


async def test_a_wall_whose_board_goes_away_stops_showing_it(browser: Browser, client: Any) -> None:
    """Deleting the board takes its room from the wall's connection: the wall does not go on showing the board as
    if it were followed."""
    org = await make_org(client)
    board = await _tier_board(org, kpis=False)
    display = await _display(org, board.id)
    wall = await _open_wall(browser, client, display["url"])
    await expect(_group(wall, "Problems")).to_have_count(2)

    await _ok(await org.owner.mutate("boards.delete", {"id": board.id}))

    await expect(wall.get_by_text(re.compile(r"^This screen can no longer show its board"))).to_be_visible()
    await expect(wall.get_by_text("Press 3 guard trips")).to_have_count(0)
    await check_accessibility(wall, "wall-board-gone")
