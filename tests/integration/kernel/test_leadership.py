"""Leader locks for periodic workers (actors/kernel/leadership.py), against the real PostgreSQL: of two nodes
one leads a worker and the other follows; when the leader's session dies (as when its process is killed) the
other takes over at its next ask; a node that stops hands its locks over."""

from __future__ import annotations

import asyncio
import functools
import secrets

import asyncpg
import pytest

from actors.kernel.leadership import NAMESPACE, Leadership

HOLDER = """SELECT pid FROM pg_locks
             WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database
                                                                      WHERE datname = current_database())
               AND classid = $1 AND objsubid = 2 AND objid = ((hashtext($2)::bigint & 4294967295)::text)::oid"""


async def test_one_node_leads_and_the_other_takes_over_when_it_dies(database_url: str, pool: asyncpg.Pool) -> None:
    name = f"test-sweeper-{secrets.token_hex(4)}"
    first = Leadership(functools.partial(asyncpg.connect, database_url))
    second = Leadership(functools.partial(asyncpg.connect, database_url))
    try:
        assert await first.leads(name)
        assert not await second.leads(name)
        assert await first.leads(name)  # kept from step to step

        holder = await pool.fetchval(HOLDER, NAMESPACE, name)
        assert holder is not None
        # The leader's process died (waits until its session has ended).
        assert await pool.fetchval("SELECT pg_terminate_backend($1, 5000)", holder)

        assert await second.leads(name)
        assert not await first.leads(name)  # its session is gone: it gives up, and finds the lock taken
        assert not await first.leads(name)

        await second.close()  # stopping: the lock is handed over
        assert await first.leads(name)
    finally:
        await first.close()
        await second.close()


async def test_a_worker_stopped_while_connecting_leaves_the_handshake_to_finish_and_close_closes_it(
        database_url: str) -> None:
    """asyncpg interrupted in the middle of its handshake leaves an error behind that asyncio prints at exit
    (after `obeya demo`'s last line): the attempt is never cancelled, and `close` closes what it opened."""
    asking, release = asyncio.Event(), asyncio.Event()
    opened: list[asyncpg.Connection] = []

    async def connect() -> asyncpg.Connection:
        asking.set()
        await release.wait()
        conn = await asyncpg.connect(database_url)
        opened.append(conn)
        return conn

    leadership = Leadership(connect)
    worker = asyncio.ensure_future(leadership.leads(f"test-sweeper-{secrets.token_hex(4)}"))
    await asking.wait()
    worker.cancel()
    with pytest.raises(asyncio.CancelledError):
        await worker
    release.set()
    await leadership.close()
    assert len(opened) == 1 and opened[0].is_closed()
