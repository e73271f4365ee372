"""PostgreSQL terminating every connection of the server (an administrator's `pg_terminate_backend`, a
failover) while requests run: no request is a 500, a refused one is a 503 with `Retry-After`, a write retried
under its `Idempotency-Key` lands exactly once (its key is never left claimed by the failed try), and the
server answers normally afterwards."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import Counter
from typing import Any

import asyncpg

from tests.harness import Api, make_org
from tests.integration.boards.conftest import make_board
from tests.integration.kpis.conftest import define

TERMINATIONS = 5
WRITERS, READERS = 4, 6
TERMINATE_ALL = """SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()"""


class Answers:
    """Every answer the load got that was not a 200, and the names the writers saw created."""

    def __init__(self) -> None:
        self.refused: list[tuple[str, int, Any, str | None]] = []
        self.created: list[str] = []

    def note(self, what: str, status: int, body: Any, headers: Any) -> None:
        if status != 200:
            self.refused.append((what, status, body, headers.get("Retry-After")))


async def write_until_done(api: Api, board_id: str, group_id: str, name: str, answers: Answers) -> None:
    """items.create under one key, sent again with the same key while it is refused."""
    key = secrets.token_hex(16)
    for _ in range(50):
        reply = await api.mutate("items.create", {"boardId": board_id, "groupId": group_id, "name": name},
                                 headers={"Idempotency-Key": key})
        answers.note("items.create", reply.status, reply.body, reply.headers)
        if reply.status != 503:
            break
        await asyncio.sleep(0.02)
    assert reply.status == 200, (name, reply.status, reply.body)
    answers.created.append(name)


async def writer(api: Api, board_id: str, group_id: str, prefix: str, stop: asyncio.Event,
                 answers: Answers) -> None:
    count = 0
    while not stop.is_set():
        count += 1
        await write_until_done(api, board_id, group_id, f"{prefix}-{count}", answers)


async def reader(api: Api, procedure: str, input: dict[str, Any], stop: asyncio.Event, answers: Answers) -> None:
    while not stop.is_set():
        reply = await api.query(procedure, input)
        answers.note(procedure, reply.status, reply.body, reply.headers)


async def test_terminated_connections_are_503s_and_every_keyed_write_lands_once(
        client: Any, database_url: str) -> None:
    org = await make_org(client, plan="enterprise")  # its rate limit leaves the load room
    board = await make_board(org)
    # One signed-in user per task, each with its own rate-limit bucket.
    users = [(await org.add_user("admin"))[1] for _ in range(WRITERS + READERS)]
    item = await board.add_item("Has comments")
    assert (await board.api.mutate("comments.create", {"itemId": item["id"], "body": "Checked"})).status == 200
    kpi = await define(board)
    answers, stop = Answers(), asyncio.Event()
    load = [asyncio.create_task(writer(users[n], board.id, board.group_id, f"w{n}", stop, answers))
            for n in range(WRITERS)]
    load += [asyncio.create_task(reader(users[WRITERS + n], "kpis.get", {"id": kpi["id"]}, stop, answers))
             for n in range(READERS // 2)]
    load += [asyncio.create_task(reader(users[-1 - n], "comments.list", {"itemId": item["id"]}, stop, answers))
             for n in range(READERS // 2)]

    admin = await asyncpg.connect(database_url)
    try:
        for _ in range(TERMINATIONS):
            await asyncio.sleep(0.3)  # let the load run on fresh connections between two terminations
            assert await admin.fetchval(TERMINATE_ALL) > 0
        await asyncio.sleep(0.3)
        stop.set()
        await asyncio.gather(*load)

        assert all(status == 503 for _, status, _, _ in answers.refused), \
            [(what, status, json.dumps(body)[:300]) for what, status, body, _ in answers.refused if status != 503]
        assert all(retry_after == "1" for *_, retry_after in answers.refused), answers.refused
        assert answers.created, "the writers created nothing"
        stored = Counter(await admin.fetchval(
            "SELECT array_agg(name) FROM items WHERE board_id = $1 AND name <> 'Has comments'", board.id))
        assert stored == Counter(answers.created), "a keyed write was lost or applied twice"
    finally:
        await admin.close()

    after = await board.api.query("kpis.get", {"id": kpi["id"]})
    assert after.status == 200, after.body
    assert (await board.add_item("After the fault"))["name"] == "After the fault"
