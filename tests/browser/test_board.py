"""The board screen (/boards/<id>, web/ui/static/screens/board.js) in a real browser against the real server."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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
    evidence = row(page, wrench).get_by_role("cell").filter(has=page.get_by_role("button", name=f"Edit Evidence of {wrench}"))
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
    await page.evaluate("document.activeElement.blur()")
    await check_accessibility(page, "board table")
    await screenshot(page, "board-table")
