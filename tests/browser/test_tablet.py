"""The shop-floor tablet (/tablet, web/ui/static/screens/tablet.js) in a real browser against the real server,
offline first: a tablet taken offline ticks and completes a checklist, scores a 5S audit, attaches a photo,
completes the audit and records a KPI value, is closed and opened again with no network (the service worker's
shell and IndexedDB's queue), then comes back: every write arrives once and in order, and the server holds what the
screen showed. A write the server refuses is shown with the server's state: a conflict (the checklist completed
meanwhile from elsewhere) is discarded by the person, a refusal whose cause is gone (the checklist inactive) is sent
again as is, and nothing after it goes out meanwhile. Writes made by one person wait while another is signed in.
Axe on each tab and the picker, every target at least 56 px a side, and the screenshot at 1280x800."""

from __future__ import annotations

import base64
import re
from typing import Any

from playwright.async_api import Browser, BrowserContext, FilePayload, Locator, Page, expect

from tests.browser.conftest import (
    allow_console_errors,
    check_accessibility,
    open_page,
    org_url,
    screenshot,
    set_offline,
)
from tests.harness import Org, make_org
from web.context import SESSION_COOKIE

# A 1x1 PNG, as a camera's photo stands in.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
                       "AAAABJRU5ErkJggg==")
BOARD = "Line 4 tier 1"
TOOLS, FLOOR = "Tools on the shadow board", "No oil on the floor"
OFFLINE_ERRORS = r"net::ERR_INTERNET_DISCONNECTED"
# The visible buttons, links, labels of checkboxes and text fields smaller than a gloved finger (56 px a side).
GLOVE_TARGETS_TOO_SMALL = """() => [...document.querySelectorAll(
    'button, a, label[for], input:not([type=checkbox]):not(.tablet-file)')]
  .filter((el) => el.offsetParent !== null)
  .map((el) => [el.textContent.trim() || el.getAttribute('aria-label'), el.getBoundingClientRect()])
  .filter(([, box]) => box.height < 56 || box.width < 56).map(([name, box]) => `${name}: ${box.width}x${box.height}`)"""


async def _line(org: Org) -> dict[str, Any]:
    """A board with a daily checklist, a 5S audit checklist of two items and a KPI the owner is responsible for."""
    owner = org.owner
    workspace = (await owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    project = (await owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"})).data
    board = (await owner.mutate("templates.apply", {"templateId": "tpl_vendor_sqcdp", "projectId": project["id"],
                                                    "boardName": BOARD})).data
    checklist = (await owner.mutate("checklists.create", {
        "boardId": board["id"], "name": "Start of shift", "frequency": "daily",
        "items": [{"text": "Guards in place"}, {"text": "Floor clear", "required": False}]})).data
    audit = (await owner.mutate("audits.createChecklist", {
        "boardId": board["id"], "name": "Line 4 5S", "type": "5S",
        "items": [{"question": TOOLS, "category": "set_in_order"}, {"question": FLOOR, "category": "shine"}]})).data
    kpi = (await owner.mutate("kpis.define", {
        "boardId": board["id"], "name": "Scrap", "category": "quality", "direction": "lower_is_better",
        "frequency": "daily", "unit": "pcs", "responsibleUserId": org.owner_id})).data
    form = await owner.mutate("forms.create", {"boardId": board["id"], "name": "Near miss", "status": "published"})
    assert form.status == 200, form.body
    return {"board": board, "checklist": checklist, "audit": audit, "kpi": kpi, "form": form.data}


async def _open_tablet(page: Page, client: Any, org: Org) -> None:
    await page.goto(f"{org_url(client, org.slug)}/tablet")


async def _pick_board(page: Page) -> None:
    await page.get_by_role("button", name=re.compile(BOARD)).click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(BOARD)
    # The service worker has the page and its modules: the tablet opens with no network from now on.
    await expect(page.get_by_text("Works offline")).to_be_visible()


async def _tablet_on_a_line(browser: Browser, client: Any) -> tuple[Org, dict[str, Any], Page]:
    """A new organization with its line (`_line`), and the owner's tablet open on the line's board."""
    org = await make_org(client)
    line = await _line(org)
    page = await open_page(browser, client, org)
    await _open_tablet(page, client, org)
    await _pick_board(page)
    return org, line, page


async def _completions(org: Org, checklist_id: str) -> Any:
    return (await org.owner.query("checklists.getCompletionHistory", {"checklistId": checklist_id})).data


def _score(page: Page, score: int, question: str) -> Locator:
    return page.get_by_role("button", name=f"Score {score} of 5 for “{question}”")


def _sync(page: Page) -> Locator:
    return page.get_by_role("region", name="Sync")


async def _reopen(context: BrowserContext, client: Any, org: Org) -> Page:
    """Close every page of the context and open the tablet in a new one (the browser's storage stays)."""
    for page in list(context.pages):
        await page.close()
    page = await context.new_page()
    await _open_tablet(page, client, org)
    return page


async def test_work_done_offline_survives_a_reopen_and_arrives_once_in_order(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    line = await _line(org)
    board_id = line["board"]["id"]
    page = await open_page(browser, client, org)
    await _open_tablet(page, client, org)
    await expect(page.get_by_role("heading", name="Which line is this tablet for?")).to_be_visible()
    await _pick_board(page)
    await expect(_sync(page)).to_contain_text("Everything is sent")

    # Requests the page had under way when the network went are refused by the browser (logged as errors).
    with allow_console_errors(page, OFFLINE_ERRORS):
        await set_offline(page, True)
        await expect(_sync(page)).to_contain_text("Offline")
        await page.get_by_role("checkbox", name="Guards in place (required)").check()
        await page.get_by_role("button", name="Comment on “Floor clear”").click()
        await page.get_by_role("textbox", name="Comment on “Floor clear”").fill("Swarf under the press")
        await page.get_by_role("button", name="Complete checklist").click()
        await expect(page.get_by_text("Completed — queued to send")).to_be_visible()

        await page.get_by_role("button", name=re.compile(r"^5S audits")).click()
        await page.get_by_role("button", name="Start audit").click()
        await _score(page, 4, TOOLS).click()
        await _score(page, 2, FLOOR).click()
        await page.get_by_label(f"Photo for “{FLOOR}”").set_input_files(
            files=FilePayload(name="floor.png", mimeType="image/png", buffer=PNG))
        await expect(page.get_by_text("Photo waiting to send")).to_be_visible()
        await page.get_by_role("button", name="Complete audit").click()
        await expect(page.get_by_text("Audit completed — queued to send")).to_be_visible()
        await page.get_by_role("button", name=re.compile(r"^My KPIs")).click()
        await page.get_by_role("textbox", name="Value for Scrap").fill("3")
        await page.get_by_role("button", name="Record").click()
        await expect(page.get_by_text("Queued: 3 pcs")).to_be_visible()
        # the checklist; the audit's start, two scores, the photo, the score that carries it, its completion; the value
        await expect(_sync(page)).to_contain_text("8 writes waiting to send")

        page = await _reopen(page.context, client, org)
        await expect(page.get_by_role("heading", level=1)).to_have_text(BOARD)
        await expect(_sync(page)).to_contain_text("Offline")
        await expect(_sync(page)).to_contain_text("8 writes waiting to send")
        await expect(page.get_by_text("Completed — queued to send")).to_be_visible()
        await page.get_by_role("button", name=re.compile(r"^5S audits")).click()
        await expect(_score(page, 4, TOOLS)).to_have_attribute("aria-pressed", "true")
        await expect(_score(page, 2, FLOOR)).to_have_attribute("aria-pressed", "true")
        await expect(page.get_by_text("Photo waiting to send")).to_be_visible()
        await expect(page.get_by_text("Audit completed — queued to send")).to_be_visible()
        history = await _completions(org, line["checklist"]["id"])
        assert history["total"] == 0

        await set_offline(page, False)
        await expect(_sync(page)).to_contain_text("Everything is sent")
        await expect(_sync(page)).to_contain_text("Online")

        history = await _completions(org, line["checklist"]["id"])
        assert history["total"] == 1
        responses = {response["itemId"]: response for response in history["items"][0]["responses"]}
        items = {item["text"]: item["id"] for item in line["checklist"]["items"]}
        assert responses[items["Guards in place"]]["checked"] is True
        assert responses[items["Floor clear"]] == {"itemId": items["Floor clear"], "checked": False,
                                                   "comment": "Swarf under the press"}
        audits = (await org.owner.query("audits.listAudits", {"boardId": board_id})).data
        assert audits["total"] == 1
        session = audits["items"][0]
        assert session["status"] == "completed" and session["auditorId"] == org.owner_id
        assert (session["totalScore"], session["maxScore"]) == (6, 10)
        questions = {item["id"]: item["question"] for item in line["audit"]["items"]}
        scores = {questions[score["itemId"]]: score for score in session["scores"]}
        assert (scores[TOOLS]["score"], scores[TOOLS]["photoUrl"]) == (4, None)
        assert scores[FLOOR]["score"] == 2
        photo = scores[FLOOR]["photoUrl"]
        assert photo is not None
        file_path = "/api/v1/files/" + photo.rsplit("/", 1)[1]
        async with org.owner.client.get(file_path, headers=org.owner.headers()) as reply:
            assert (reply.status, await reply.read()) == (200, PNG)
        # Once each and in the order they were made: the board's event log.
        stream = {"stream": f"board:{board_id}", "limit": 100}
        events = (await org.owner.rest("GET", "/api/v1/events", params=stream)).data
        names = [event["event"] for event in events if event["event"].startswith(("checklist.", "audit."))]
        assert names == ["checklist.completed", "audit.started", "audit.scored", "audit.scored", "audit.scored",
                         "audit.completed"]
        kpi = (await org.owner.query("kpis.get", {"id": line["kpi"]["id"]})).data
        assert kpi["latestValue"]["value"] == 3
        # The screen shows what the server holds, read again once the queue drained: the checklist completed, the
        # audit done (none in hand: a new one may start), the KPI's latest value.
        await page.get_by_role("button", name=re.compile(r"^Checklists")).click()
        await expect(page.get_by_text("Completed", exact=True)).to_be_visible()
        await page.get_by_role("button", name=re.compile(r"^5S audits")).click()
        await expect(page.get_by_role("button", name="Start audit")).to_be_visible()
        await page.get_by_role("button", name=re.compile(r"^My KPIs")).click()
        await expect(page.get_by_text("Latest: 3 pcs")).to_be_visible()


async def test_a_checklist_completed_elsewhere_meanwhile_is_shown_and_the_person_discards_theirs(
        browser: Browser, client: Any) -> None:
    org, line, page = await _tablet_on_a_line(browser, client)
    # Requests the page had under way when the network went are refused by the browser (logged as errors).
    with allow_console_errors(page, OFFLINE_ERRORS):
        await set_offline(page, True)
        await page.get_by_role("checkbox", name="Guards in place (required)").check()
        await page.get_by_role("button", name="Complete checklist").click()
        await expect(_sync(page)).to_contain_text("1 write waiting to send")
        items = line["checklist"]["items"]
        done = await org.owner.mutate("checklists.complete", {"checklistId": line["checklist"]["id"], "responses": [
            {"itemId": items[0]["id"], "checked": True}, {"itemId": items[1]["id"], "checked": True}]})
        assert done.status == 200, done.body

        await set_offline(page, False)
        stopped = page.get_by_role("alert").filter(has_text="1 write needs you")
        await expect(stopped.get_by_role("definition").first).to_have_text("Checklist “Start of shift” completed")
        await expect(stopped).to_contain_text("Completed")
        await expect(stopped).to_contain_text("by you")
        await expect(stopped.get_by_role("button", name="Send again as is")).to_have_count(0)
        await check_accessibility(page, "tablet with a refused write")
        await stopped.get_by_role("button", name="Discard mine").click()
        await expect(page.get_by_role("status").filter(has_text="Discarded 1 write")).to_be_visible()
        await expect(stopped).to_have_count(0)
        await expect(_sync(page)).to_contain_text("Everything is sent")
        await expect(page.get_by_text("Completed", exact=True)).to_be_visible()
        history = await _completions(org, line["checklist"]["id"])
        assert history["total"] == 1


async def test_the_tablet_screen_is_accessible_and_made_for_gloves(browser: Browser, client: Any) -> None:
    _, line, page = await _tablet_on_a_line(browser, client)
    await check_accessibility(page, "tablet checklists")
    # Every target a gloved finger hits is at least 56 px on each side (a checkbox's target is its whole row's label).
    assert await page.evaluate(GLOVE_TARGETS_TOO_SMALL) == []
    await page.get_by_role("button", name=re.compile(r"^5S audits")).click()
    await page.get_by_role("button", name="Start audit").click()
    await _score(page, 4, TOOLS).click()
    await _score(page, 3, FLOOR).click()
    await expect(_sync(page)).to_contain_text("Everything is sent")
    assert await page.evaluate(GLOVE_TARGETS_TOO_SMALL) == []
    await check_accessibility(page, "tablet audit")
    await page.evaluate("document.activeElement.blur()")
    await screenshot(page, "tablet")
    await page.get_by_role("button", name=re.compile(r"^My KPIs")).click()
    await expect(page.get_by_role("textbox", name="Value for Scrap")).to_be_visible()
    assert await page.evaluate(GLOVE_TARGETS_TOO_SMALL) == []
    await check_accessibility(page, "tablet KPIs")
    await page.get_by_role("button", name=re.compile(r"^Forms")).click()
    await expect(page.get_by_role("link", name="Open Near miss")).to_have_attribute("href", line["form"]["publicUrl"])
    await check_accessibility(page, "tablet forms")
    await page.get_by_role("button", name="Change board").click()
    await expect(page.get_by_role("button", name=re.compile(BOARD))).to_be_visible()
    await check_accessibility(page, "tablet board picker")
    await page.get_by_role("button", name="Keep the current board").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text(BOARD)


async def test_a_refused_write_is_sent_again_as_is_once_the_cause_is_gone(browser: Browser, client: Any) -> None:
    org, line, page = await _tablet_on_a_line(browser, client)
    checklist = line["checklist"]
    # Requests the page had under way when the network went are refused by the browser (logged as errors).
    with allow_console_errors(page, OFFLINE_ERRORS):
        await set_offline(page, True)
        await page.get_by_role("checkbox", name="Guards in place (required)").check()
        await page.get_by_role("button", name="Complete checklist").click()
        await page.get_by_role("button", name=re.compile(r"^My KPIs")).click()
        await page.get_by_role("textbox", name="Value for Scrap").fill("7")
        await page.get_by_role("button", name="Record").click()
        await expect(_sync(page)).to_contain_text("2 writes waiting to send")
        paused = await org.owner.mutate("checklists.update", {"id": checklist["id"], "isActive": False})
        assert paused.status == 200, paused.body

        await set_offline(page, False)
        stopped = page.get_by_role("alert").filter(has_text="1 write needs you")
        await expect(stopped).to_contain_text("the checklist is inactive")
        # Nothing after the refused write is sent meanwhile.
        await expect(_sync(page)).to_contain_text("2 writes waiting to send")
        kpi = (await org.owner.query("kpis.get", {"id": line["kpi"]["id"]})).data
        assert kpi["latestValue"] is None

        resumed = await org.owner.mutate("checklists.update", {"id": checklist["id"], "isActive": True})
        assert resumed.status == 200, resumed.body
        await stopped.get_by_role("button", name="Send again as is").click()
        await expect(_sync(page)).to_contain_text("Everything is sent")
        await expect(stopped).to_have_count(0)
        history = await _completions(org, checklist["id"])
        assert history["total"] == 1
        kpi = (await org.owner.query("kpis.get", {"id": line["kpi"]["id"]})).data
        assert kpi["latestValue"]["value"] == 7


async def test_writes_wait_for_the_person_who_made_them_when_another_signs_in(browser: Browser, client: Any) -> None:
    org, line, page = await _tablet_on_a_line(browser, client)
    # Requests the page had under way when the network went are refused by the browser (logged as errors).
    with allow_console_errors(page, OFFLINE_ERRORS):
        await set_offline(page, True)
        await page.get_by_role("button", name=re.compile(r"^My KPIs")).click()
        await page.get_by_role("textbox", name="Value for Scrap").fill("5")
        await page.get_by_role("button", name="Record").click()
        await expect(_sync(page)).to_contain_text("1 write waiting to send")

        # The next shift signs in on the same tablet: the owner's value is not sent in their name, also when the
        # tablet opens offline (as the owner it kept) and the network comes back afterwards.
        context = page.context
        for open_tab in list(context.pages):
            await open_tab.close()
        _, member = await org.add_user("member", name="Max Member")
        assert member.session
        await context.add_cookies([{"name": SESSION_COOKIE, "value": member.session, "domain": org.host, "path": "/",
                                    "httpOnly": True, "sameSite": "Lax"}])
        page = await _reopen(context, client, org)
        await expect(_sync(page)).to_contain_text("1 write waiting to send")
        await set_offline(page, False)
        await expect(page.get_by_role("alert")).to_contain_text("made by another person")
        await expect(_sync(page)).to_contain_text("1 write waiting to send")
        kpi = (await org.owner.query("kpis.get", {"id": line["kpi"]["id"]})).data
        assert kpi["latestValue"] is None

        assert org.owner.session
        await context.add_cookies([{"name": SESSION_COOKIE, "value": org.owner.session, "domain": org.host, "path": "/",
                                    "httpOnly": True, "sameSite": "Lax"}])
        page = await _reopen(context, client, org)
        await expect(_sync(page)).to_contain_text("Everything is sent")
        kpi = (await org.owner.query("kpis.get", {"id": line["kpi"]["id"]})).data
        assert kpi["latestValue"]["value"] == 5
