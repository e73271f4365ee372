"""The event log: consecutive per-stream sequence numbers, also under concurrent appenders, and paging."""

from __future__ import annotations

import asyncio

import asyncpg

from protocol.ids import Prefix, new_id
from storage import events as event_log


async def test_append_assigns_consecutive_seq_per_stream_and_read_returns_the_rest(
        pool: asyncpg.Pool) -> None:
    org = new_id(Prefix.ORGANIZATION)
    board, kpi = f"board:{new_id(Prefix.BOARD)}", f"kpi:{new_id(Prefix.KPI)}"
    async with pool.acquire() as conn, conn.transaction():
        first = await event_log.append(conn, org, board,
                                       [("item.created", {"n": 1}), ("item.updated", {"n": 2})])
        other = await event_log.append(conn, org, kpi, [("kpi.value", {"v": 9})])
        more = await event_log.append(conn, org, board, [("item.moved", {"n": 3}), ("item.deleted", {"n": 4}),
                                                         ("group.created", {"n": 5})])

    assert [event.seq for event in first + more] == [1, 2, 3, 4, 5]
    assert [event.seq for event in other] == [1]
    assert all(event.id.startswith("evt_") for event in first + other + more)
    rest = await event_log.read(pool, org, board, since=2, limit=100)
    assert [(event.seq, event.name, event.payload) for event in rest] == [
        (3, "item.moved", {"n": 3}), (4, "item.deleted", {"n": 4}), (5, "group.created", {"n": 5})]
    assert [event.seq for event in await event_log.read(pool, org, board, since=0, limit=2)] == [1, 2]
    assert await event_log.read(pool, org, board, since=5) == []
    elsewhere = new_id(Prefix.ORGANIZATION)
    assert await event_log.read(pool, elsewhere, board) == [], "a stream is read within its organization"
    assert await event_log.last_seq(pool, org, board) == 5


async def test_one_append_to_several_streams_numbers_each_stream_and_keeps_the_order_given(
        pool: asyncpg.Pool) -> None:
    org = new_id(Prefix.ORGANIZATION)
    board, kpi = f"board:{new_id(Prefix.BOARD)}", f"kpi:{new_id(Prefix.KPI)}"
    async with pool.acquire() as conn, conn.transaction():
        await event_log.append(conn, org, kpi, [("kpi.defined", {"v": 0})])
        appended = await event_log.append_all(conn, [(org, kpi, "kpi.value", {"v": 1}),
                                                     (org, board, "kpi.value", {"v": 1}),
                                                     (org, kpi, "kpi.value", {"v": 2}),
                                                     (org, board, "kpi.value", {"v": 2})])

    assert [(event.stream, event.seq, event.payload) for event in appended] == [
        (kpi, 2, {"v": 1}), (board, 1, {"v": 1}), (kpi, 3, {"v": 2}), (board, 2, {"v": 2})]
    assert [event.seq for event in await event_log.read(pool, org, kpi)] == [1, 2, 3]


async def test_concurrent_appenders_get_disjoint_gap_free_ranges(pool: asyncpg.Pool) -> None:
    org, stream = new_id(Prefix.ORGANIZATION), f"board:{new_id(Prefix.BOARD)}"

    async def append_three(writer: int) -> list[int]:
        async with pool.acquire() as conn, conn.transaction():
            batch = [("e", {"w": writer, "i": i}) for i in range(3)]
            stored = await event_log.append(conn, org, stream, batch)
        return [event.seq for event in stored]

    ranges = await asyncio.gather(*(append_three(writer) for writer in range(6)))

    assert sorted(seq for seqs in ranges for seq in seqs) == list(range(1, 19))
    assert all(seqs == list(range(seqs[0], seqs[0] + 3)) for seqs in ranges)
    events = await event_log.read(pool, org, stream)
    assert [event.seq for event in events] == list(range(1, 19))


async def test_a_rolled_back_append_leaves_no_gap(pool: asyncpg.Pool) -> None:
    org, stream = new_id(Prefix.ORGANIZATION), f"board:{new_id(Prefix.BOARD)}"
    try:
        async with pool.acquire() as conn, conn.transaction():
            await event_log.append(conn, org, stream, [("lost", {})])
            raise RuntimeError("the change failed")
    except RuntimeError:
        pass
    async with pool.acquire() as conn, conn.transaction():
        kept = await event_log.append(conn, org, stream, [("kept", {})])

    assert [event.seq for event in kept] == [1]
