"""import.execute and import.getHistory (step 4, docs/import.md): items made in batches through the board's actor,
each an `item.created` event in the board's log, rows with errors skipped (or the whole import refused), the plan's
items per board, one notification per person assigned, and the history."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from actors.imports import handlers
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.imports.conftest import COLUMNS, column_id, mapped
from web.keys import NODE

NAME_AND_OWNER = "Name,Owner,Status\r\n"


def mapping(board: Board) -> list[dict[str, Any]]:
    return [{"csvIndex": 0, "target": "item_name"},
            {"csvIndex": 1, "target": "column", "columnId": column_id(board, "Owner")},
            {"csvIndex": 2, "target": "column", "columnId": column_id(board, "Status")}]


async def items_of(board: Board) -> list[dict[str, Any]]:
    reply = await board.api.query("items.list", {"boardId": board.id, "limit": 100})
    assert reply.status == 200, reply.body
    return list(reply.data["items"])


async def test_execute_creates_the_valid_rows_through_the_board_and_logs_each(board: Board,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers, "BATCH_ROWS", 2)  # five rows: three turns of the board
    maria_id, _ = await board.org.add_user("member", name="Maria Member")
    data = (NAME_AND_OWNER + "Pump,Maria Member,Done\r\nValve,,Stuck\r\nBroken,,Nope\r\nBelt,maria member,\r\n"
            "Fan,,Done\r\nMotor,,\r\n").encode()
    import_id = await mapped(board, data, mapping(board))
    reply = await board.api.mutate("import.execute", {"importId": import_id})
    assert reply.status == 200, reply.body
    result = reply.data
    assert result["importId"] == import_id and result["status"] == "completed" and result["boardId"] == board.id
    assert (result["itemsCreated"], result["itemsSkipped"]) == (5, 1)
    assert isinstance(result["duration"], int) and result["duration"] >= 0
    items = await items_of(board)
    assert [item["name"] for item in items] == ["Pump", "Valve", "Belt", "Fan", "Motor"]
    assert [item["groupId"] for item in items] == [board.group_id] * 5
    owner, status = column_id(board, "Owner"), column_id(board, "Status")
    assert items[0]["values"][owner] == [maria_id] and items[0]["values"][status]["label"] == "Done"
    assert items[2]["values"][owner] == [maria_id] and status not in items[2]["values"]
    pool = board.api.client.server.app[NODE].pool
    events = await pool.fetch("SELECT name, payload FROM events WHERE stream = $1 AND seq > 0 ORDER BY seq",
                              f"board:{board.id}")
    created = [e["payload"] for e in events if e["name"] == "item.created"]
    assert [e["data"]["item"]["name"] for e in created] == ["Pump", "Valve", "Belt", "Fan", "Motor"]
    assert {e["data"]["importId"] for e in created} == {import_id}
    completed = [{k: v for k, v in e["payload"]["data"].items() if k != "actor"} for e in events
                 if e["name"] == "import.completed"]
    assert completed == [{"importId": import_id, "boardId": board.id, "fileName": "items.csv",
                          "status": "completed", "itemsCreated": 5, "itemsSkipped": 1,
                          "duration": result["duration"]}]
    row = await pool.fetchrow("SELECT status, content, items_created FROM import_sessions WHERE id = $1", import_id)
    assert (row["status"], row["content"], row["items_created"]) == ("completed", None, 5)
    notes = await pool.fetch("SELECT title FROM notifications WHERE user_id = $1", maria_id)
    assert [n["title"] for n in notes] == ["You were assigned to 2 items imported from items.csv"]


async def test_items_go_to_the_group_their_row_names(board: Board) -> None:
    import_id = await mapped(board, b"Name,Group\r\nA,Done\r\nB,\r\n", [
        {"csvIndex": 0, "target": "item_name"}, {"csvIndex": 1, "target": "group"}])
    assert (await board.api.mutate("import.execute", {"importId": import_id})).status == 200
    groups = {item["name"]: item["groupId"] for item in await items_of(board)}
    assert groups == {"A": board.view["groups"][1]["id"], "B": board.group_id}


async def test_with_skip_error_rows_false_a_row_with_errors_refuses_the_whole_import(board: Board) -> None:
    import_id = await mapped(board, (NAME_AND_OWNER + "Pump,,Done\r\nBroken,,Nope\r\n").encode(), mapping(board))
    reply = await board.api.mutate("import.execute", {"importId": import_id, "skipErrorRows": False})
    assert reply.status == 400, reply.body
    error = reply.error["json"]
    assert error["data"]["details"][0]["field"] == "skipErrorRows" and error["data"]["errorRows"] == 1
    assert error["data"]["errors"][0]["value"] == "Nope"
    assert await items_of(board) == []
    again = await board.api.mutate("import.execute", {"importId": import_id})
    assert again.status == 200 and again.data["itemsCreated"] == 1


async def test_an_import_runs_once(board: Board) -> None:
    import_id = await mapped(board, b"Name\r\nA\r\n", [{"csvIndex": 0, "target": "item_name"}])
    assert (await board.api.mutate("import.execute", {"importId": import_id})).status == 200
    again = await board.api.mutate("import.execute", {"importId": import_id})
    assert again.status == 409 and "already run" in again.error["json"]["message"]
    remap = await board.api.mutate("import.mapColumns", {"importId": import_id,
                                                         "mappings": [{"csvIndex": 0, "target": "item_name"}]})
    assert remap.status == 409
    assert len(await items_of(board)) == 1


async def test_two_executions_at_once_run_the_import_once(board: Board) -> None:
    import_id = await mapped(board, b"Name\r\nA\r\nB\r\n", [{"csvIndex": 0, "target": "item_name"}])
    replies = await asyncio.gather(*(board.api.mutate("import.execute", {"importId": import_id}) for _ in range(2)))
    assert sorted(reply.status for reply in replies) == [200, 409]
    assert [item["name"] for item in await items_of(board)] == ["A", "B"]


async def test_more_rows_than_the_plan_lets_the_board_hold_is_403_before_any_is_written(client: Any) -> None:
    org = await make_org(client, plan="starter")  # 1000 items per board
    board = await make_board(org, columns=COLUMNS)
    await board.add_item("Already here")
    data = b"Name\r\n" + b"".join(b"Row %d\r\n" % n for n in range(1000))
    import_id = await mapped(board, data, [{"csvIndex": 0, "target": "item_name"}])
    reply = await board.api.mutate("import.execute", {"importId": import_id})
    assert reply.status == 403, reply.body
    assert reply.error["json"]["data"]["limit"] == "maxItemsPerBoard"
    assert len(await items_of(board)) == 1


async def test_history_lists_the_boards_imports_newest_first(board: Board) -> None:
    first = await mapped(board, b"Name\r\nA\r\n\r\n", [{"csvIndex": 0, "target": "item_name"}])
    await board.api.mutate("import.execute", {"importId": first})
    second = await mapped(board, b"Name\r\nB\r\nC\r\n", [{"csvIndex": 0, "target": "item_name"}])
    await board.api.mutate("import.execute", {"importId": second})
    await mapped(board, b"Name\r\nD\r\n", [{"csvIndex": 0, "target": "item_name"}])  # never run: not history
    reply = await board.api.query("import.getHistory", {"boardId": board.id})
    assert reply.status == 200, reply.body
    imports = reply.data["imports"]
    assert [(i["id"], i["status"], i["totalRows"], i["itemsCreated"], i["itemsSkipped"]) for i in imports] == [
        (second, "completed", 2, 2, 0), (first, "completed", 1, 1, 0)]
    assert imports[0]["importedBy"] == {"id": board.org.owner_id, "name": "Olga Owner"}
    assert imports[0]["fileName"] == "items.csv" and imports[0]["completedAt"].endswith("Z")
    other = await make_org(board.api.client)
    assert (await other.owner.query("import.getHistory", {"boardId": board.id})).status == 404


async def test_history_counts_the_first_row_when_it_is_data(board: Board) -> None:
    import_id = await mapped(board, b"Alpha\r\nBeta\r\n", [{"csvIndex": 0, "target": "item_name"}],
                             skipFirstRow=False)
    done = await board.api.mutate("import.execute", {"importId": import_id})
    assert done.status == 200 and done.data["itemsCreated"] == 2, done.body
    imports = (await board.api.query("import.getHistory", {"boardId": board.id})).data["imports"]
    assert [(i["id"], i["totalRows"], i["itemsCreated"], i["itemsSkipped"]) for i in imports] == [
        (import_id, 2, 2, 0)]
