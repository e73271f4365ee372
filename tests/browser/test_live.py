"""The page's live connection (web/ui/static/live.js, the shell's banner, notifications.js) in a real browser
against the real server: outages (Chromium's offline emulation, and the server itself stopped and started again
on the same port) after which the page shows exactly the server's state without a reload, the unread count kept
live and exact, a page too far behind reloading its data, a page whose websocket is refused showing its data
anyway, and the journey from signing up to the first item on a board made from a template."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import DummyCookieJar
from aiohttp.test_utils import TestClient, TestServer
from playwright.async_api import Browser, Page, Request, WebSocketRoute, expect

from tests.browser.conftest import allow_console_errors, open_page, org_url, screenshot, service_url, set_offline
from tests.harness import PASSWORD, Api, Org, login, make_org

# What Chromium logs while the page cannot reach the server: the websocket's failed attempts and any read refused.
_UNREACHABLE = r"WebSocket connection to .* failed|net::ERR_(INTERNET_DISCONNECTED|CONNECTION_REFUSED)"
_OFFLINE = "Connection to the server lost. Reconnecting…"
# Socket.IO waits up to 5 s between attempts (live.js), so a page back online may take that long to hear it.
_RECOVERY_MS = 15_000


async def _board(org: Org, names: list[str]) -> tuple[str, str]:
    """A board with one group holding items `names` in that order: (board id, group id)."""
    owner = org.owner
    workspace = (await owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    project = (await owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"})).data
    board = (await owner.mutate("boards.create", {
        "projectId": project["id"], "name": "Line 4 tier 1", "groups": [{"name": "This week"}],
        "columns": [{"name": "Status", "type": "status"}]})).data
    group = board["groups"][0]["id"]
    for name in names:
        reply = await owner.mutate("items.create", {"boardId": board["id"], "groupId": group, "name": name})
        assert reply.status == 200, reply.body
    return board["id"], group


async def _server_names(api: Api, board_id: str) -> list[str]:
    """The board's item names in the order the server keeps them (one group)."""
    items = (await api.query("items.list", {"boardId": board_id, "limit": 200})).data["items"]
    return [item["name"] for item in sorted(items, key=lambda item: item["position"])]


def _names(page: Page) -> Any:
    """The item names the board's table shows, in order (each row's header holds the name's link)."""
    return page.get_by_role("rowheader").get_by_role("link")


def _banner(page: Page) -> Any:
    return page.get_by_role("region", name="Connection to the server").filter(has_text=_OFFLINE)


async def _open_board(browser: Browser, client: Any, org: Org, board_id: str, names: list[str]) -> Page:
    page = await open_page(browser, client, org)
    await page.goto(f"{org_url(client, org.slug)}/boards/{board_id}")
    await expect(_names(page)).to_have_text(names)
    return page


async def _mark(page: Page) -> None:
    """A mark on the page's window: it is still there only if the page was never reloaded."""
    await page.evaluate("window.__notReloaded = true")


async def _not_reloaded(page: Page) -> None:
    assert await page.evaluate("window.__notReloaded === true"), "the page was reloaded"


async def _changes_meanwhile(org: Org, board_id: str, group: str, round_: int) -> list[str]:
    """Through the API: three items added, one renamed, one deleted, the group reordered (newest first)."""
    owner = org.owner
    added = []
    for number in range(1, 4):
        name = f"Outage {round_} item {number}"
        added.append((await owner.mutate("items.create", {"boardId": board_id, "groupId": group,
                                                          "name": name})).data)
    renamed = await owner.mutate("items.update", {"id": added[0]["id"], "name": f"Outage {round_} renamed"})
    assert renamed.status == 200, renamed.body
    deleted = await owner.mutate("items.delete", {"id": added[1]["id"]})
    assert deleted.status == 200, deleted.body
    items = (await owner.query("items.list", {"boardId": board_id, "limit": 200})).data["items"]
    order = [item["id"] for item in sorted(items, key=lambda item: item["position"], reverse=True)]
    reordered = await owner.mutate("items.reorder", {"groupId": group, "itemIds": order})
    assert reordered.status == 200, reordered.body
    return [f"Outage {round_} renamed", f"Outage {round_} item 3"]


async def test_a_page_offline_twice_shows_exactly_the_servers_state_without_a_reload(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board_id, group = await _board(org, ["Check the torque", "Order gloves", "Clean station 2"])
    page = await _open_board(browser, client, org, board_id, ["Check the torque", "Order gloves", "Clean station 2"])
    await _mark(page)
    banner = _banner(page)
    with allow_console_errors(page, _UNREACHABLE):
        for round_ in (1, 2):
            await set_offline(page, True)
            await expect(banner).to_be_visible()
            await expect(banner).to_contain_text(re.compile(r"Last update received at \d{2}:\d{2}"))
            survivors = await _changes_meanwhile(org, board_id, group, round_)
            await set_offline(page, False)
            await expect(banner).to_be_hidden(timeout=_RECOVERY_MS)

            expected = await _server_names(org.owner, board_id)
            assert set(survivors) <= set(expected) and f"Outage {round_} item 2" not in expected
            await expect(_names(page)).to_have_text(expected, timeout=_RECOVERY_MS)
            for name in survivors:
                await expect(page.get_by_role("link", name=name, exact=True)).to_have_count(1)
            await expect(page.get_by_role("link", name=f"Outage {round_} item 1", exact=True)).to_have_count(0)
    await _not_reloaded(page)

    # Live again: a change now appears without a reload too.
    await org.owner.mutate("items.create", {"boardId": board_id, "groupId": group, "name": "After the outages"})
    await expect(page.get_by_role("link", name="After the outages", exact=True)).to_have_count(1)
    await expect(_names(page)).to_have_text(await _server_names(org.owner, board_id))
    await _not_reloaded(page)


async def _mention(org: Org, member: Api, item_id: str, text: str) -> None:
    reply = await member.mutate("comments.create", {"itemId": item_id, "body": f"@{org.owner_id} {text}"})
    assert reply.status == 200, reply.body


async def _unread_link(page: Page, count: int) -> None:
    navigation = page.get_by_role("navigation", name="Main")
    plural = "notification" if count == 1 else "notifications"
    await expect(navigation.get_by_role("link", name=re.compile(
        rf"^Notifications\W+{count} unread {plural}$"))).to_be_visible(timeout=_RECOVERY_MS)


async def test_the_unread_count_rises_live_and_counts_a_notification_from_an_outage_once(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board_id, _ = await _board(org, ["Replace the torque wrench"])
    item_id = (await org.owner.query("items.list", {"boardId": board_id})).data["items"][0]["id"]
    _, member = await org.add_user("member", name="Mia Martin")
    page = await _open_board(browser, client, org, board_id, ["Replace the torque wrench"])
    await _mark(page)
    navigation = page.get_by_role("navigation", name="Main")
    await expect(navigation.get_by_role("link", name="Notifications", exact=True)).to_be_visible()

    await _mention(org, member, item_id, "can you check the wrench?")
    await _unread_link(page, 1)

    with allow_console_errors(page, _UNREACHABLE):
        await set_offline(page, True)
        await expect(_banner(page)).to_be_visible()
        await _mention(org, member, item_id, "the spare part arrived")
        await set_offline(page, False)
        await expect(_banner(page)).to_be_hidden(timeout=_RECOVERY_MS)
    await _unread_link(page, 2)

    # One more while live: it follows the replayed one on the same stream, so once it is counted the replay
    # has been applied in full, and a notification counted twice would show here as 4.
    await _mention(org, member, item_id, "done?")
    await _unread_link(page, 3)
    assert (await org.owner.query("notifications.unreadCount", {})).data["count"] == 3
    await _not_reloaded(page)


@pytest.fixture
def lowered_replay(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The in-process gateway replays at most 3 missed events (MAX_REPLAY is read at each subscribe): a page
    that missed more is told TOO_FAR_BEHIND, as one that missed over 10,000 is in production."""
    from web import socket_gateway

    monkeypatch.setattr(socket_gateway, "MAX_REPLAY", 3)
    yield 3


async def test_a_page_too_far_behind_reloads_its_data_without_reloading_the_page(
        browser: Browser, client: Any, lowered_replay: int) -> None:
    org = await make_org(client)
    board_id, group = await _board(org, ["Check the torque"])
    page = await _open_board(browser, client, org, board_id, ["Check the torque"])
    await _mark(page)
    reads: list[str] = []

    def record(request: Request) -> None:
        if "items.list" in request.url:
            reads.append(request.url)

    page.on("request", record)
    with allow_console_errors(page, _UNREACHABLE):
        await set_offline(page, True)
        await expect(_banner(page)).to_be_visible()
        for number in range(1, lowered_replay + 3):
            await org.owner.mutate("items.create", {"boardId": board_id, "groupId": group,
                                                    "name": f"Missed item {number}"})
        await set_offline(page, False)
        await expect(_banner(page)).to_be_hidden(timeout=_RECOVERY_MS)
    expected = await _server_names(org.owner, board_id)
    assert len(expected) == lowered_replay + 3
    await expect(_names(page)).to_have_text(expected, timeout=_RECOVERY_MS)
    assert len(reads) == 1, reads  # the board's items were read again (a replay would read nothing)
    await _not_reloaded(page)


async def test_a_page_whose_websocket_is_refused_shows_its_data_and_goes_live_when_it_can(
        browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board_id, group = await _board(org, ["Check the torque", "Order gloves"])
    page = await open_page(browser, client, org)
    blocked = True

    async def proxy(socket: WebSocketRoute) -> None:
        # A proxy that refuses websockets closes each one; once it lets them through, the server answers.
        if blocked:
            await socket.close(code=1008, reason="websockets are not allowed here")
        else:
            socket.connect_to_server()

    await page.route_web_socket(re.compile(r"/socket\.io/"), proxy)
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url) if "items.list" in request.url else None)
    with allow_console_errors(page, _UNREACHABLE):
        await page.goto(f"{org_url(client, org.slug)}/boards/{board_id}")
        await expect(_names(page)).to_have_text(["Check the torque", "Order gloves"])
        await expect(_banner(page)).to_be_visible()
        await expect(_banner(page)).to_contain_text("Not connected yet.")
        await _mark(page)
        assert len(reads) == 1, reads

        await org.owner.mutate("items.create", {"boardId": board_id, "groupId": group, "name": "Made meanwhile"})
        blocked = False
        # The attempt the proxy closed before its handshake is given up after 10 s (live.js), then retried.
        await expect(_banner(page)).to_be_hidden(timeout=_RECOVERY_MS + 10_000)
    await expect(_names(page)).to_have_text(["Check the torque", "Order gloves", "Made meanwhile"])
    assert len(reads) == 2, reads  # subscribed, then read once more
    await org.owner.mutate("items.create", {"boardId": board_id, "groupId": group, "name": "Made live"})
    await expect(_names(page)).to_have_text(["Check the torque", "Order gloves", "Made meanwhile", "Made live"])
    assert len(reads) == 2, reads
    await _not_reloaded(page)


async def test_a_page_recovers_by_itself_when_the_server_stops_and_starts_again(
        browser: Browser, client: Any, database_url: str, request: pytest.FixtureRequest) -> None:
    from server.app import create_app
    from tests.conftest import server_settings

    org = await make_org(client)
    board_id, group = await _board(org, ["Check the torque"])
    page = await _open_board(browser, client, org, board_id, ["Check the torque"])
    await _mark(page)
    port = client.server.port
    with allow_console_errors(page, _UNREACHABLE):
        # The app's own shutdown (its live sockets are told, then closed), and nothing listens on the port.
        await client.server.close()
        await expect(_banner(page)).to_be_visible()
        await expect(_banner(page)).to_contain_text(re.compile(r"Last update received at \d{2}:\d{2}"))

        # A new server on the same port and database, as after a restart: the page comes back by itself.
        settings = server_settings(request, OBEYA_PUBLIC_URL=f"http://localhost:{port}")
        again = TestClient(TestServer(create_app(settings, database_url), port=port), cookie_jar=DummyCookieJar())
        await again.start_server()
        try:
            owner = Api(again, org.host, session=org.owner.session)
            reply = await owner.mutate("items.create", {"boardId": board_id, "groupId": group,
                                                        "name": "Made after the restart"})
            assert reply.status == 200, reply.body
            await expect(_banner(page)).to_be_hidden(timeout=_RECOVERY_MS)
            await expect(_names(page)).to_have_text(["Check the torque", "Made after the restart"])
            await owner.mutate("items.create", {"boardId": board_id, "groupId": group, "name": "Made live again"})
            await expect(_names(page)).to_have_text(["Check the torque", "Made after the restart", "Made live again"])
            assert await _server_names(owner, board_id) == [
                "Check the torque", "Made after the restart", "Made live again"]
            await _not_reloaded(page)
        finally:
            await page.context.close()  # before its server stops, so that no last request of it is refused
            await again.close()


async def test_from_signing_up_to_the_first_item_on_a_board_made_from_the_sqcdp_template(
        browser: Browser, client: Any) -> None:
    page = await open_page(browser, client)
    await page.goto(service_url(client) + "/signup")
    suffix = secrets.token_hex(3)
    email = f"ada-{suffix}@example.test"
    slug = f"lyon-plant-{suffix}"
    await page.get_by_label("Your name").fill("Ada Lovelace")
    await page.get_by_label("E-mail address").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_label("Organization name").fill(f"Lyon Plant {suffix}")
    await expect(page.get_by_label("Organization address")).to_have_value(slug)
    await page.get_by_role("button", name="Create the organization").click()

    await expect(page.get_by_role("heading", name="Sign in", level=1)).to_be_visible()
    assert page.url.startswith(org_url(client, slug) + "/signin")
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in", exact=True).click()

    await page.get_by_role("button", name="Create your first workspace").click()
    await page.get_by_label("Workspace name").fill("Plant 1")
    await page.get_by_role("dialog").get_by_role("button", name="New workspace").click()
    await expect(page.get_by_role("heading", name="Projects in Plant 1")).to_be_visible()
    await page.get_by_role("button", name="New project").click()
    await page.get_by_label("Project name").fill("Assembly line 3")
    await page.get_by_role("dialog").get_by_role("button", name="New project").click()
    await expect(page.get_by_role("heading", name="Boards in Assembly line 3")).to_be_visible()
    await page.get_by_role("button", name="New board from a template").click()
    dialog = page.get_by_role("dialog", name="New board from a template")
    await expect(dialog.get_by_role("radio", name=re.compile("SQCDP"))).to_be_checked()
    await dialog.get_by_label("Board name").fill("Line 3 daily SQCDP")
    await dialog.get_by_role("button", name="Create board").click()

    await expect(page.get_by_role("heading", name="Line 3 daily SQCDP", level=1)).to_be_visible()
    board_id = page.url.rsplit("/", 1)[1]
    first = page.get_by_role("textbox", name=re.compile(r"^Add item to ")).first
    await first.fill("Safety walk at 9:00")
    await first.press("Enter")
    await expect(page.get_by_role("link", name="Safety walk at 9:00", exact=True)).to_have_count(1)

    owner = await login(Api(client, f"{slug}.localhost"), email)
    items = (await owner.query("items.list", {"boardId": board_id})).data["items"]
    assert [item["name"] for item in items] == ["Safety walk at 9:00"]
    await screenshot(page, "journey-board")
