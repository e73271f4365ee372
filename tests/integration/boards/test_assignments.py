"""Putting someone in a people column notifies them: `item_assigned`, once per
newly added person, never the caller themself nor people already there; through items.create,
items.setValue and items.bulkUpdate."""

from __future__ import annotations

from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board


async def assigned(api: Api) -> list[dict[str, Any]]:
    reply = await api.query("notifications.list", {"limit": 50})
    assert reply.status == 200, reply.body
    return [note for note in reply.data["notifications"] if note["type"] == "item_assigned"]


async def test_set_value_notifies_each_newly_added_person_but_not_the_caller(board: Board) -> None:
    ann_id, ann = await board.org.add_user(name="Ann")
    bob_id, bob = await board.org.add_user(name="Bob")
    item = await board.add_item("Fix the leak")
    owner_column = board.column("people")["id"]

    first = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": owner_column,
                                                      "value": [ann_id, board.org.owner_id]})
    assert first.status == 200, first.body
    # A people column holds one person unless `multiple`; the default Owner column may hold several.
    second = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": owner_column,
                                                       "value": [ann_id, bob_id]})
    assert second.status == 200, second.body

    [to_ann] = await assigned(ann)
    assert to_ann["entityType"] == "item" and to_ann["entityId"] == item["id"]
    assert "Fix the leak" in to_ann["title"]
    assert len(await assigned(bob)) == 1
    assert await assigned(board.api) == []


async def test_create_and_bulk_update_notify_the_people_they_add(board: Board) -> None:
    ann_id, ann = await board.org.add_user(name="Ann")
    bob_id, bob = await board.org.add_user(name="Bob")
    owner_column = board.column("people")["id"]
    first = await board.add_item("Clean the press", values={owner_column: [ann_id]})
    second = await board.add_item("Oil the belt")

    bulk = await board.api.mutate("items.bulkUpdate", {"itemIds": [first["id"], second["id"]],
                                                       "changes": {owner_column: [ann_id, bob_id]}})
    assert bulk.status == 200, bulk.body

    assert sorted(n["entityId"] for n in await assigned(ann)) == sorted([first["id"], second["id"]])
    assert sorted(n["entityId"] for n in await assigned(bob)) == sorted([first["id"], second["id"]])
