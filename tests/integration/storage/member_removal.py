"""A race every credential a member holds in an organization must win: one made while that member is being
removed is not stored (else the removal's revocation would miss it and a return would revive it)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from actors.identity.accounts import create_organization
from protocol.ids import Prefix, new_id
from server.node_services import build_node
from tests.harness import PASSWORD


async def made_while_removed(pool: asyncpg.Pool, make: Callable[[str, str, str], Awaitable[Any]], table: str) -> None:
    """`make(org_id, owner_id, member_id)` runs while a transaction removing the member holds its lock, and must
    answer None and leave no row of the member in `table`."""
    node = build_node(pool)
    slug = f"org-{secrets.token_hex(5)}"
    org_id, owner_id = await create_organization(node, slug=slug, name="Race", owner_email=f"o@{slug}.test",
                                                 owner_password=PASSWORD, plan="business")
    member_id = new_id(Prefix.USER)
    await pool.execute("INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, 'M', 'x')",
                       member_id, f"m@{slug}.test")
    await pool.execute("INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'admin')",
                       org_id, member_id)
    async with pool.acquire() as removing:
        async with removing.transaction():  # organizations.members.remove in flight
            await removing.execute("DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2",
                                   org_id, member_id)
            making = asyncio.create_task(make(org_id, owner_id, member_id))
            async with pool.acquire() as watcher:
                while not making.done() and not await watcher.fetchval(
                        f"""SELECT coalesce(bool_or(cardinality(pg_blocking_pids(pid)) > 0), false)
                              FROM pg_stat_activity
                             WHERE datname = current_database() AND query LIKE '%INSERT INTO {table}%'"""):
                    await asyncio.sleep(0.01)  # until the insert waits on the removal (or, unguarded, is done)
        assert await making is None
    assert await pool.fetchval(f"SELECT count(*) FROM {table} WHERE user_id = $1", member_id) == 0
