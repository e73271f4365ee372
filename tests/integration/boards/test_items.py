"""Items through the board actor: values checked against their columns, versions, moves,
order, trash and restore, archive, bulk operations, paging, sorting and filters, REST collection."""

from __future__ import annotations

import asyncpg

from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE


async def test_create_and_get(board: Board) -> None:
    status = board.column("status")
    item = await board.add_item("Replace bearing", description="Line 2 conveyor",
                                values={status["id"]: {"label": "Stuck"}})
    assert item["id"].startswith("itm_") and item["version"] == 1
    assert item["values"][status["id"]]["label"] == "Stuck" and item["values"][status["id"]]["color"].startswith("#")
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["description"] == "Line 2 conveyor"
    assert got.data["subItems"] == [] and got.data["commentCount"] == 0 and got.data["fileCount"] == 0
    sub = await board.add_item("Order part", parentId=item["id"])
    got = await board.api.query("items.get", {"id": item["id"]})
    assert [s["id"] for s in got.data["subItems"]] == [sub["id"]]


async def test_values_are_checked_against_their_columns(board: Board) -> None:
    status, people = board.column("status"), board.column("people")
    bad = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "x",
                                                  "values": {status["id"]: {"label": "Nope"},
                                                             people["id"]: ["usr_stranger"]}})
    assert bad.status == 400
    fields = [d["field"] for d in bad.error["data"]["details"]]
    assert len(fields) == 2
    assert fields[0].startswith(f"values.{status['id']}") and fields[1].startswith(f"values.{people['id']}")
    item = await board.add_item()
    ok = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": people["id"],
                                                   "value": [board.org.owner_id]})
    assert ok.status == 200 and ok.data["values"][people["id"]] == [board.org.owner_id]
    stranger = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": people["id"],
                                                         "value": ["usr_stranger"]})
    assert stranger.status == 400 and stranger.error["data"]["details"][0]["field"] == "value.0"
    unknown = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": "col_nope", "value": 1})
    assert unknown.status == 404
    long_name = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                        "name": "x" * 501})
    assert long_name.status == 400


async def test_required_columns_and_defaults(board: Board) -> None:
    required = (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Area", "type": "text",
                                                          "required": True})).data
    defaulted = (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Shift", "type": "text",
                                                           "defaultValue": "A"})).data
    missing = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "x"})
    assert missing.status == 400
    assert missing.error["data"]["details"][0]["field"] == f"values.{required['id']}"
    item = await board.add_item(values={required["id"]: "Press shop"})
    assert item["values"][defaulted["id"]] == "A"
    cleared = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": required["id"],
                                                        "value": None})
    assert cleared.status == 400


async def test_stale_expected_version_is_conflict(board: Board) -> None:
    item = await board.add_item()
    first = await board.api.mutate("items.update", {"id": item["id"], "name": "Tablet A", "expectedVersion": 1})
    assert first.status == 200 and first.data["version"] == 2
    stale = await board.api.mutate("items.update", {"id": item["id"], "name": "Tablet B", "expectedVersion": 1})
    assert stale.status == 409 and stale.error["data"]["code"] == "CONFLICT"
    assert (await board.api.query("items.get", {"id": item["id"]})).data["name"] == "Tablet A"


async def test_set_value_emits_item_updated_with_changes(board: Board) -> None:
    status = board.column("status")
    item = await board.add_item()
    await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": status["id"], "value": "Done"})
    node = board.api.client.server.app[NODE]
    row = await node.pool.fetchrow("SELECT payload FROM events WHERE stream = $1 AND name = 'item.updated'",
                                  f"board:{board.id}")
    data = row["payload"]["data"]
    assert data["item"]["status"] == "Done" and data["item"]["id"] == item["id"]
    assert set(data["item"]) == {"id", "name", "boardId", "groupId", "status", "priority", "assigneeId", "parentId"}
    assert data["changes"][status["id"]]["new"]["label"] == "Done"
    assert data["actor"]["id"] == board.org.owner_id


async def test_move_within_and_across_boards(org: Org, board: Board) -> None:
    other_group = (await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Later"})).data
    item = await board.add_item("Travel")
    sub = await board.add_item("Sub", parentId=item["id"])
    moved = await board.api.mutate("items.move", {"id": item["id"], "groupId": other_group["id"]})
    assert moved.status == 200 and moved.data["groupId"] == other_group["id"]
    target = await make_board(org)
    status_here, status_there = board.column("status"), target.column("status")
    await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": status_here["id"], "value": "Stuck"})
    await target.api.query("boards.get", {"id": target.id})  # the target's actor is active before the move
    comment = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "Before the move"})
    assert comment.status == 200, comment.body
    across = await board.api.mutate("items.move", {"id": item["id"], "groupId": target.group_id,
                                                   "boardId": target.id})
    assert across.status == 200, across.body
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["boardId"] == target.id
    assert got.data["values"][status_there["id"]]["label"] == "Stuck"
    assert [s["id"] for s in got.data["subItems"]] == [sub["id"]]
    listed_here = await board.api.query("items.list", {"boardId": board.id})
    assert item["id"] not in [i["id"] for i in listed_here.data["items"]]
    listed_there = await target.api.query("items.list", {"boardId": target.id})
    assert item["id"] in [i["id"] for i in listed_there.data["items"]]
    assert got.data["commentCount"] == 1
    comments = await target.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in comments.data["comments"]] == [comment.data["id"]]
    pinned = await target.api.mutate("comments.pin", {"id": comment.data["id"], "pinned": True})
    assert pinned.status == 200


async def test_reorder(board: Board) -> None:
    ids = [(await board.add_item(f"Item {n}"))["id"] for n in range(3)]
    assert (await board.api.mutate("items.reorder", {"groupId": board.group_id, "itemIds": ids[::-1]})).status == 200
    listed = await board.api.query("items.list", {"boardId": board.id})
    assert [i["id"] for i in listed.data["items"]] == ids[::-1]
    partial = await board.api.mutate("items.reorder", {"groupId": board.group_id, "itemIds": ids[:2]})
    assert partial.status == 400


async def test_trash_restore_and_archive(board: Board) -> None:
    item = await board.add_item()
    assert (await board.api.mutate("items.delete", {"id": item["id"]})).data == {"success": True, "id": item["id"]}
    assert (await board.api.query("items.get", {"id": item["id"]})).status == 404
    restored = await board.api.mutate("items.restore", {"id": item["id"]})
    assert restored.status == 200 and restored.data["deletedAt"] is None
    archived = await board.api.mutate("items.archive", {"id": item["id"]})
    assert archived.data["archivedAt"] is not None
    listed = await board.api.query("items.list", {"boardId": board.id})
    assert listed.data["items"] == []
    with_archived = await board.api.query("items.list", {"boardId": board.id, "includeArchived": True})
    assert [i["id"] for i in with_archived.data["items"]] == [item["id"]]


async def test_bulk_operations(board: Board) -> None:
    status = board.column("status")
    ids = [(await board.add_item(f"Item {n}"))["id"] for n in range(3)]
    updated = await board.api.mutate("items.bulkUpdate", {"itemIds": ids, "changes": {status["id"]: "Done"}})
    assert updated.status == 200 and updated.data["updated"] == 3
    assert all(i["values"][status["id"]]["label"] == "Done" for i in updated.data["items"])
    too_many = await board.api.mutate("items.bulkDelete", {"itemIds": [f"itm_{n}" for n in range(101)]})
    assert too_many.status == 400 and too_many.error["data"]["details"][0]["field"] == "itemIds"
    deleted = await board.api.mutate("items.bulkDelete", {"itemIds": ids[:2]})
    assert deleted.data["deleted"] == 2
    assert [i["id"] for i in (await board.api.query("items.list", {"boardId": board.id})).data["items"]] == ids[2:]


async def test_list_pages_sorts_and_filters(board: Board) -> None:
    score = (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Score", "type": "number"})).data
    for n in (5, 1, 9, 3, 7):
        await board.add_item(f"Score {n}", values={score["id"]: n})
    await board.add_item("No score")
    first = await board.api.query("items.list", {"boardId": board.id, "sortBy": score["id"], "limit": 2})
    assert [i["name"] for i in first.data["items"]] == ["Score 1", "Score 3"]
    second = await board.api.query("items.list", {"boardId": board.id, "sortBy": score["id"], "limit": 10,
                                                  "cursor": first.data["nextCursor"]})
    assert [i["name"] for i in second.data["items"]] == ["Score 5", "Score 7", "Score 9", "No score"]
    assert second.data["nextCursor"] is None
    desc = await board.api.query("items.list", {"boardId": board.id, "sortBy": score["id"], "sortDir": "desc"})
    assert [i["name"] for i in desc.data["items"]][:2] == ["No score", "Score 9"]
    filtered = await board.api.query("items.list", {"boardId": board.id, "filters": [
        {"columnId": score["id"], "operator": "gte", "value": 5}]})
    assert sorted(i["name"] for i in filtered.data["items"]) == ["Score 5", "Score 7", "Score 9"]
    empty = await board.api.query("items.list", {"boardId": board.id, "filters": [
        {"columnId": score["id"], "operator": "is_empty"}]})
    assert [i["name"] for i in empty.data["items"]] == ["No score"]
    named = await board.api.query("items.list", {"boardId": board.id, "filters": [
        {"columnId": "name", "operator": "contains", "value": "score 9"}]})
    assert [i["name"] for i in named.data["items"]] == ["Score 9"]
    bad_op = await board.api.query("items.list", {"boardId": board.id, "filters": [
        {"columnId": score["id"], "operator": "near"}]})
    assert bad_op.status == 400
    assert (await board.api.query("items.list", {"boardId": board.id, "limit": 201})).status == 400
    assert (await board.api.query("items.list", {"boardId": board.id, "cursor": "bad"})).status == 400


async def test_rest_collection(board: Board) -> None:
    api = board.api
    created = await api.rest("POST", "/api/v1/items", {"boardId": board.id, "groupId": board.group_id,
                                                       "name": "From REST"})
    assert created.status == 201, created.body
    item_id = created.data["id"]
    listed = await api.rest("GET", "/api/v1/items", params={"boardId": board.id, "limit": "1"})
    assert listed.status == 200 and listed.body["meta"]["limit"] == 1
    assert listed.body["meta"]["has_more"] is False and listed.data[0]["id"] == item_id
    patched = await api.rest("PATCH", f"/api/v1/items/{item_id}", {"name": "Renamed"})
    assert patched.data["name"] == "Renamed"
    assert (await api.rest("GET", f"/api/v1/items/{item_id}")).data["name"] == "Renamed"
    assert (await api.rest("DELETE", f"/api/v1/items/{item_id}")).status == 200
    assert (await api.rest("GET", f"/api/v1/items/{item_id}")).status == 404
    invalid = await api.rest("POST", "/api/v1/items", {"boardId": board.id, "groupId": board.group_id})
    assert invalid.status == 422 and invalid.error["details"][0]["field"] == "name"



async def test_status_default_label_and_partial_config_update(board: Board) -> None:
    status = board.column("status")
    stuck = next(label for label in status["config"]["labels"] if label["name"] == "Stuck")
    updated = await board.api.mutate("columns.update", {"id": status["id"], "config": {"defaultLabelId": stuck["id"]}})
    assert updated.status == 200, updated.body
    assert [label["id"] for label in updated.data["config"]["labels"]] == [
        label["id"] for label in status["config"]["labels"]]
    item = await board.add_item()
    assert item["values"][status["id"]]["id"] == stuck["id"]


async def test_references_to_other_columns_and_items_are_checked(board: Board) -> None:
    formula = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Total", "type": "formula",
                                                        "config": {"expression": "{col_missing} * 2"}})
    assert formula.status == 400
    assert formula.error["data"]["details"][0]["field"] == "config.expression"
    score = (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Score", "type": "number"})).data
    doubled = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Double", "type": "formula",
                                                        "config": {"expression": f"{{{score['id']}}} * 2"}})
    assert doubled.status == 200
    item = await board.add_item(values={score["id"]: 21})
    assert item["values"][doubled.data["id"]] == 42
    depends = (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Blocked by",
                                                         "type": "dependency"})).data
    missing = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": depends["id"],
                                                        "value": ["itm_aaaaaaaaaaaaaaaaaaaa"]})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "value.0"
    other = await board.add_item("Blocker")
    linked = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": depends["id"],
                                                       "value": [other["id"]]})
    assert linked.status == 200 and linked.data["values"][depends["id"]] == [other["id"]]
    wrong_lookup = await board.api.mutate("columns.create", {"boardId": board.id, "name": "L", "type": "lookup",
                                                             "config": {"dependencyColumnId": score["id"]}})
    assert wrong_lookup.status == 400


async def test_a_list_after_each_change_shows_the_changed_rows_in_board_order(board: Board) -> None:
    """Each list below reads a state whose board order an earlier list computed: changes that keep every item in
    place (values, names, archiving) reuse it, any other (create, reorder, move, trash, restore, groups) must
    not."""
    status = board.column("status")

    async def listed(**extra: object) -> list[tuple[str, str, str | None]]:
        reply = await board.api.query("items.list", {"boardId": board.id, **extra})
        return [(i["id"], i["name"], (i["values"].get(status["id"]) or {}).get("label")) for i in reply.data["items"]]

    ids = [(await board.add_item(f"Item {n}"))["id"] for n in range(3)]
    assert await listed() == [(i, f"Item {n}", None) for n, i in enumerate(ids)]
    await board.api.mutate("items.setValue", {"itemId": ids[1], "columnId": status["id"], "value": "Done"})
    await board.api.mutate("items.update", {"id": ids[2], "name": "Renamed"})
    assert await listed() == [(ids[0], "Item 0", None), (ids[1], "Item 1", "Done"), (ids[2], "Renamed", None)]
    added = (await board.add_item("Item 3"))["id"]
    assert [row[0] for row in await listed()] == [*ids, added]
    assert (await board.api.mutate("items.reorder", {"groupId": board.group_id,
                                                     "itemIds": [added, *ids[::-1]]})).status == 200
    assert [row[0] for row in await listed()] == [added, *ids[::-1]]
    assert (await board.api.mutate("items.delete", {"id": ids[0]})).status == 200
    assert [row[0] for row in await listed()] == [added, ids[2], ids[1]]
    assert (await board.api.mutate("items.restore", {"id": ids[0]})).status == 200
    assert ids[0] in [row[0] for row in await listed()]
    await board.api.mutate("items.archive", {"id": ids[1]})
    assert ids[1] not in [row[0] for row in await listed()]
    assert ids[1] in [row[0] for row in await listed(includeArchived=True)]
    later = (await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Later"})).data
    moved = await board.api.mutate("items.move", {"id": added, "groupId": later["id"]})
    assert moved.status == 200, moved.body
    assert [row[0] for row in await listed()][-1] == added


async def test_the_activity_of_one_call_is_listed_in_the_order_it_happened(board: Board, pool: asyncpg.Pool) -> None:
    """A turn writes its activity rows in one statement: their times still follow the order they were logged in,
    so the trail (newest first by time) lists them in reverse of that order, never shuffled by equal times."""
    status = board.column("status")
    ids = [(await board.add_item(f"Item {n}"))["id"] for n in range(60)]
    updated = await board.api.mutate("items.bulkUpdate", {"itemIds": ids, "changes": {status["id"]: "Done"}})
    assert updated.status == 200, updated.body

    rows = await pool.fetch("""SELECT entity_id, created_at FROM activity WHERE entity_id = ANY($1::text[])
                                 AND action = 'item.updated' ORDER BY created_at, id""", ids)
    assert [row["entity_id"] for row in rows] == ids
    assert len({row["created_at"] for row in rows}) == len(ids)  # no two share a time
