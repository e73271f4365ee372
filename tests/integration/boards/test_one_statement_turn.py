"""A board or KPI turn commits in one statement, one round trip to PostgreSQL (storage/turn_statement.py): its
writes, the kept reply, the events of every stream and the epoch check. The real actors run in an actor system of
their own over a pool that logs every statement it sends, on a board the app made."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.kpi import commands as kpi_commands
from actors.kpi.actor import KpiActor
from actors.runtime.clock import SystemClock
from actors.runtime.system import ActorSystem
from protocol import boards as board_spec
from protocol import items as item_spec
from protocol import kpis as kpi_spec
from protocol.caller import Caller, CredentialKind, Organization
from protocol.errors import ServiceUnavailable
from protocol.registry import Role
from storage.epochs import take_epoch
from storage.pool import create_pool
from tests.integration.boards.conftest import Board
from tests.integration.kpis.conftest import define, pool_of
from web.keys import NODE


class Logged:
    """An actor system of its own over a pool whose connections note every statement they send."""

    def __init__(self, pool: asyncpg.Pool, statements: list[str]) -> None:
        self.pool = pool
        self.statements = statements
        self.system = ActorSystem(pool, clock=SystemClock())


@pytest.fixture
async def logged(board: Board, database_url: str) -> AsyncIterator[Logged]:
    """Over the app's own database (the `client` fixture's app is made on `database_url`)."""
    statements: list[str] = []

    def note(record: Any) -> None:
        statements.append(record.query)

    async def on_checkout(conn: asyncpg.Connection) -> None:
        conn.add_query_logger(note)  # a set: added once per connection

    pool = await create_pool(database_url, min_size=1, max_size=2, setup=on_checkout)
    logged = Logged(pool, statements)
    logged.system.start()
    try:
        yield logged
    finally:
        await logged.system.stop()
        await pool.close()


def caller_of(board: Board, idempotency: str | None = None) -> Caller:
    org = board.org
    return Caller(request_id="rid_onestatement", organization=Organization(org.id, org.slug, org.slug, "enterprise"),
                  user_id=org.owner_id, user_email=org.owner_email, role=Role.OWNER,
                  credential=CredentialKind.SESSION, credential_id="ses_onestatement", idempotency=idempotency)


async def set_number(logged: Logged, board: Board, item_id: str, column_id: str, value: float,
                     idempotency: str | None = None) -> Any:
    data = item_spec.SetValueInput(itemId=item_id, columnId=column_id, value=value)
    command = Command(item_spec.SET_VALUE.name, caller_of(board, idempotency), data, datetime.now(UTC))
    return await logged.system.ask(BoardActor, board.id, board.org.id, command)


async def an_item_and_its_number_column(board: Board) -> tuple[str, str]:
    made = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Count", "type": "number"})
    assert made.status == 200, made.body
    item = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "Press"})
    assert item.status == 200, item.body
    await board.api.client.app[NODE].actors.evict(BoardActor, board.id)  # the logged system takes the board
    return item.data["id"], made.data["id"]


async def board_events(board: Board) -> list[asyncpg.Record]:
    return await pool_of(board.org).fetch("SELECT seq, name FROM events WHERE stream = $1 ORDER BY seq",
                                          f"board:{board.id}")


async def test_a_value_set_is_one_statement_with_its_fence_its_trail_its_kept_reply_and_its_event(
        board: Board, logged: Logged) -> None:
    item_id, column_id = await an_item_and_its_number_column(board)
    # Activates the board here; the connection learns the statement's types (asyncpg asks once per connection).
    await set_number(logged, board, item_id, column_id, 1, idempotency="key-1")
    before = await board_events(board)
    logged.statements.clear()

    reply = await set_number(logged, board, item_id, column_id, 42, idempotency="key-42")

    # Before the turn, whether the call was answered already (a call made again under its key); then the turn.
    lookup, statement = logged.statements
    assert lookup.startswith("SELECT call_key, reply FROM actor_replies")
    assert "actor_fence(" in statement and "INSERT INTO items" in statement
    assert "INSERT INTO activity" in statement and "INSERT INTO actor_replies" in statement
    assert "INSERT INTO events" in statement and "BEGIN" not in statement
    pool = pool_of(board.org)
    assert await pool.fetchval("""SELECT "values"->$2 FROM items WHERE id = $1""", item_id, column_id) == 42
    after = await board_events(board)
    assert [row["seq"] for row in after] == [*(row["seq"] for row in before), before[-1]["seq"] + 1]
    assert after[-1]["name"] == "item.updated"
    # The same call again is answered from the kept reply: nothing decided, nothing written.
    logged.statements.clear()
    assert await set_number(logged, board, item_id, column_id, 42, idempotency="key-42") == reply
    assert not any("INSERT" in statement for statement in logged.statements)
    assert await board_events(board) == after


async def test_a_turn_of_a_superseded_activation_writes_nothing(board: Board, logged: Logged) -> None:
    item_id, column_id = await an_item_and_its_number_column(board)
    await set_number(logged, board, item_id, column_id, 1)
    before = await board_events(board)
    trail = await pool_of(board.org).fetchval("SELECT count(*) FROM activity WHERE entity_id = $1", item_id)
    async with pool_of(board.org).acquire() as conn:
        await take_epoch(conn, BoardActor.key_for(board.id))  # a newer activation, elsewhere

    logged.statements.clear()
    with pytest.raises(ServiceUnavailable):
        await set_number(logged, board, item_id, column_id, 7)

    [statement] = logged.statements  # refused by the one statement's own fence, not by a transaction's
    assert "actor_fence(" in statement and "INSERT INTO items" in statement and "BEGIN" not in statement

    pool = pool_of(board.org)
    assert await pool.fetchval("""SELECT "values"->$2 FROM items WHERE id = $1""", item_id, column_id) == 1
    assert await board_events(board) == before
    assert await pool.fetchval("SELECT count(*) FROM activity WHERE entity_id = $1", item_id) == trail


async def test_concurrent_turns_of_two_actors_on_one_stream_number_it_without_gaps(
        board: Board, logged: Logged) -> None:
    """A KPI's values go to its own stream and to its board's, as the board's writes do: turns of both actors at
    once, each one statement, leave the board's stream numbered 1, 2, 3... with nothing twice."""
    kpi = await define(board)
    item_id, column_id = await an_item_and_its_number_column(board)
    await board.api.client.app[NODE].actors.evict(KpiActor, kpi["id"])

    def kpi_value(value: float) -> Any:
        data = kpi_spec.SetValueInput(kpiId=kpi["id"], value=value)
        command = kpi_commands.Command(kpi_spec.SET_VALUE.name, caller_of(board), data, datetime.now(UTC))
        return logged.system.ask(KpiActor, kpi["id"], board.org.id, command)

    await asyncio.gather(*(set_number(logged, board, item_id, column_id, n) for n in range(30)),
                         *(kpi_value(n) for n in range(30)))

    seqs = [row["seq"] for row in await board_events(board)]
    assert seqs == list(range(1, len(seqs) + 1))
    # A turn that commits in a transaction opens with the fence sent with its BEGIN (the events then go in a
    # statement of their own, so looking for BEGIN in the statements that append events would find none either way).
    assert not any(statement.startswith("BEGIN; SELECT actor_fence(") for statement in logged.statements), \
        "every write turn was one statement"
    assert sum("actor_fence(" in statement for statement in logged.statements) >= 2  # each actor's turns
    kpi_events = await pool_of(board.org).fetchval("SELECT count(*) FROM events WHERE stream = $1",
                                                   f"kpi:{kpi['id']}")
    assert kpi_events >= 30


async def test_a_turn_that_removes_rows_commits_in_a_transaction(board: Board, logged: Logged) -> None:
    """Rows removed may depend on what the turn wrote before: such a turn keeps BEGIN ... COMMIT."""
    item_id, column_id = await an_item_and_its_number_column(board)
    await set_number(logged, board, item_id, column_id, 1)
    logged.statements.clear()

    command = Command(board_spec.COLUMNS_DELETE.name, caller_of(board), board_spec.ColumnIdInput(id=column_id),
                      datetime.now(UTC))
    await logged.system.ask(BoardActor, board.id, board.org.id, command)

    assert logged.statements[0].startswith("BEGIN; SELECT actor_fence(")
    assert logged.statements[-1] == "COMMIT"
    assert not await pool_of(board.org).fetchval("SELECT count(*) FROM board_columns WHERE id = $1", column_id)


async def waiting_on_a_lock(conn: asyncpg.Connection, query: str) -> None:
    """Return once a backend running a statement that contains `query` waits for a lock (polled, bounded)."""
    for _ in range(500):
        if await conn.fetchval("""SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
                                  AND strpos(query, $1) > 0 AND pid <> pg_backend_pid()""", query):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"no statement with {query!r} ever waited for a lock")


async def test_a_newer_activation_waits_for_the_turn_in_flight_and_loads_what_it_wrote(
        board: Board, logged: Logged) -> None:
    """The one statement's epoch check locks the epoch row until the statement commits, as BEGIN ... COMMIT did: a
    newer activation's take_epoch waits for it, then reads the value the turn was answered for."""
    item_id, column_id = await an_item_and_its_number_column(board)
    await set_number(logged, board, item_id, column_id, 1)
    pool = pool_of(board.org)
    async with pool.acquire() as holder, pool.acquire() as newer, pool.acquire() as watcher:
        # The item's row held elsewhere: the turn's statement takes the epoch lock, then waits at its upsert.
        blocker = holder.transaction()
        await blocker.start()
        await holder.execute("SELECT 1 FROM items WHERE id = $1 FOR UPDATE", item_id)
        turn = asyncio.ensure_future(set_number(logged, board, item_id, column_id, 5))
        await waiting_on_a_lock(watcher, "INSERT INTO items")
        activation = newer.transaction()
        await activation.start()
        epoch = asyncio.ensure_future(take_epoch(newer, BoardActor.key_for(board.id)))
        await waiting_on_a_lock(watcher, "INSERT INTO actor_epochs")
        await blocker.rollback()

        await turn  # answered: its epoch was still the current one when it committed
        await epoch
        assert await newer.fetchval("""SELECT "values"->$2 FROM items WHERE id = $1""", item_id, column_id) == 5
        await activation.commit()
