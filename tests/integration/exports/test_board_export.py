"""export.exportBoard: Group, Item Name, Created At, then one column per board column in board
order; top-level items that are neither archived nor trashed, group by group and by position; object cells
as JSON; names with commas, quotes and line breaks survive csv.reader."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board, make_project
from tests.integration.exports.conftest import AWKWARD, export, parse


async def tricky_board(org: Any) -> Board:
    project_id = await make_project(org)
    reply = await org.owner.mutate("boards.create", {
        "projectId": project_id, "name": "Export me",
        "groups": [{"name": 'Group "A", first'}, {"name": "Line\nTwo"}],
        "columns": [{"name": "Status", "type": "status"}, {"name": 'Notes, "free"', "type": "text"},
                    {"name": "Qty", "type": "number"}, {"name": "Double", "type": "formula"},
                    {"name": "Owner", "type": "people"}, {"name": "Done?", "type": "checkbox"},
                    {"name": "Due", "type": "date"}, {"name": "Link", "type": "link"},
                    {"name": "#", "type": "auto_number"}]})
    assert reply.status == 200, reply.body
    board = Board(org, reply.data["id"], project_id, reply.data)
    qty = board.view["columns"][2]["id"]
    updated = await org.owner.mutate("columns.update", {"id": board.view["columns"][3]["id"],
                                                        "config": {"expression": "{" + qty + "} * 2"}})
    assert updated.status == 200, updated.body
    await board.refresh()
    return board


def expected_cell(value: Any) -> Any:
    """What the export holds for a value, parsed back: text as is (a leading `'` where it begins like a
    formula), empty for none, anything else JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
    return json.loads(json.dumps(value))


def parsed_cell(cell: str, value: Any) -> Any:
    return cell if value is None or isinstance(value, str) else json.loads(cell)


async def test_the_board_round_trips_through_csv_reader(board: Board) -> None:
    board = await tricky_board(board.org)
    columns = board.view["columns"]
    ids = {c["name"]: c["id"] for c in columns}
    first_group, second_group = (g["id"] for g in board.view["groups"])
    api = board.api

    async def add(group_id: str, name: str, values: dict[str, Any]) -> dict[str, Any]:
        reply = await api.mutate("items.create", {"boardId": board.id, "groupId": group_id, "name": name,
                                                  "values": values})
        assert reply.status == 200, reply.body
        return dict(reply.data)

    made = [
        await add(first_group, AWKWARD[0], {ids["Status"]: "Done", ids['Notes, "free"']: AWKWARD[1],
                                            ids["Qty"]: 12.5, ids["Owner"]: [board.org.owner_id],
                                            ids["Done?"]: True, ids["Due"]: "2026-11-21",
                                            ids["Link"]: {"url": "https://example.test/a,b", "text": 'x "y"'}}),
        await add(first_group, AWKWARD[2], {ids['Notes, "free"']: AWKWARD[4]}),
        await add(second_group, AWKWARD[3], {ids["Qty"]: 3, ids['Notes, "free"']: AWKWARD[5]}),
    ]
    # Not exported: an archived item, a trashed item, a sub-item.
    archived = await add(first_group, "Archived one", {})
    assert (await api.mutate("items.archive", {"id": archived["id"]})).status == 200
    trashed = await add(second_group, "Trashed one", {})
    assert (await api.mutate("items.delete", {"id": trashed["id"]})).status == 200
    sub = await api.mutate("items.create", {"boardId": board.id, "groupId": first_group, "name": "Sub-item",
                                            "parentId": made[0]["id"]})
    assert sub.status == 200, sub.body

    rows = parse(await export(api, "exportBoard", {"boardId": board.id}))
    assert rows[0] == ["Group", "Item Name", "Created At", *(c["name"] for c in columns)]
    assert len(rows) == 1 + len(made)
    groups = ['Group "A", first', 'Group "A", first', "Line\nTwo"]
    for row, item, group in zip(rows[1:], made, groups, strict=True):
        live = (await api.query("items.get", {"id": item["id"]})).data
        assert row[:3] == [group, live["name"], live["createdAt"]]
        cells = row[3:]
        assert len(cells) == len(columns)
        for cell, column in zip(cells, columns, strict=True):
            value = live["values"].get(column["id"])
            assert parsed_cell(cell, value) == expected_cell(value), column["name"]

    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["Qty"] == "12.5" and first["Double"] == "25" and first["Done?"] == "true"
    assert first["#"] == "1" and first["Due"] == "2026-11-21"
    assert json.loads(first["Status"])["label"] == "Done"
    assert json.loads(first["Owner"]) == [board.org.owner_id]
    assert json.loads(first["Link"]) == {"url": "https://example.test/a,b", "text": 'x "y"'}
    second = dict(zip(rows[0], rows[2], strict=True))
    assert second["Qty"] == "" and second["Double"] == "" and second['Notes, "free"'] == AWKWARD[4]
    assert dict(zip(rows[0], rows[3], strict=True))['Notes, "free"'] == "'=1+2"  # neutralised (OWASP)


async def test_rows_follow_group_and_position_order(board: Board) -> None:
    api = board.api
    names = ["third", "first", "second"]
    items = {name: await board.add_item(name) for name in names}
    reordered = await api.mutate("items.reorder", {"groupId": board.group_id, "itemIds": [
        items["first"]["id"], items["second"]["id"], items["third"]["id"]]})
    assert reordered.status == 200, reordered.body
    rows = parse(await export(api, "exportBoard", {"boardId": board.id}))
    assert [row[1] for row in rows[1:]] == ["first", "second", "third"]


async def test_an_empty_board_is_its_header(board: Board) -> None:
    text = await export(board.api, "exportBoard", {"boardId": board.id})
    assert text == "Group,Item Name,Created At,Status,Owner\r\n"


async def test_another_organizations_board_is_not_found(client: TestClient, board: Board) -> None:
    await board.add_item("Secret")
    stranger = (await make_board(await make_org(client))).api
    reply = await stranger.query("export.exportBoard", {"boardId": board.id})
    assert reply.status == 404 and reply.error["data"]["code"] == "NOT_FOUND"


async def test_an_api_key_needs_read_items(board: Board) -> None:
    await board.add_item("Visible")
    denied = await board.api.mutate("apiKeys.create", {"name": "kpis only", "scopes": ["read:kpis"]})
    allowed = await board.api.mutate("apiKeys.create", {"name": "items", "scopes": ["read:items"]})
    assert denied.status == 200 and allowed.status == 200, (denied.body, allowed.body)
    refused = await board.api.with_bearer(denied.data["key"]).query("export.exportBoard", {"boardId": board.id})
    assert refused.status == 403
    served = await board.api.with_bearer(allowed.data["key"]).query("export.exportBoard", {"boardId": board.id})
    assert served.status == 200 and parse(served.data)[1][1] == "Visible"
