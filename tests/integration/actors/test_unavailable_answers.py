"""A 503 that asks the client to come back says when (`Retry-After`) and names nothing internal: here a board
activated meanwhile elsewhere (its epoch taken by another node) refuses the write of its stale activation, and
the retry it asks for succeeds."""

from __future__ import annotations

import json

import asyncpg

from tests.harness import Org
from tests.integration.boards.conftest import make_board


async def test_a_write_to_a_moved_board_is_a_bare_503_with_retry_after(org: Org, pool: asyncpg.Pool) -> None:
    board = await make_board(org)
    await board.add_item("Loaded here")  # the board is active on this node under its epoch
    await pool.execute("UPDATE actor_epochs SET epoch = epoch + 1 WHERE actor_key = $1", f"board:{board.id}")

    refused = await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                      "name": "Lands after the move"})
    assert refused.status == 503, refused.body
    assert refused.headers["Retry-After"] == "1"
    assert refused.error["json"]["data"]["code"] == "SERVICE_UNAVAILABLE"
    text = json.dumps(refused.body)
    assert board.id not in text and "board:" not in text and "epoch" not in text.lower(), text

    again = await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                    "name": "Lands after the move"})
    assert again.status == 200, again.body
