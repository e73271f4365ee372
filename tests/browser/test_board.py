"""The board screen (/boards/<id>, web/ui/static/screens/board.js) in a real browser against the real server: cells of
every common type edited in place (and a value above its column's max refused with the server's message), items
added, renamed, moved, reordered by keyboard and pointer, given a sub-item and deleted; bulk actions; groups; the
kanban view; a second page following live; the conflict choice; a board of 2,000 items drawn a window at a time.
axe on the table (with an open editor too), the kanban view and the conflict; their screenshots."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from playwright.async_api import Browser, FilePayload, Locator, Page, expect

from tests.browser.conftest import allow_console_errors, check_accessibility, open_page, org_url, screenshot
from tests.harness import Org, make_org

COLUMNS = [
    {"name": "Status", "type": "status"},
    {"name": "Line", "type": "dropdown", "config": {"options": ["L1", "L2", "L3"]}},
    {"name": "Owner", "type": "people"},
    {"name": "Due", "type": "date"},
    {"name": "Torque", "type": "number", "config": {"suffix": "Nm", "max": 100}},
    {"name": "Checked", "type": "checkbox"},
    {"name": "Quality", "type": "rating"},
    {"name": "Notes", "type": "text"},
    {"name": "Details", "type": "long_text"},
    {"name": "Evidence", "type": "file"},
]


@dataclass
class Board:
    id: str
    groups: dict[str, str]
    columns: dict[str, dict[str, Any]]
    items: dict[str, str]


async def make_board(org: Org, items: dict[str, list[str]], columns: list[dict[str, Any]] | None = None) -> Board:
    """A workspace, project and board with the groups and items of `items` ({group: [item names]}), in order."""
    owner = org.owner
    workspace = (await owner.mutate("workspaces.create", {"name": "Plant 1"})).data
    project = (await owner.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Line 4"})).data
    view = (await owner.mutate("boards.create", {
        "projectId": project["id"], "name": "Line 4 tier 1", "groups": [{"name": name} for name in items],
        "columns": COLUMNS if columns is None else columns})).data
    groups = {group["name"]: group["id"] for group in view["groups"]}
    made: dict[str, str] = {}
    for group, names in items.items():
        for name in names:
            reply = await owner.mutate("items.create", {"boardId": view["id"], "groupId": groups[group], "name": name})
            assert reply.status == 200, reply.body
            made[name] = reply.data["id"]
    return Board(view["id"], groups, {column["name"]: column for column in view["columns"]}, made)


async def open_board(browser: Browser, client: Any, org: Org, board: Board, view: str = "") -> Page:
    page = await open_page(browser, client, org, viewport=(1600, 1000))
    await page.goto(f"{org_url(client, org.slug)}/boards/{board.id}{f'?view={view}' if view else ''}")
    await expect(page.get_by_role("heading", level=1, name="Line 4 tier 1")).to_be_visible()
    return page


def row(page: Page, item: str) -> Locator:
    """The table's row of the item named `item` (its name is the link to the item's page)."""
    return page.get_by_role("row").filter(has=page.get_by_role("link", name=item, exact=True))


async def set_values(org: Org, item_id: str, values: dict[str, Any]) -> None:
    for column_id, value in values.items():
        reply = await org.owner.mutate("items.setValue", {"itemId": item_id, "columnId": column_id, "value": value})
        assert reply.status == 200, reply.body


async def item_of(org: Org, item_id: str) -> dict[str, Any]:
    reply = await org.owner.query("items.get", {"id": item_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def edit(page: Page, item: str, column: str) -> Locator:
    """Open the editor of `column` in the row of `item`; answers the editor's dialog."""
    await row(page, item).get_by_role("button", name=f"Edit {column} of {item}").click()
    dialog = page.get_by_role("dialog", name=f"{column} of {item}")
    await expect(dialog).to_be_visible()
    return dialog


async def save(dialog: Locator) -> None:
    await dialog.get_by_role("button", name="Save", exact=True).click()
    await expect(dialog).to_be_hidden()


async def shows(page: Page, item: str, column: str, value: str) -> None:
    """The cell of `column` in the row of `item` shows `value`: its edit button reads "Edit <column> of <item>:
    <value>" (what a screen reader says; the visible part is the value)."""
    button = row(page, item).get_by_role("button", name=f"Edit {column} of {item}")
    await expect(button).to_have_accessible_name(f"Edit {column} of {item}: {value}")


async def test_cells_of_every_kind_are_edited_in_place(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    mia, _ = await org.add_user("member", name="Mia Martin")
    board = await make_board(org, {"This week": ["Replace the torque wrench", "Calibrate the press"]})
    page = await open_board(browser, client, org, board)
    wrench = "Replace the torque wrench"

    dialog = await edit(page, wrench, "Status")
    await dialog.get_by_role("group", name="Status").get_by_role("button", name="Working on it").click()
    await expect(dialog).to_be_hidden()
    await shows(page, wrench, "Status", "Working on it")

    dialog = await edit(page, wrench, "Line")
    await dialog.get_by_label("Line").select_option("L2")
    await save(dialog)
    await shows(page, wrench, "Line", "L2")

    dialog = await edit(page, wrench, "Owner")
    await dialog.get_by_label("Search people").fill("mia")
    await dialog.get_by_role("group", name="Owner").get_by_role("checkbox", name="Mia Martin").check()
    await save(dialog)
    await shows(page, wrench, "Owner", "Mia Martin")

    dialog = await edit(page, wrench, "Due")
    await dialog.get_by_label("Due").fill("2026-12-03")
    await save(dialog)
    await shows(page, wrench, "Due", "3 Dec 2026")

    dialog = await edit(page, wrench, "Torque")
    await dialog.get_by_label("Torque").fill("40.5")
    await save(dialog)
    await shows(page, wrench, "Torque", "40.5 Nm")

    dialog = await edit(page, wrench, "Checked")
    await dialog.get_by_role("checkbox", name="Checked").check()
    await save(dialog)
    await shows(page, wrench, "Checked", "Yes")

    dialog = await edit(page, wrench, "Quality")
    await dialog.get_by_label("Quality").select_option(label="4 of 5")
    await save(dialog)
    await shows(page, wrench, "Quality", "4 of 5")

    dialog = await edit(page, wrench, "Notes")
    await dialog.get_by_label("Notes").fill("Torque checked at 40 Nm")
    await save(dialog)
    await shows(page, wrench, "Notes", "Torque checked at 40 Nm")

    dialog = await edit(page, wrench, "Details")
    await dialog.get_by_label("Details").fill("First line\nSecond line")
    await save(dialog)
    await shows(page, wrench, "Details", "First line")

    # Above the column's max: the server's own message next to the field, the editor open, nothing saved.
    refused = await org.owner.mutate("items.setValue", {"itemId": board.items["Calibrate the press"],
                                                        "columnId": board.columns["Torque"]["id"], "value": 150})
    assert refused.status == 400, refused.body
    message = refused.error["data"]["details"][0]["message"]
    dialog = await edit(page, "Calibrate the press", "Torque")
    await dialog.get_by_label("Torque").fill("150")
    await dialog.get_by_role("button", name="Save", exact=True).click()
    await expect(dialog.get_by_role("alert")).to_have_text(f"Torque: {message}")
    await expect(dialog.get_by_label("Torque")).to_have_value("150")
    await expect(dialog.get_by_label("Torque")).to_have_attribute("aria-invalid", "true")
    await check_accessibility(page, "board table with an editor")
    await screenshot(page, "board-editor")
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_be_hidden()
    await shows(page, "Calibrate the press", "Torque", "Empty")

    dialog = await edit(page, wrench, "Evidence")
    log: FilePayload = {"name": "torque-log.txt", "mimeType": "text/plain", "buffer": b"40 Nm, 41 Nm, 40 Nm\n"}
    await dialog.get_by_label("Upload a file").set_input_files(files=[log])
    await expect(dialog.get_by_role("link", name="torque-log.txt")).to_be_visible()
    await save(dialog)
    evidence = row(page, wrench).get_by_role("cell").filter(
        has=page.get_by_role("button", name=f"Edit Evidence of {wrench}"))
    await expect(evidence.get_by_role("link", name="torque-log.txt")).to_have_attribute(
        "href", re.compile(r"^/api/v1/files/file_"))

    saved = (await item_of(org, board.items[wrench]))["values"]
    by = {name: saved.get(column["id"]) for name, column in board.columns.items()}
    assert by["Status"]["label"] == "Working on it"
    assert (by["Line"], by["Owner"], by["Due"], by["Torque"]) == ("L2", [mia], "2026-12-03", 40.5)
    assert (by["Checked"], by["Quality"], by["Notes"]) == (True, 4, "Torque checked at 40 Nm")
    assert by["Details"] == "First line\nSecond line"
    assert [file["name"] for file in by["Evidence"]] == ["torque-log.txt"]
    assert board.columns["Torque"]["id"] not in (await item_of(org, board.items["Calibrate the press"]))["values"]
    # The shot shows the board from its first column (the last edit scrolled it sideways).
    await page.get_by_role("table").evaluate(
        "table => { document.activeElement.blur(); table.parentElement.scrollLeft = 0; }")
    await check_accessibility(page, "board table")
    await screenshot(page, "board-table")


async def order(org: Org, board: Board) -> dict[str, list[str]]:
    """The board's top-level item names by group name, in order, as the server has them."""
    listed = (await org.owner.query("items.list", {"boardId": board.id, "limit": 200})).data["items"]
    names = {group_id: name for name, group_id in board.groups.items()}
    by: dict[str, list[tuple[float, str]]] = {name: [] for name in board.groups}
    for item in listed:
        by[names[item["groupId"]]].append((item["position"], item["name"]))
    return {group: [name for _, name in sorted(entries)] for group, entries in by.items()}


@contextlib.asynccontextmanager
async def answered(page: Page, procedure: str) -> AsyncIterator[None]:
    """Waits, at the end of the block, for the server's answer to the page's call of `procedure` made inside it (a
    write the page shows before it is answered, such as a reorder)."""
    async with page.expect_response(lambda response: f"/api/trpc/{procedure}" in response.url) as reply:
        yield
    assert (await reply.value).ok


def announced(page: Page, text: str) -> Locator:
    return page.get_by_role("status").filter(has_text=text)


async def test_items_are_added_renamed_moved_reordered_and_deleted(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"This week": ["Clean the oven", "Fix the conveyor", "Order gloves"],
                                   "Next week": ["Paint the floor"]}, columns=[{"name": "Status", "type": "status"}])
    page = await open_board(browser, client, org, board)

    add = page.get_by_role("textbox", name="Add item to This week")
    await add.fill("Check the fire doors")
    await add.press("Enter")
    await expect(row(page, "Check the fire doors")).to_be_visible()
    await expect(announced(page, "Added Check the fire doors")).to_be_attached()
    await expect(add).to_have_value("")

    await page.get_by_role("button", name="More actions for Check the fire doors").click()
    actions = page.get_by_role("dialog", name="Check the fire doors")
    await actions.get_by_label("Item name").fill("Check the fire exits")
    await actions.get_by_role("button", name="Save").click()
    await expect(actions).to_be_hidden()
    await expect(row(page, "Check the fire exits")).to_be_visible()

    await page.get_by_role("button", name="More actions for Check the fire exits").click()
    actions = page.get_by_role("dialog", name="Check the fire exits")
    await actions.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("dialog", name="Delete Check the fire exits?")
    await expect(confirm).to_contain_text("restored for 30 days")
    await confirm.get_by_role("button", name="Delete").click()
    await expect(page.get_by_role("dialog")).to_have_count(0)
    await expect(row(page, "Check the fire exits")).to_have_count(0)

    await page.get_by_role("button", name="More actions for Order gloves").click()
    actions = page.get_by_role("dialog", name="Order gloves")
    await actions.get_by_label("Move to group").select_option(label="Next week")
    await actions.get_by_role("button", name="Move to group").click()
    await expect(actions).to_be_hidden()
    await expect(announced(page, "Moved Order gloves to Next week")).to_be_attached()
    assert await order(org, board) == {"This week": ["Clean the oven", "Fix the conveyor"],
                                       "Next week": ["Paint the floor", "Order gloves"]}

    # Keyboard: Alt+ArrowDown on the row moves it and keeps focus on its Move down button; the buttons too.
    await row(page, "Clean the oven").get_by_role("link", name="Clean the oven").focus()
    async with answered(page, "items.reorder"):
        await page.keyboard.press("Alt+ArrowDown")
        await expect(announced(page, "Clean the oven is now at position 2 of 2 in This week")).to_be_attached()
    await expect(page.get_by_role("button", name="Move Clean the oven down")).to_be_focused()
    async with answered(page, "items.reorder"):
        await page.get_by_role("button", name="Move Order gloves up").click()
        await expect(announced(page, "Order gloves is now at position 1 of 2 in Next week")).to_be_attached()
    await expect(page.get_by_role("button", name="Move Order gloves up")).to_be_focused()
    assert await order(org, board) == {"This week": ["Fix the conveyor", "Clean the oven"],
                                       "Next week": ["Order gloves", "Paint the floor"]}

    # Pointer: drag a row onto the lower half of another puts it after that one.
    async with answered(page, "items.reorder"):
        await row(page, "Fix the conveyor").drag_to(row(page, "Clean the oven"), target_position={"x": 400, "y": 50})
        await expect(announced(page, "Fix the conveyor is now at position 2 of 2 in This week")).to_be_attached()
    rows = page.get_by_role("row").filter(has=page.get_by_role("link"))
    await expect(rows).to_have_text([re.compile(name) for name in
                                     ["Clean the oven", "Fix the conveyor", "Order gloves", "Paint the floor"]])
    assert await order(org, board) == {"This week": ["Clean the oven", "Fix the conveyor"],
                                       "Next week": ["Order gloves", "Paint the floor"]}

    await page.get_by_role("button", name="Show sub-items of Fix the conveyor").click()
    await expect(page.get_by_role("cell", name="No sub-items yet.")).to_be_visible()
    sub = page.get_by_role("textbox", name="Add sub-item to Fix the conveyor")
    await sub.fill("Order a new belt")
    await sub.press("Enter")
    await expect(rows).to_have_text([re.compile(name) for name in ["Clean the oven", "Fix the conveyor",
                                                                    "Order a new belt", "Order gloves",
                                                                    "Paint the floor"]])
    await expect(page.get_by_role("cell", name="No sub-items yet.")).to_have_count(0)
    subs = (await item_of(org, board.items["Fix the conveyor"]))["subItems"]
    assert [entry["name"] for entry in subs] == ["Order a new belt"]


async def test_a_move_meets_a_move_made_meanwhile_and_the_item_stays_where_it_was_put(browser: Browser,
                                                                                      client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"This week": ["Order gloves"], "Next week": [], "Later": []},
                             columns=[{"name": "Status", "type": "status"}])
    page = await open_board(browser, client, org, board)
    await page.get_by_role("button", name="More actions for Order gloves").click()
    actions = page.get_by_role("dialog", name="Order gloves")
    await actions.get_by_label("Move to group").select_option(label="Later")
    moved = await org.owner.mutate("items.move", {"id": board.items["Order gloves"],
                                                  "groupId": board.groups["Next week"]})
    assert moved.status == 200, moved.body
    await actions.get_by_role("button", name="Move to group").click()
    await expect(page.get_by_role("alert").filter(
        has_text="Someone moved “Order gloves” to another group first, so it stays there.")).to_be_visible()
    assert (await item_of(org, board.items["Order gloves"]))["groupId"] == board.groups["Next week"]


async def test_selected_items_are_changed_and_deleted_together(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"Line A": ["Sweep", "Oil the chain"], "Line B": ["Label the bins", "Fix the door"]},
                             columns=[{"name": "Status", "type": "status"}])
    page = await open_board(browser, client, org, board)
    bulk = page.get_by_role("region", name="Bulk actions")
    await expect(bulk).to_have_count(0)

    await page.get_by_role("checkbox", name="Select Sweep").check()
    await expect(bulk.get_by_role("status")).to_have_text("1 selected")
    await page.get_by_role("button", name="Clear selection").click()
    await expect(bulk).to_have_count(0)
    await expect(page.get_by_role("checkbox", name="Select Sweep")).not_to_be_checked()

    await page.get_by_role("checkbox", name="Select all in Line B").check()
    await expect(page.get_by_role("checkbox", name="Select Label the bins")).to_be_checked()
    await expect(page.get_by_role("checkbox", name="Select Fix the door")).to_be_checked()
    await page.get_by_role("checkbox", name="Select Oil the chain").check()
    await expect(bulk.get_by_role("status")).to_have_text("3 selected")
    await bulk.get_by_label("Status").select_option(label="Done")
    await bulk.get_by_role("button", name="Set Status").click()
    await expect(announced(page, "Updated 3 items")).to_be_attached()
    await expect(bulk).to_have_count(0)
    for name in ["Oil the chain", "Label the bins", "Fix the door"]:
        await shows(page, name, "Status", "Done")
    await shows(page, "Sweep", "Status", "Empty")
    status = board.columns["Status"]["id"]
    for name, item_id in board.items.items():
        label = (await item_of(org, item_id))["values"].get(status, {}).get("label")
        assert label == (None if name == "Sweep" else "Done"), name

    await page.get_by_role("checkbox", name="Select Sweep").check()
    await page.get_by_role("checkbox", name="Select Fix the door").check()
    await bulk.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("dialog", name="Delete 2 items?")
    await confirm.get_by_role("button", name="Delete").click()
    await expect(announced(page, "Deleted 2 items")).to_be_attached()
    await expect(confirm).to_be_hidden()
    await expect(bulk).to_have_count(0)
    await expect(row(page, "Sweep")).to_have_count(0)
    await expect(row(page, "Fix the door")).to_have_count(0)
    assert await order(org, board) == {"Line A": ["Oil the chain"], "Line B": ["Label the bins"]}


async def test_groups_are_added_renamed_collapsed_and_deleted(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"Backlog": ["Sweep"], "Doing": ["Oil the chain"]},
                             columns=[{"name": "Status", "type": "status"}])
    page = await open_board(browser, client, org, board)

    await page.get_by_role("button", name="Add group").click()
    dialog = page.get_by_role("dialog", name="Add group")
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("Enter a name")
    await dialog.get_by_label("New group name").fill("Waiting for parts")
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog).to_be_hidden()
    await expect(page.get_by_role("button", name="Collapse Waiting for parts")).to_be_visible()
    await expect(page.get_by_role("textbox", name="Add item to Waiting for parts")).to_be_visible()

    await page.get_by_role("button", name="Actions for group Waiting for parts").click()
    dialog = page.get_by_role("dialog", name="Actions for group Waiting for parts")
    await dialog.get_by_label("Group name").fill("Parts ordered")
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog).to_be_hidden()
    await expect(page.get_by_role("button", name="Collapse Parts ordered")).to_be_visible()

    collapse = page.get_by_role("button", name="Collapse Backlog")
    await expect(collapse).to_have_attribute("aria-expanded", "true")
    await collapse.click()
    expand = page.get_by_role("button", name="Expand Backlog")
    await expect(expand).to_have_attribute("aria-expanded", "false")
    await expect(row(page, "Sweep")).to_have_count(0)
    await expect(page.get_by_role("textbox", name="Add item to Backlog")).to_have_count(0)
    async with answered(page, "boards.groups.update"):
        await expand.click()
    await expect(row(page, "Sweep")).to_be_visible()

    await page.get_by_role("button", name="Actions for group Doing").click()
    dialog = page.get_by_role("dialog", name="Actions for group Doing")
    await dialog.get_by_role("button", name="Delete group").click()
    confirm = page.get_by_role("dialog", name="Delete the group Doing?")
    await expect(confirm).to_contain_text("Its items go to the trash")
    await confirm.get_by_role("button", name="Delete group").click()
    await expect(page.get_by_role("dialog")).to_have_count(0)
    await expect(page.get_by_role("button", name="Collapse Doing")).to_have_count(0)
    await expect(row(page, "Oil the chain")).to_have_count(0)

    groups = (await org.owner.query("boards.get", {"id": board.id})).data["groups"]
    assert [(group["name"], group["collapsed"]) for group in sorted(groups, key=lambda g: g["position"])] == [
        ("Backlog", False), ("Parts ordered", False)]


async def test_kanban_lanes_by_status_with_cards_moved_by_pointer_and_keyboard(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    mia, _ = await org.add_user("member", name="Mia Martin")
    board = await make_board(org, {"This week": ["Sweep", "Oil the chain", "Fix the door"]},
                             columns=[{"name": "Status", "type": "status"}, {"name": "Owner", "type": "people"},
                                      {"name": "Due", "type": "date"}])
    status, owner, due = (board.columns[name]["id"] for name in ("Status", "Owner", "Due"))
    await set_values(org, board.items["Sweep"], {status: "Done"})
    await set_values(org, board.items["Oil the chain"], {status: "Working on it", owner: [mia], due: "2026-12-03"})
    page = await open_board(browser, client, org, board, view="kanban")
    await expect(page.get_by_role("button", name="Kanban")).to_have_attribute("aria-pressed", "true")
    lanes = page.get_by_role("region")
    await expect(lanes).to_have_count(4)
    await expect(lanes.get_by_role("heading", level=2)).to_have_text(
        ["Working on it 1 card", "Done 1 card", "Stuck 0 cards", "No status 1 card"])
    working, done, stuck, none = (page.get_by_role("region", name=name, exact=True)
                                  for name in ("Working on it", "Done", "Stuck", "No status"))
    card = working.get_by_role("listitem").filter(has=page.get_by_role("link", name="Oil the chain"))
    await expect(card).to_contain_text("Mia Martin")
    await expect(card).to_contain_text("3 Dec 2026")
    await expect(done.get_by_role("link", name="Sweep")).to_be_visible()
    await expect(none.get_by_role("link", name="Fix the door")).to_be_visible()
    await check_accessibility(page, "board kanban")
    await screenshot(page, "board-kanban")

    # Pointer: a card dragged to the Stuck lane takes that status.
    await none.get_by_role("listitem").filter(has_text="Fix the door").drag_to(stuck)
    await expect(stuck.get_by_role("link", name="Fix the door")).to_be_visible()
    await expect(announced(page, "Moved Fix the door to Stuck")).to_be_attached()
    assert (await item_of(org, board.items["Fix the door"]))["values"][status]["label"] == "Stuck"

    # Keyboard: the card's "Move to…" menu.
    move = done.get_by_role("button", name="Move to… Sweep")
    await move.focus()
    await page.keyboard.press("Enter")
    await expect(move).to_have_attribute("aria-expanded", "true")
    await done.get_by_role("list", name="Move Sweep to").get_by_role("button", name="Working on it").press("Enter")
    await expect(working.get_by_role("link", name="Sweep")).to_be_visible()
    await expect(done.get_by_role("listitem")).to_have_count(0)
    await expect(announced(page, "Moved Sweep to Working on it")).to_be_attached()
    assert (await item_of(org, board.items["Sweep"]))["values"][status]["label"] == "Working on it"

    new = done.get_by_role("textbox", name="Add card to Done")
    await new.fill("Close the audit")
    await new.press("Enter")
    await expect(done.get_by_role("link", name="Close the audit")).to_be_visible()
    await expect(new).to_have_value("")
    listed = (await org.owner.query("items.list", {"boardId": board.id})).data["items"]
    added = next(item for item in listed if item["name"] == "Close the audit")
    assert added["values"][status]["label"] == "Done"
    await expect(lanes.get_by_role("heading", level=2)).to_have_text(
        ["Working on it 2 cards", "Done 1 card", "Stuck 1 card", "No status 0 cards"])


async def test_a_second_page_sees_edits_new_items_and_reorders_without_reload(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"This week": ["Sweep", "Oil the chain"]},
                             columns=[{"name": "Status", "type": "status"}])
    page = await open_board(browser, client, org, board)
    other = await open_board(browser, client, org, board)
    await expect(row(other, "Oil the chain")).to_be_visible()

    dialog = await edit(page, "Sweep", "Status")
    await dialog.get_by_role("button", name="Stuck").click()
    await expect(dialog).to_be_hidden()
    await shows(other, "Sweep", "Status", "Stuck")

    add = page.get_by_role("textbox", name="Add item to This week")
    await add.fill("Refill the soap")
    await add.press("Enter")
    await expect(row(page, "Refill the soap")).to_be_visible()
    await expect(row(other, "Refill the soap")).to_be_visible()

    await page.get_by_role("button", name="Move Refill the soap up").click()
    await expect(announced(page, "Refill the soap is now at position 2 of 3 in This week")).to_be_attached()
    rows = other.get_by_role("row").filter(has=other.get_by_role("link"))
    await expect(rows).to_have_text([re.compile(name) for name in ["Sweep", "Refill the soap", "Oil the chain"]])


async def test_a_value_changed_meanwhile_is_offered_as_a_choice(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"This week": ["Fix the conveyor"]},
                             columns=[{"name": "Status", "type": "status"}, {"name": "Notes", "type": "text"}])
    notes = board.columns["Notes"]["id"]
    item = board.items["Fix the conveyor"]
    await set_values(org, item, {notes: "Belt worn"})
    page = await open_board(browser, client, org, board)

    async def conflict(theirs: str, mine: str) -> Locator:
        dialog = await edit(page, "Fix the conveyor", "Notes")
        await dialog.get_by_label("Notes").fill(mine)
        await set_values(org, item, {notes: theirs})
        await shows(page, "Fix the conveyor", "Notes", theirs)  # arrived live under the open editor
        # The browser logs the refused write (409) as a console error: here it is the point.
        with allow_console_errors(page, r"status of 409 \(Conflict\)"):
            await dialog.get_by_role("button", name="Save", exact=True).click()
            notice = dialog.get_by_role("alert").filter(has_text="Someone changed this first")
            await expect(notice).to_contain_text(f"Now saved{theirs}")
        await expect(notice).to_contain_text(f"Your change{mine}")
        assert (await item_of(org, item))["values"][notes] == theirs
        return notice

    notice = await conflict("Belt replaced by maintenance", "Belt worn, order a new one")
    await check_accessibility(page, "board conflict")
    await screenshot(page, "board-conflict")
    await notice.get_by_role("button", name="Keep theirs").click()
    await expect(page.get_by_role("dialog")).to_have_count(0)
    await shows(page, "Fix the conveyor", "Notes", "Belt replaced by maintenance")
    assert (await item_of(org, item))["values"][notes] == "Belt replaced by maintenance"

    notice = await conflict("Belt replaced, tension to check", "Tension checked: fine")
    await notice.get_by_role("button", name="Use mine").click()
    await expect(page.get_by_role("dialog")).to_have_count(0)
    await shows(page, "Fix the conveyor", "Notes", "Tension checked: fine")
    assert (await item_of(org, item))["values"][notes] == "Tension checked: fine"


async def import_items(org: Org, board: Board, group: str, names: list[str]) -> None:
    """Items named `names`, in that order, into `group` by a CSV import (docs/import.md): one upload and three
    calls, however many rows."""
    form = aiohttp.FormData()
    form.add_field("boardId", board.id)
    form.add_field("file", ("Name\n" + "\n".join(names) + "\n").encode(), filename="items.csv", content_type="text/csv")
    async with org.owner.client.post("/api/trpc/import.uploadCsv", data=form,
                                     headers=org.owner.headers({"Origin": f"http://{org.host}"})) as response:
        assert response.status == 200, await response.text()
        import_id = (await response.json())["result"]["data"]["json"]["importId"]
    mapped = await org.owner.mutate("import.mapColumns", {"importId": import_id, "groupId": board.groups[group],
                                                          "mappings": [{"csvIndex": 0, "target": "item_name"}]})
    assert mapped.status == 200, mapped.body
    done = await org.owner.mutate("import.execute", {"importId": import_id, "skipErrorRows": False})
    assert done.status == 200 and done.data["itemsCreated"] == len(names), done.body


async def test_a_board_of_two_thousand_items_draws_only_what_is_in_view(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    board = await make_board(org, {"Audit points": []}, columns=[{"name": "Status", "type": "status"}])
    names = [f"Check point {number:04d}" for number in range(1, 2001)]
    await import_items(org, board, "Audit points", names)
    page = await open_board(browser, client, org, board)
    table = page.get_by_role("table", name="Line 4 tier 1")
    await expect(page.get_by_role("status").filter(has_text="loading the rest")).to_have_count(0)
    await expect(page.get_by_role("heading", name="Audit points")).to_have_count(0)
    await expect(table.get_by_role("columnheader", name="Audit points")).to_contain_text("2,000 items")
    # Header, group, 2,000 items, the add row: all counted for assistive technology, few drawn.
    await expect(table).to_have_attribute("aria-rowcount", "2003")
    assert await table.get_by_role("row").count() < 200

    # Keyboard: Tab walks down the rows past the ones first drawn (7 stops a row: select, sub-items, name, status,
    # up, down, more actions), and the row it reaches is drawn and scrolled into view.
    await row(page, names[0]).get_by_role("link", name=names[0]).focus()
    for _ in range(7 * 39):
        await page.keyboard.press("Tab")
    reached = row(page, names[39]).get_by_role("link", name=names[39])
    await expect(reached).to_be_focused()
    await expect(reached).to_be_in_viewport()

    await table.hover()
    await page.mouse.wheel(0, 200_000)
    last = row(page, names[-1])
    await expect(last).to_be_in_viewport()
    await expect(last).to_have_attribute("aria-rowindex", "2002")
    await expect(page.get_by_role("textbox", name="Add item to Audit points")).to_be_in_viewport()
    assert await table.get_by_role("row").count() < 200
