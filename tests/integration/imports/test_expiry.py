"""Sessions live one hour after the upload, history 90 days; the sweeper deletes what outlived them
and records an import its node abandoned mid-way as failed. A batch the board is sent twice makes nothing twice, nor
does an import run again after its first batch's reply was lost."""

from __future__ import annotations

from typing import Any

from actors.board.routing import ask_board
from actors.imports.batch import IMPORT_ITEMS, ImportBatch, ImportRow, encode_rows
from actors.imports.handlers import imported_item_id
from actors.imports.sweeper import sweep_imports
from protocol.caller import Caller, Organization
from protocol.ids import Prefix, new_id
from protocol.registry import Role
from tests.harness import login, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.imports.conftest import COLUMNS, column_id, mapped, uploaded
from web.keys import NODE

HOUR, DAY = 3600.0, 86400.0


async def test_a_session_not_executed_within_the_hour_is_gone(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org, columns=COLUMNS)
    session = await uploaded(board.api, board.id, b"Name\r\nA\r\n")
    mapping = {"importId": session["importId"], "mappings": [{"csvIndex": 0, "target": "item_name"}]}
    clock.advance(HOUR - 1)
    assert (await board.api.mutate("import.mapColumns", mapping)).status == 200
    clock.advance(2)
    reply = await board.api.mutate("import.mapColumns", mapping)
    assert reply.status == 404 and "expired" in reply.error["json"]["message"]
    assert (await board.api.mutate("import.execute", {"importId": session["importId"]})).status == 404
    node = clocked_client.server.app[NODE]
    expired, _, _ = await sweep_imports(node)  # every organization's: other tests' sessions too
    assert expired >= 1
    assert await node.pool.fetchval("SELECT count(*) FROM import_sessions WHERE id = $1", session["importId"]) == 0


async def test_history_is_kept_90_days(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org, columns=COLUMNS)
    import_id = await mapped(board, b"Name\r\nA\r\n", [{"csvIndex": 0, "target": "item_name"}])
    assert (await board.api.mutate("import.execute", {"importId": import_id})).status == 200
    node = clocked_client.server.app[NODE]
    clock.advance(89 * DAY)
    await sweep_imports(node)
    owner = await login(org.anonymous, org.owner_email)  # the first session ends after 30 days
    history = await owner.query("import.getHistory", {"boardId": board.id})
    assert [entry["id"] for entry in history.data["imports"]] == [import_id]
    clock.advance(2 * DAY)
    owner = await login(org.anonymous, org.owner_email)
    assert (await owner.query("import.getHistory", {"boardId": board.id})).data["imports"] == []
    await sweep_imports(node)
    assert await node.pool.fetchval("SELECT count(*) FROM import_sessions WHERE id = $1", import_id) == 0


async def test_an_import_its_node_abandoned_is_recorded_as_failed(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org, columns=COLUMNS)
    import_id = await mapped(board, b"Name\r\nA\r\n", [{"csvIndex": 0, "target": "item_name"}])
    node = clocked_client.server.app[NODE]
    # What a node that stopped after claiming the import leaves behind.
    await node.pool.execute("UPDATE import_sessions SET status = 'running' WHERE id = $1", import_id)
    clock.advance(HOUR + 1)
    _, _, abandoned = await sweep_imports(node)
    assert abandoned >= 1
    history = (await board.api.query("import.getHistory", {"boardId": board.id})).data["imports"]
    assert [(entry["id"], entry["status"]) for entry in history] == [(import_id, "failed")]
    assert "stopped before it finished" in history[0]["error"]
    # Screens and webhooks following the board learn that it ended, as for an import that failed while running.
    events = await node.pool.fetch("SELECT name, payload FROM events WHERE stream = $1 AND name LIKE 'import.%'",
                                   f"board:{board.id}")
    assert [(e["name"], e["payload"]["data"]["importId"], e["payload"]["data"]["status"]) for e in events] == [
        ("import.failed", import_id, "failed")]
    assert (await sweep_imports(node))[2] == 0  # recorded once


async def sent_as_the_import_does(board: Board, import_id: str, rows: list[ImportRow]) -> dict[str, Any]:
    """A batch asked of the board as an import's execution sends it, as its owner; the board's reply."""
    caller = Caller(request_id="test", organization=Organization(board.org.id, board.org.slug, "", "business"),
                    user_id=board.org.owner_id, role=Role.OWNER)
    node = board.api.client.server.app[NODE]
    reply: dict[str, Any] = await ask_board(node, caller, board.id, IMPORT_ITEMS,
                                            ImportBatch(import_id, encode_rows(rows), {}), with_members=True)
    return reply


async def test_a_batch_sent_twice_makes_its_items_once(board: Board) -> None:
    rows = [ImportRow(new_id(Prefix.ITEM), 2, "A", board.group_id, {}),
            ImportRow(new_id(Prefix.ITEM), 3, "B", board.group_id, {})]
    first = await sent_as_the_import_does(board, "imp_test", rows)
    again = await sent_as_the_import_does(board, "imp_test", rows)
    assert first["created"] == again["created"] == 2
    items = (await board.api.query("items.list", {"boardId": board.id})).data["items"]
    assert [item["name"] for item in items] == ["A", "B"]
    assert [item["id"] for item in items] == [row.item_id for row in rows]


async def test_an_execution_run_again_after_its_first_batch_went_unanswered_makes_each_row_once(board: Board) -> None:
    """The board took the first batch but its reply was lost (its owner died after the commit, say): the import
    went back to `mapped` as if nothing was written, and the user runs it again."""
    node = board.api.client.server.app[NODE]
    import_id = await mapped(board, b"Name\r\nA\r\nB\r\nC\r\n", [{"csvIndex": 0, "target": "item_name"}])
    first_batch = [ImportRow(imported_item_id(import_id, row), row, name, board.group_id, {})
                   for row, name in ((2, "A"), (3, "B"))]
    await sent_as_the_import_does(board, import_id, first_batch)
    reply = await board.api.mutate("import.execute", {"importId": import_id})
    assert reply.status == 200, reply.body
    assert (reply.data["itemsCreated"], reply.data["itemsSkipped"]) == (3, 0)
    items = (await board.api.query("items.list", {"boardId": board.id})).data["items"]
    assert sorted(item["name"] for item in items) == ["A", "B", "C"]
    created = await node.pool.fetchval("SELECT count(*) FROM events WHERE stream = $1 AND name = 'item.created'",
                                       f"board:{board.id}")
    assert created == 3


async def test_items_of_an_unanswered_batch_trashed_or_moved_meanwhile_stay_where_the_user_put_them(
        board: Board) -> None:
    node = board.api.client.server.app[NODE]
    import_id = await mapped(board, b"Name\r\nA\r\nB\r\nC\r\n", [{"csvIndex": 0, "target": "item_name"}])
    trashed, moved = imported_item_id(import_id, 2), imported_item_id(import_id, 3)
    await sent_as_the_import_does(board, import_id, [ImportRow(trashed, 2, "A", board.group_id, {}),
                                                     ImportRow(moved, 3, "B", board.group_id, {})])
    elsewhere = await make_board(board.org)
    assert (await board.api.mutate("items.delete", {"id": trashed})).status == 200
    across = await board.api.mutate("items.move", {"id": moved, "groupId": elsewhere.group_id,
                                                   "boardId": elsewhere.id})
    assert across.status == 200, across.body
    reply = await board.api.mutate("import.execute", {"importId": import_id})
    assert reply.status == 200, reply.body
    assert (reply.data["itemsCreated"], reply.data["itemsSkipped"]) == (3, 0)
    here = (await board.api.query("items.list", {"boardId": board.id})).data["items"]
    there = (await board.api.query("items.list", {"boardId": elsewhere.id})).data["items"]
    assert ([item["name"] for item in here], [item["id"] for item in there]) == (["C"], [moved])
    trash = await node.pool.fetchrow("SELECT board_id, deleted_at FROM items WHERE id = $1", trashed)
    assert trash["board_id"] == board.id and trash["deleted_at"] is not None


async def test_an_execution_refused_before_its_first_row_leaves_the_hour_as_it_was(clocked_client: Any,
                                                                                   clock: Any) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org, columns=COLUMNS)
    import_id = await mapped(board, b"Name,Line\r\nA,L9\r\n", [
        {"csvIndex": 0, "target": "item_name"},
        {"csvIndex": 1, "target": "column", "columnId": column_id(board, "Line")}])
    clock.advance(HOUR / 2)
    refused = await board.api.mutate("import.execute", {"importId": import_id, "skipErrorRows": False})
    assert refused.status == 400, refused.body
    clock.advance(HOUR / 2 + 1)  # an hour and a second after the upload
    reply = await board.api.mutate("import.execute", {"importId": import_id})
    assert reply.status == 404 and "expired" in reply.error["json"]["message"], reply.body
    expired, _, _ = await sweep_imports(clocked_client.server.app[NODE])
    assert expired >= 1
    node = clocked_client.server.app[NODE]
    assert await node.pool.fetchval("SELECT count(*) FROM import_sessions WHERE id = $1", import_id) == 0
