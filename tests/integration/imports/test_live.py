"""A tier-board screen following the board live sees imported items arrive as `item.created` events, batch by
batch, with consecutive seqs, and the state it folds from them equals a fresh read of the board."""

from __future__ import annotations

from typing import Any

import pytest

from actors.imports import handlers
from tests.integration.boards.conftest import Board
from tests.integration.imports.conftest import column_id, mapped
from tests.integration.live.conftest import Screen, follow, received_for


async def test_a_screen_sees_each_imported_item_arrive(board: Board, screens: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers, "BATCH_ROWS", 3)
    screen: Screen = screens()
    start = await follow(screen, board.api, board)
    rows = "".join(f"Part {n},L{1 + n % 2}\r\n" for n in range(7))
    import_id = await mapped(board, f"Name,Line\r\n{rows}".encode(), [
        {"csvIndex": 0, "target": "item_name"},
        {"csvIndex": 1, "target": "column", "columnId": column_id(board, "Line")}])

    async def run() -> None:
        reply = await board.api.mutate("import.execute", {"importId": import_id})
        assert reply.status == 200 and reply.data["itemsCreated"] == 7, reply.body

    received = await received_for(screen, board, f"board:{board.id}", run)
    created = [data for name, data in received if name == "item.created"]
    assert [data["seq"] for data in created] == list(range(start + 1, start + 8))
    assert all(data["data"]["importId"] == import_id for data in created)
    seen = {data["data"]["item"]["id"]: (data["data"]["item"]["name"], data["data"]["item"]["values"])
            for data in created}
    fresh = (await board.api.query("items.list", {"boardId": board.id})).data["items"]
    assert seen == {item["id"]: (item["name"], item["values"]) for item in fresh}
    assert [name for name, _ in received][-1] == "import.completed"
