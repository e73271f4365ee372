"""A write made under an Idempotency-Key whose response was lost after the board applied it (a 503 from a node
that forwarded it, after the owner committed; such a refusal releases the key) is answered, when retried, with
the reply the board kept then, and is not applied twice (docs/architecture.md, "The write path"; docs/forwarding.md)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import asyncpg

from tests.harness import Api
from tests.integration.boards.conftest import Board
from tests.integration.limits.test_idempotency import write


async def lose_response(pool: asyncpg.Pool, key: str) -> None:
    """What a 503 does to its key: released, as if the request had changed nothing."""
    assert await pool.execute("DELETE FROM idempotency_keys WHERE key = $1", key) == "DELETE 1"


def create(board: Board, name: str) -> dict[str, Any]:
    return {"boardId": board.id, "groupId": board.group_id, "name": name}


async def names(api: Api, board: Board) -> list[str]:
    return sorted(item["name"] for item in (await api.query("items.list", {"boardId": board.id})).data["items"])


async def test_a_create_retried_after_its_response_was_lost_makes_one_item(board: Board, pool: asyncpg.Pool) -> None:
    key = secrets.token_hex(16)
    first = await board.api.mutate("items.create", create(board, "Leak at press 4"), {"Idempotency-Key": key})
    assert first.status == 200, first.body
    await lose_response(pool, key)

    again = await board.api.mutate("items.create", create(board, "Leak at press 4"), {"Idempotency-Key": key})

    assert again.status == 200, again.body
    assert again.data == first.data  # the board's kept reply: the same item, same number
    assert await names(board.api, board) == ["Leak at press 4"]


async def test_each_call_of_a_batch_is_kept_on_its_own(board: Board, pool: asyncpg.Pool) -> None:
    key = secrets.token_hex(16)
    path = "/api/trpc/items.create,items.create?batch=1"
    body = {"0": {"json": create(board, "First")}, "1": {"json": create(board, "Second")}}
    made = await write(board.api, "POST", path, body, key)
    assert made.status == 200, made.body
    await lose_response(pool, key)

    retried = await write(board.api, "POST", path, body, key)

    assert retried.status == 200, retried.body
    first, again = json.loads(made.body), json.loads(retried.body)
    assert [call["result"]["data"]["json"]["id"] for call in again] == \
        [call["result"]["data"]["json"]["id"] for call in first]
    assert await names(board.api, board) == ["First", "Second"]


async def test_the_same_key_with_another_body_after_a_lost_response_is_another_call(
        board: Board, pool: asyncpg.Pool) -> None:
    key = secrets.token_hex(16)
    first = await board.api.mutate("items.create", create(board, "Valve"), {"Idempotency-Key": key})
    assert first.status == 200, first.body
    await lose_response(pool, key)

    other = await board.api.mutate("items.create", create(board, "Pump"), {"Idempotency-Key": key})

    assert other.status == 200, other.body
    assert other.data["id"] != first.data["id"]
    assert await names(board.api, board) == ["Pump", "Valve"]
