"""Caches across nodes (separate processes on one database and one Redis): a change made through one node is
seen on the other within a second, though each node caches verified keys for a minute and roles for seconds."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

import asyncpg

from actors.identity.accounts import create_organization, create_user
from actors.kernel.node import Node
from tests.cluster.harness import Cluster, ClusterNode
from tests.harness import PASSWORD, Api, Reply, login

DEADLINE_SECONDS = 1.0


async def _org(pool: asyncpg.Pool, node: ClusterNode) -> tuple[str, str, Api]:
    """A new organization on the business plan; (slug, host, its owner signed in on `node`)."""
    slug = f"org-{secrets.token_hex(5)}"
    await create_organization(Node(pool=pool, bcrypt_rounds=4), slug=slug, name=f"Org {slug}",
                              owner_email=f"owner@{slug}.test", owner_password=PASSWORD, plan="business")
    host = f"{slug}.localhost"
    return slug, host, await login(node.api(host), f"owner@{slug}.test")


async def _seen_within(ask: Callable[[], Awaitable[Reply]], status: int) -> float:
    """Ask until the answer has `status`; fails past the deadline. How long it took, in seconds."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        reply = await ask()
        if reply.status == status:
            return loop.time() - started
        assert loop.time() - started < DEADLINE_SECONDS, (reply.status, reply.body)
        await asyncio.sleep(0.02)


async def test_a_key_revoked_on_one_node_is_refused_on_the_other_within_a_second(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    a, b = await cluster.start(2)
    _, host, owner_a = await _org(pool, a)
    created = await owner_a.mutate("apiKeys.create", {"name": "screen"})
    assert created.status == 200, created.body
    key_on_b = b.api(host).with_bearer(created.data["key"])
    assert (await key_on_b.rest("GET", "/api/v1/auth/me")).status == 200  # verified and cached on B

    revoked = await owner_a.mutate("apiKeys.revoke", {"id": created.data["apiKey"]["id"]})
    assert revoked.status == 200, revoked.body
    await _seen_within(lambda: key_on_b.rest("GET", "/api/v1/auth/me"), 401)


async def test_a_role_changed_on_one_node_is_seen_on_the_other(cluster: Cluster, pool: asyncpg.Pool) -> None:
    a, b = await cluster.start(2)
    slug, host, owner_a = await _org(pool, a)
    email = f"member@{slug}.test"
    user_id = await create_user(Node(pool=pool, bcrypt_rounds=4), org_slug=slug, email=email,
                                password=PASSWORD, name="Mia Member")
    member_b = await login(b.api(host), email)
    assert (await member_b.query("apiKeys.list")).status == 403  # a member: the role is cached on B

    promoted = await owner_a.mutate("organizations.members.updateRole", {"userId": user_id, "role": "admin"})
    assert promoted.status == 200, promoted.body
    await _seen_within(lambda: member_b.query("apiKeys.list"), 200)

    removed = await owner_a.mutate("organizations.members.remove", {"userId": user_id})
    assert removed.status == 200, removed.body
    gone = await _seen_within(lambda: member_b.query("apiKeys.list"), 403)
    assert gone < DEADLINE_SECONDS
