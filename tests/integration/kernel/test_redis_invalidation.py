"""Cache invalidations between two nodes over Redis (actors/kernel/redis_invalidation.py): what one node's
change drops from its caches is dropped from the other's within a second, and a node whose subscription is cut
takes it again and drops everything it cached meanwhile (it may have missed an invalidation)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable

import asyncpg
import pytest
import redis.asyncio as redis

from actors.kernel.credential_cache import VerifiedCredential
from actors.kernel.invalidation import CredentialRevoked, MembershipChanged, OrganizationChanged, RowsMoved
from actors.kernel.node import Node
from actors.kernel.redis_invalidation import RedisInvalidations
from actors.runtime.bus import AccessChange
from protocol.caller import Organization
from server.node_services import build_node

DEADLINE_SECONDS = 1.0


async def _within_deadline(condition: Callable[[], bool], seconds: float = DEADLINE_SECONDS) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "not seen within the deadline"
        await asyncio.sleep(0.01)


@pytest.fixture
async def nodes(pool: asyncpg.Pool, redis_url: str) -> AsyncIterator[tuple[Node, Node, RedisInvalidations]]:
    channel = f"obeya:invalidate:test:{secrets.token_hex(4)}"  # this test's nodes only
    a, b = build_node(pool), build_node(pool)
    on_a, on_b = RedisInvalidations(redis_url, a, channel=channel), RedisInvalidations(redis_url, b, channel=channel)
    await on_a.start()
    await on_b.start()
    try:
        yield a, b, on_b
    finally:
        await on_a.stop()
        await on_b.stop()


def _credential(credential_id: str) -> VerifiedCredential:
    return VerifiedCredential(credential_id, "api_key", "org_1", "usr_1", ("read",), None)


async def test_a_revoked_credential_and_a_changed_member_leave_the_other_node(
        nodes: tuple[Node, Node, RedisInvalidations]) -> None:
    a, b, _ = nodes
    seen: list[AccessChange] = []
    b.bus.watch_access(seen.append)
    b.credentials.put("digest-1", _credential("key_1"))
    b.roles.put(("org_1", "usr_2"), "admin")
    b.organizations.put("acme", Organization("org_1", "acme", "Acme", "business"))

    a.invalidate(CredentialRevoked("key_1"))
    a.invalidate(MembershipChanged("org_1", "usr_2"))
    a.invalidate(OrganizationChanged("ACME"))

    await _within_deadline(lambda: not b.organizations.peek("acme")[0])
    assert b.credentials.get("digest-1") is None
    assert b.roles.peek(("org_1", "usr_2")) == (False, None)
    assert seen == [AccessChange(credential_id="key_1")]  # its sockets on B are checked again


async def test_a_lost_subscription_comes_back_and_forgets_what_may_be_stale(
        nodes: tuple[Node, Node, RedisInvalidations], redis_url: str) -> None:
    a, b, on_b = nodes
    b.credentials.put("digest-2", _credential("key_2"))
    b.roles.put(("org_1", "usr_3"), "member")
    admin = redis.from_url(redis_url)
    try:
        for client in await admin.client_list():
            if client.get("name") == f"obeya-invalidation-{on_b.origin}":
                await admin.client_kill_filter(_id=client["id"])
    finally:
        await admin.aclose()

    await _within_deadline(lambda: on_b.subscription.resubscribed >= 1, seconds=5.0)
    assert b.credentials.get("digest-2") is None  # whatever was published while away may have been missed
    assert b.roles.peek(("org_1", "usr_3")) == (False, None)

    b.credentials.put("digest-3", _credential("key_3"))  # and invalidations arrive again
    a.invalidate(CredentialRevoked("key_3"))
    await _within_deadline(lambda: b.credentials.get("digest-3") is None)


async def test_a_moved_item_is_no_longer_routed_to_its_old_board_on_the_other_node(
        nodes: tuple[Node, Node, RedisInvalidations]) -> None:
    a, b, _ = nodes
    b.remember_board("itm_moved", "brd_source")
    b.remember_board("itm_stays", "brd_source")

    a.invalidate(RowsMoved(("itm_moved",)))

    await _within_deadline(lambda: "itm_moved" not in b.board_locations)
    assert b.board_locations == {"itm_stays": "brd_source"}
