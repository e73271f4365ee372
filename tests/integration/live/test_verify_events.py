"""Zulip's verify_action for a board screen: for each kind of change a board screen is sent, a copy of the
board read before the change, with the received events folded into it, equals a fresh read after it. A
screen that applies what it is sent therefore never needs to reload."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen, received_for

COLUMNS = [{"name": "Status", "type": "status"}, {"name": "Count", "type": "number"}]
State = dict[str, Any]


async def read(board: Board) -> State:
    """What a board screen shows: groups, columns, and the live items (name, group, values, comments)."""
    view = await board.api.query("boards.get", {"id": board.id})
    assert view.status == 200, view.body
    listed = await board.api.query("items.list", {"boardId": board.id, "limit": 100})
    assert listed.status == 200, listed.body
    items = {}
    for item in listed.data["items"]:
        comments = await board.api.query("comments.list", {"itemId": item["id"]})
        assert comments.status == 200, comments.body
        items[item["id"]] = {"name": item["name"], "groupId": item["groupId"], "values": item["values"],
                             "comments": sorted(c["id"] for c in comments.data["comments"])}
    return {"groups": {g["id"]: g["name"] for g in view.data["groups"]},
            "columns": {c["id"]: (c["name"], c["type"]) for c in view.data["columns"]},
            "items": items, "hidden": {}}


def fold(state: State, name: str, payload: dict[str, Any]) -> None:
    """Apply one received board event to the screen's copy, checking each change starts from what it holds."""
    data = payload["data"]
    items = state["items"]
    if name == "item.created":
        item = data["item"]
        items[item["id"]] = {"name": item["name"], "groupId": item["groupId"], "values": dict(item["values"]),
                             "comments": []}
    elif name == "item.updated" and data.get("restored"):
        item = state["hidden"].pop(data["item"]["id"])
        items[data["item"]["id"]] = {**item, "groupId": data["item"]["groupId"]}
    elif name == "item.updated":
        item = items[data["item"]["id"]]
        for field, change in data["changes"].items():
            if field == "name":
                assert item["name"] == change["old"], (field, change)
                item["name"] = change["new"]
            elif field == "archivedAt":  # an archived item leaves the board's list
                assert change["old"] is None and change["new"] is not None, change
                state["hidden"][data["item"]["id"]] = items.pop(data["item"]["id"])
            else:
                assert item["values"].get(field) == change["old"], (field, change)
                if change["new"] is None:
                    item["values"].pop(field, None)
                else:
                    item["values"][field] = change["new"]
    elif name == "item.moved":
        item = items[data["item"]["id"]]
        assert item["groupId"] == data["from"]["groupId"]
        item["groupId"] = data["to"]["groupId"]
    elif name == "item.deleted":
        item = items.pop(data["item"]["id"])
        if not data["permanent"]:
            state["hidden"][data["item"]["id"]] = item
    elif name == "item.commented":
        items[data["item"]["id"]]["comments"] = sorted([*items[data["item"]["id"]]["comments"], data["comment"]["id"]])
    elif name == "board.updated":
        change = data["change"]
        if change.startswith("group."):
            group = data["group"]
            if change == "group.deleted":
                del state["groups"][group["id"]]
                for item in items.values():  # its items go to `moveItemsTo` (or come as item.deleted)
                    if item["groupId"] == group["id"] and data.get("moveItemsTo"):
                        item["groupId"] = data["moveItemsTo"]
            else:
                state["groups"][group["id"]] = group["name"]
        elif change.startswith("column."):
            column = data["column"]
            if change == "column.deleted":
                del state["columns"][column["id"]]
                for item in items.values():
                    item["values"].pop(column["id"], None)
            else:
                state["columns"][column["id"]] = (column["name"], column["type"])
    else:
        raise AssertionError(f"a board screen cannot fold {name}")


def shown(state: State) -> State:
    """The comparable part: a screen does not show what is in the trash or archived."""
    return {key: value for key, value in state.items() if key != "hidden"}


async def verify(board: Board, screen: Screen, state: State, change: Callable[[], Awaitable[Any]],
                 expected: set[str]) -> State:
    """Apply `change`, fold what the screen receives into `state`, compare with a fresh read."""
    received = await received_for(screen, board, f"board:{board.id}", change)
    assert received, "the change sent the screen nothing"
    assert {name for name, _ in received} <= expected, received
    for name, payload in received:
        fold(state, name, payload)
    fresh = await read(board)
    assert shown(state) == shown(fresh), [name for name, _ in received]
    return state


async def test_every_board_event_folds_into_a_fresh_read(org: Org, screens: Any) -> None:
    board = await make_board(org, columns=COLUMNS)
    screen = screens()
    await screen.connect(org.owner)
    ack = await screen.call("subscribe", {"room": f"board:{board.id}"})
    assert ack["ok"] is True, ack
    state = copy.deepcopy(await read(board))
    api = board.api
    status, count = board.column("status")["id"], board.column("number")["id"]
    made: dict[str, str] = {}

    async def ok(procedure: str, data: dict[str, Any]) -> dict[str, Any]:
        reply = await api.mutate(procedure, data)
        assert reply.status == 200, (procedure, reply.body)
        return dict(reply.data)

    async def create() -> None:
        made["item"] = (await board.add_item("Leak on press 4"))["id"]
        made["other"] = (await board.add_item("Guard missing"))["id"]

    async def add_group() -> None:
        made["group"] = (await ok("boards.groups.create", {"boardId": board.id, "name": "Done"}))["id"]

    async def add_column() -> None:
        made["column"] = (await ok("columns.create", {"boardId": board.id, "name": "Notes", "type": "text"}))["id"]

    steps: list[tuple[Callable[[], Awaitable[Any]], set[str]]] = [
        (create, {"item.created"}),
        (lambda: ok("items.setValue", {"itemId": made["item"], "columnId": status, "value": "Stuck"}),
         {"item.updated"}),
        (lambda: ok("items.setValue", {"itemId": made["item"], "columnId": count, "value": 7}), {"item.updated"}),
        (lambda: ok("items.update", {"id": made["item"], "name": "Leak on press 4B"}), {"item.updated"}),
        (add_group, {"board.updated"}),
        (lambda: ok("boards.groups.update", {"id": made["group"], "name": "Closed"}), {"board.updated"}),
        (lambda: ok("items.move", {"id": made["item"], "groupId": made["group"]}), {"item.moved"}),
        (add_column, {"board.updated"}),
        (lambda: ok("items.setValue", {"itemId": made["other"], "columnId": made["column"], "value": "oil"}),
         {"item.updated"}),
        (lambda: ok("columns.update", {"id": made["column"], "name": "Remarks"}), {"board.updated"}),
        (lambda: ok("columns.delete", {"id": made["column"]}), {"board.updated"}),
        (lambda: ok("comments.create", {"itemId": made["item"], "body": "Seal ordered"}), {"item.commented"}),
        (lambda: ok("items.archive", {"id": made["other"]}), {"item.updated"}),
        (lambda: ok("items.delete", {"id": made["item"]}), {"item.deleted"}),
        (lambda: ok("items.restore", {"id": made["item"]}), {"item.updated"}),
        (lambda: ok("boards.groups.delete", {"id": made["group"], "moveItemsTo": board.group_id}),
         {"board.updated", "item.moved", "item.deleted"}),
    ]
    for change, expected in steps:
        state = await verify(board, screen, state, change, expected)
