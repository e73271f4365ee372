"""A tier meeting in a real browser against the real server: started from the board screen (tier and attendees),
run on /meetings/<id> (web/ui/static/screens/meeting.js) with an entry under discussion, one marked discussed, an
action created on the spot and one escalated, a rename and a KPI value made elsewhere meanwhile, all seen live by
a second page that joined from the board; completed with notes. Then its replay: the board as it was at the start
(the renamed item under its old name), every change stepped through forwards with its line, and back. Axe on both
modes and their screenshots."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.conftest import check_accessibility, open_page, org_url, screenshot
from tests.browser.test_board import make_board
from tests.harness import Org, make_org
from web.keys import NODE

COLUMNS = [{"name": "Status", "type": "status"}, {"name": "Owner", "type": "people"}, {"name": "Due", "type": "date"}]


async def _clear_for_the_shot(page: Page) -> None:
    """No focus ring, the top of the page, and no toast."""
    await page.evaluate("""() => {
      document.querySelectorAll('.notices button[aria-label="Dismiss"]').forEach((button) => button.click());
      document.activeElement.blur();
      window.scrollTo(0, 0);
    }""")
    await page.mouse.move(0, 0)
    await expect(page.get_by_role("button", name="Dismiss")).to_have_count(0)


def _entry(page: Page, section: str, name: str) -> Locator:
    return page.get_by_role("region", name=re.compile(f"^{section}")).get_by_role("listitem").filter(has_text=name)


async def _setup(org: Org) -> dict[str, Any]:
    """A board with two groups of items, a KPI in the red and an overdue action, and a member to assign."""
    board = await make_board(org, {"Today": ["Pump 3", "Press 7"], "Done": ["Guard rail"]}, COLUMNS)
    status = board.columns["Status"]["id"]
    for name, label in (("Pump 3", "Working on it"), ("Press 7", "Stuck"), ("Guard rail", "Done")):
        reply = await org.owner.mutate("items.setValue", {"itemId": board.items[name], "columnId": status,
                                                          "value": label})
        assert reply.status == 200, reply.body
    mia, _ = await org.add_user("member", name="Mia Martin")
    kpi = (await org.owner.mutate("kpis.define", {
        "boardId": board.id, "name": "Scrap rate", "category": "quality", "direction": "lower_is_better",
        "frequency": "daily", "unit": "%", "responsibleUserId": org.owner_id,
        "thresholds": {"green": {"max": 2}, "amber": {"min": 2, "max": 4}, "red": {"min": 4}}})).data
    assert (await org.owner.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": 4.2})).status == 200
    overdue = (datetime.now(UTC).date() - timedelta(days=3)).isoformat()
    action = (await org.owner.mutate("actions.create", {
        "boardId": board.id, "title": "Fix the guard on press 3", "priority": "high", "assigneeId": mia,
        "dueDate": overdue, "category": "safety"})).data
    return {"board": board, "mia": mia, "kpi": kpi, "action": action}


async def test_a_tier_meeting_is_run_from_the_board_seen_live_and_replayed(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    made = await _setup(org)
    board = made["board"]
    base = org_url(client, org.slug)

    # The second page watches the board; the first starts the meeting there.
    watcher = await open_page(browser, client, org)
    await watcher.goto(f"{base}/boards/{board.id}")
    await expect(watcher.get_by_role("button", name="Start tier meeting")).to_be_visible()
    leader = await open_page(browser, client, org)
    await leader.goto(f"{base}/boards/{board.id}")
    await leader.get_by_role("button", name="Start tier meeting").click()
    dialog = leader.get_by_role("dialog", name="Start a tier meeting")
    await dialog.get_by_label("Tier", exact=True).select_option("2")
    await dialog.get_by_role("checkbox", name="Mia Martin").check()
    await dialog.get_by_role("button", name="Start meeting").click()
    await expect(leader).to_have_url(re.compile(r"/meetings/mtg_"))
    meeting_id = leader.url.rsplit("/", 1)[1]
    await expect(leader.get_by_role("heading", level=1)).to_have_text("Tier 2 meeting")
    await expect(leader.locator(".meeting-facts")).to_contain_text("Olga Owner")
    await expect(leader.locator(".meeting-facts")).to_contain_text("Mia Martin")

    # The watcher's board offers to join, live; it joins.
    join = watcher.get_by_role("link", name="Tier 2 meeting in progress — join")
    await expect(join).to_be_visible()
    await expect(watcher.get_by_role("button", name="Start tier meeting")).to_have_count(0)
    await join.click()
    await expect(watcher.get_by_role("heading", level=1)).to_have_text("Tier 2 meeting")

    kpi_entry, action_entry = _entry(leader, "KPIs", "Scrap rate"), _entry(leader, "Actions due", "Fix the guard")
    await expect(kpi_entry).to_contain_text("Red")
    await expect(action_entry).to_contain_text("Mia Martin")
    await expect(action_entry).to_contain_text("Overdue since")

    # The leader moves the discussion to the KPI: both pages highlight it with its timer.
    await kpi_entry.get_by_role("button", name="Discuss Scrap rate").click()
    for page in (leader, watcher):
        current = _entry(page, "KPIs", "Scrap rate")
        await expect(current).to_have_attribute("aria-current", "true")
        await expect(current.get_by_role("timer")).to_have_text(re.compile(r"^\d+:\d\d$"))
    await leader.get_by_role("button", name="Next entry").click()
    await expect(_entry(watcher, "Actions due", "Fix the guard")).to_have_attribute("aria-current", "true")
    await expect(_entry(watcher, "KPIs", "Scrap rate")).not_to_have_attribute("aria-current", "true")

    # Marked from the keyboard: the toggle keeps the focus.
    mark = kpi_entry.get_by_role("button", name="Mark discussed: Scrap rate")
    await mark.focus()
    await leader.keyboard.press("Space")
    await expect(mark).to_have_attribute("aria-pressed", "true")
    await expect(mark).to_be_focused()
    await expect(_entry(watcher, "KPIs", "Scrap rate")).to_contain_text("Discussed")
    await expect(watcher.get_by_text("1 of 2 entries discussed")).to_be_visible()

    # An action created on the spot, with its owner and due date.
    await leader.get_by_role("button", name="Create action").click()
    create = leader.get_by_role("dialog", name="Create an action")
    await create.get_by_role("button", name="Create action").click()
    await expect(create.get_by_role("alert")).to_contain_text("Enter what needs doing")
    await create.get_by_label("What needs doing").fill("Order a spare impeller")
    await create.get_by_label("Owner").select_option(label="Mia Martin")
    await create.get_by_label("Due").fill("2026-12-04")
    await create.get_by_label("Priority").select_option("critical")
    await create.get_by_role("button", name="Create action").click()
    await expect(create).to_be_hidden()
    for page in (leader, watcher):
        new = _entry(page, "Actions created", "Order a spare impeller")
        await expect(new).to_contain_text("Mia Martin")
        await expect(new).to_contain_text("4 Dec 2026")
        await expect(new).to_contain_text("Critical")
    listed = (await org.owner.query("actions.list", {"boardId": board.id})).data["actions"]
    created = next(action for action in listed if action["title"] == "Order a spare impeller")
    assert (created["assigneeId"], created["dueDate"], created["priority"]) == (made["mia"], "2026-12-04", "critical")

    # The overdue action escalated a tier up.
    await action_entry.get_by_role("button", name="Escalate: Fix the guard on press 3").click()
    escalate = leader.get_by_role("dialog", name="Escalate the action a tier up")
    await escalate.get_by_label("Escalate to").select_option(label="Olga Owner")
    await escalate.get_by_label("Reason").fill("Needs a maintenance slot this week")
    await escalate.get_by_role("button", name="Escalate").click()
    await expect(escalate).to_be_hidden()
    await expect(_entry(watcher, "Actions due", "Fix the guard")).to_contain_text("Level 1, to Olga Owner")

    # Changes made elsewhere meanwhile: a rename, a value, an item's status.
    item = board.items["Pump 3"]
    assert (await org.owner.mutate("items.update", {"id": item, "name": "Pump 3 overhauled"})).status == 200
    assert (await org.owner.mutate("kpis.setValue", {"kpiId": made["kpi"]["id"], "value": 1.5})).status == 200
    assert (await org.owner.mutate("items.setValue", {"itemId": item, "columnId": board.columns["Status"]["id"],
                                                      "value": "Done"})).status == 200
    await expect(_entry(watcher, "KPIs", "Scrap rate")).to_contain_text("Green")
    await expect(_entry(watcher, "KPIs", "Scrap rate")).to_contain_text("1.5 %")

    await check_accessibility(leader, "meeting")
    await _clear_for_the_shot(leader)
    await screenshot(leader, "meeting")

    # Completed with notes: both pages turn into the replay.
    await leader.get_by_role("button", name="Complete meeting").click()
    complete = leader.get_by_role("dialog", name="Complete the meeting")
    await complete.get_by_label("Notes").fill("Impeller ordered; guard escalated to the plant manager.")
    await complete.get_by_role("button", name="Complete meeting").click()
    for page in (leader, watcher):
        await expect(page.get_by_role("heading", level=1)).to_have_text("Tier 2 meeting replay")
    stored = (await org.owner.query("meetings.get", {"id": meeting_id})).data
    assert stored["status"] == "completed"
    assert stored["notes"] == "Impeller ordered; guard escalated to the plant manager."
    assert stored["discussed"] == [f"kpis/{made['kpi']['id']}"]
    await expect(leader.locator(".meeting-facts")).to_contain_text("Impeller ordered")
    await _replayed(leader, org, meeting_id)

    # The board offers a new meeting again, and lists this one among its past meetings.
    await watcher.goto(f"{base}/boards/{board.id}")
    await expect(watcher.get_by_role("button", name="Start tier meeting")).to_be_visible()
    await watcher.get_by_role("button", name="Past meetings").click()
    past = watcher.get_by_role("dialog", name="Past meetings at this board")
    await expect(past.get_by_role("link")).to_have_count(1)
    await past.get_by_role("link", name=re.compile(r"^Tier 2, ")).click()
    await expect(watcher).to_have_url(re.compile(f"/meetings/{meeting_id}$"))
    await expect(watcher.get_by_role("heading", level=1)).to_have_text("Tier 2 meeting replay")


async def _replayed(page: Page, org: Org, meeting_id: str) -> None:
    """The replay steps through every change the server recorded; the renamed item has its old name until the
    rename's step and its new one after it."""
    changes = (await org.owner.query("meetings.replay", {"id": meeting_id, "limit": 500})).data["changes"]
    count = len(changes)
    assert count >= 8, [change["name"] for change in changes]
    stepper = page.get_by_role("region", name="Replay")
    position = stepper.get_by_role("status")
    slider = stepper.get_by_role("slider", name="Change shown")
    board_then = page.get_by_role("region", name=re.compile("at this point$")).first
    await expect(position).to_contain_text(f"Change 0 of {count}")
    await expect(position).to_contain_text("the board at the meeting's start")
    await expect(slider).to_have_attribute("aria-valuetext", f"Change 0 of {count}")
    await expect(board_then.get_by_role("rowheader", name=re.compile(r"^Pump 3(?: Changed)?$"))).to_be_visible()
    await expect(board_then.get_by_role("rowheader", name="Pump 3 overhauled")).to_have_count(0)
    await expect(page.get_by_role("button", name="Previous change")).to_be_disabled()
    await check_accessibility(page, "meeting-replay")

    lines = []
    renamed_at = None
    for step in range(1, count + 1):
        await page.get_by_role("button", name="Next change").click()
        await expect(position).to_contain_text(f"Change {step} of {count}")
        line = (await position.locator(".replay-stepper__line").inner_text()).strip()
        assert line, f"change {step} ({changes[step - 1]['name']}) has no line"
        lines.append(line)
        if line == "Item ‘Pump 3’ renamed ‘Pump 3 overhauled’":
            renamed_at = step
            await expect(board_then.get_by_role("rowheader", name=re.compile("^Pump 3 overhauled"))).to_be_visible()
    await expect(page.get_by_role("button", name="Next change")).to_be_disabled()
    assert renamed_at is not None, lines
    for expected in ("Discussion moved to KPI ‘Scrap rate’", "KPI ‘Scrap rate’ marked discussed",
                     "Action ‘Order a spare impeller’ created for Mia Martin, due 2026-12-04",
                     "Action ‘Fix the guard on press 3’ escalated to level 1",
                     "KPI ‘Scrap rate’ value 1.5 (Green)", "Item ‘Pump 3 overhauled’ Status → Done",
                     "KPI ‘Scrap rate’ Red alert resolved", "Meeting completed"):
        assert expected in lines, (expected, "\n".join(lines))

    # Back one step before the rename: the old name again (replayed from the start).
    await slider.fill(str(renamed_at - 1))
    await expect(position).to_contain_text(f"Change {renamed_at - 1} of {count}")
    await expect(board_then.get_by_role("rowheader", name=re.compile(r"^Pump 3(?: Changed)?$"))).to_be_visible()
    await page.get_by_role("button", name="Next change").click()
    await expect(board_then.get_by_role("rowheader", name=re.compile("^Pump 3 overhauled"))).to_be_visible()
    await page.get_by_role("button", name="Previous change").click()
    await expect(board_then.get_by_role("rowheader", name=re.compile(r"^Pump 3(?: Changed)?$"))).to_be_visible()

    await slider.fill(str(renamed_at))
    await _clear_for_the_shot(page)
    await screenshot(page, "meeting-replay")


async def test_a_meeting_without_a_board_record_replays_its_agenda_and_changes(browser: Browser, client: Any) -> None:
    """A meeting started before meetings recorded their board (made here by clearing the record, as such a row
    is) replays its agenda and changes and says the board was not recorded."""
    org = await make_org(client)
    made = await _setup(org)
    board, action = made["board"], made["action"]
    meeting = (await org.owner.mutate("meetings.start", {"boardId": board.id, "tier": 1})).data
    assert (await org.owner.mutate("actions.update", {"id": action["id"], "status": "in_progress"})).status == 200
    assert (await org.owner.mutate("meetings.complete", {"id": meeting["id"]})).status == 200
    await client.server.app[NODE].pool.execute("UPDATE meetings SET board_snapshot = NULL WHERE id = $1", meeting["id"])
    assert (await org.owner.query("meetings.replay", {"id": meeting["id"]})).data["board"] is None

    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/meetings/{meeting['id']}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Tier 1 meeting replay")
    await expect(page.get_by_text("was not recorded")).to_be_visible()
    await expect(page.get_by_role("table")).to_have_count(0)
    entry = page.get_by_role("region", name="Agenda at this point").get_by_role("listitem").filter(
        has_text="Fix the guard on press 3")
    await expect(entry).to_contain_text("Open")
    position = page.get_by_role("region", name="Replay").get_by_role("status")
    await expect(position).to_contain_text("Change 0 of 2")
    await page.get_by_role("button", name="Next change").click()
    await expect(position).to_contain_text("Change 1 of 2")
    await expect(position).to_contain_text("Action ‘Fix the guard on press 3’ status → In progress")
    await expect(entry).to_contain_text("In progress")
    await page.get_by_role("button", name="Next change").click()
    await expect(position).to_contain_text("Meeting completed")
    await check_accessibility(page, "meeting-replay-without-board")


async def test_refusals_show_where_they_belong(browser: Browser, client: Any) -> None:
    """A tier already meeting (started elsewhere while the dialog was open) is refused on the tier field, and the
    board offers to join it; a member who did not start the meeting is told who may complete it."""
    org = await make_org(client)
    board = await make_board(org, {"Today": ["Pump 3"]}, COLUMNS)
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/boards/{board.id}")
    await page.get_by_role("button", name="Start tier meeting").click()
    dialog = page.get_by_role("dialog", name="Start a tier meeting")
    await expect(dialog.get_by_label("Tier", exact=True)).to_have_value("1")
    running = (await org.owner.mutate("meetings.start", {"boardId": board.id, "tier": 1})).data
    await expect(page.get_by_role("link", name="Tier 1 meeting in progress — join")).to_be_attached()
    await dialog.get_by_role("button", name="Start meeting").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("a meeting of this tier is in progress")
    await expect(dialog.get_by_label("Tier", exact=True)).to_have_attribute("aria-invalid", "true")
    await dialog.get_by_role("button", name="Cancel").click()
    await page.get_by_role("link", name="Tier 1 meeting in progress — join").click()
    await expect(page).to_have_url(re.compile(f"/meetings/{running['id']}$"))

    _, mia = await org.add_user("member", name="Mia Martin")
    as_mia = await open_page(browser, client, dataclasses.replace(org, owner=mia))
    await as_mia.goto(f"{org_url(client, org.slug)}/meetings/{running['id']}")
    await as_mia.get_by_role("button", name="Complete meeting").click()
    complete = as_mia.get_by_role("dialog", name="Complete the meeting")
    await complete.get_by_role("button", name="Complete meeting").click()
    await expect(complete.get_by_role("alert")).to_contain_text("only the member who started the meeting or an admin")
    assert (await org.owner.query("meetings.get", {"id": running["id"]})).data["status"] == "in_progress"
