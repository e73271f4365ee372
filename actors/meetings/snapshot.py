"""The board as a meeting's start finds it (docs/templates-and-meetings.md, "Replay"): its groups and columns as
boards.get shows them and its items as items.list lists them (top-level items, neither archived nor in the trash,
in board order), at most SNAPSHOT_ITEMS of them. Rendered by the board's own code from its committed rows, the
way an activation of the board loads them."""

from __future__ import annotations

from typing import Any

import asyncpg

from actors.board.actor import read_state
from actors.board.item_queries import list_items
from actors.board.views import board_view
from protocol.items import ListItemsInput
from protocol.pagination import MAX_LIMIT

# A tier board holds tens to hundreds of items; 2000 keeps a meeting's row under a few megabytes.
SNAPSHOT_ITEMS = 2000


async def board_snapshot(conn: asyncpg.Connection, org_id: str, board_id: str) -> dict[str, Any]:
    """`{id, name, groups, columns, items, truncated}`; `truncated` when the board lists more than SNAPSHOT_ITEMS
    items (the first ones in board order are kept)."""
    state = await read_state(conn, org_id, board_id)
    board = board_view(state)
    items: list[Any] = []
    cursor = None
    while True:
        page = list_items(state, ListItemsInput(boardId=board_id, cursor=cursor, limit=MAX_LIMIT))
        items.extend(page.items)
        cursor = page.next_cursor
        if cursor is None or len(items) >= SNAPSHOT_ITEMS:
            break
    return {"id": board["id"], "name": board["name"], "groups": board["groups"], "columns": board["columns"],
            "items": items[:SNAPSHOT_ITEMS], "truncated": len(items) > SNAPSHOT_ITEMS or cursor is not None}
