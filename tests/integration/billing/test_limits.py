"""Every plan limit where it bites after a downgrade (nothing is deleted, a create over the
new limit is 403 naming it): boards, KPIs, items per board, seats on invitation acceptance and for
`obeya user create`; and each gated feature through the procedures it gates, on every plan. (Automations per
board after a downgrade: tests/integration/billing/test_billing.py.)"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import msgspec
import pytest

from actors.kernel import sealing
from actors.tenancy.billing import check_seat_to_join
from actors.tenancy.billing_callbacks import callback_secret, sign
from actors.tenancy.organizations import _seat_check
from protocol.caller import Caller, Organization
from protocol.errors import Forbidden
from protocol.ids import Prefix, new_id
from storage import accounts as account_repo
from storage import organizations as organization_repo
from tests.harness import PASSWORD, Org, make_org
from tests.integration.billing.test_billing import TABLE, csrf_of, open_page, post_callback, submit, subscription
from tests.integration.boards.conftest import make_board, make_project
from tests.integration.credentials.helpers import create_key
from tests.integration.kpis.conftest import define, kpi_input
from web.keys import NODE


async def downgrade_to_free(org: Org, clock: Any = None) -> None:
    """The processor's `customer.subscription.deleted`, signed with the callback secret: the organization is free
    (with `clock`, in a new rate-limit minute: the free plan's 60 requests)."""
    node = org.anonymous.client.server.app[NODE]
    sub = await subscription(org)
    payload = msgspec.json.encode({"id": new_id(Prefix.EVENT), "type": "customer.subscription.deleted", "data": {
        "object": {"id": sub["id"], "object": "subscription", "metadata": {"organizationId": org.id}}}})
    status, body = await post_callback(org, payload, sign(payload, await callback_secret(node), node.clock.now()))
    assert (status, body["applied"]) == (200, True), body
    if clock is not None:
        clock.advance(61)
    assert (await subscription(org))["plan"] == "free"


async def test_boards_over_the_new_limit_stay_and_a_new_one_is_refused(client: Any) -> None:
    org = await make_org(client, plan="business")
    boards = [await make_board(org) for _ in range(4)]
    await downgrade_to_free(org)
    for board in boards:
        assert (await org.owner.query("boards.get", {"id": board.id})).status == 200
    refused = await org.owner.mutate("boards.create", {"projectId": await make_project(org), "name": "Fifth"})
    assert refused.status == 403, refused.body
    assert refused.error["message"] == "the free plan allows 3 boards; this organization has 4"


async def test_kpis_are_kept_and_closed_to_a_plan_without_them(client: Any) -> None:
    org = await make_org(client, plan="business")
    board = await make_board(org)
    kpi = await define(board)
    await downgrade_to_free(org)
    refused = await org.owner.mutate("kpis.define", kpi_input(board.id, name="Scrap rate"))
    assert refused.status == 403 and refused.error["message"] == "the free plan does not include kpis"
    async with client.server.app[NODE].pool.acquire() as conn:
        kept = await conn.fetchval("SELECT count(*) FROM kpis WHERE organization_id = $1 AND id = $2", org.id,
                                   kpi["id"])
    assert kept == 1


async def test_items_over_the_new_limit_stay_and_creates_and_restores_are_refused(clocked_client: Any,
                                                                                 clock: Any) -> None:
    org = await make_org(clocked_client, plan="business")
    board = await make_board(org)
    items = [await board.add_item(f"Item {index}") for index in range(101)]
    gate = await subscription(org)
    assert gate["features"]["maxItemsPerBoard"] is None
    await downgrade_to_free(org, clock)
    assert (await subscription(org))["features"]["maxItemsPerBoard"] == 100

    listed = await org.owner.query("items.list", {"boardId": board.id, "limit": 200})
    assert listed.status == 200 and len(listed.data["items"]) == 101
    refused = await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "New"})
    assert refused.status == 403 and refused.error["message"] == "the free plan includes 100 items per board"
    wrong = await org.owner.mutate("items.create", {"boardId": board.id, "groupId": "grp_none", "name": "New"})
    assert wrong.status == 404 and wrong.error["data"]["details"][0]["field"] == "groupId"  # told what is wrong
    for item in items[:2]:
        assert (await org.owner.mutate("items.delete", {"id": item["id"]})).status == 200
    assert (await org.owner.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                    "name": "The 100th"})).status == 200
    restored = await org.owner.mutate("items.restore", {"id": items[0]["id"]})
    assert restored.status == 403 and "100 items per board" in restored.error["message"]
    assert (await org.owner.mutate("items.delete", {"id": items[2]["id"]})).status == 200
    assert (await org.owner.mutate("items.restore", {"id": items[0]["id"]})).status == 200


async def invitation_token(org: Org, email: str) -> str:
    reply = await org.owner.mutate("organizations.members.invite", {"email": email, "role": "member"})
    assert reply.status == 200, reply.body
    pool = org.anonymous.client.server.app[NODE].pool
    sealed = await pool.fetchval("SELECT sealed_body FROM emails WHERE recipient = $1", email)
    found = re.search(r"Invitation token: (\S+)", await sealing.open_sealed(pool, sealed, None))
    assert found is not None
    return found.group(1)


async def set_seats(org: Org, seats: int) -> None:
    reply = await org.owner.mutate("billing.createPortalSession", {"returnUrl": "https://app.example/settings"})
    url = reply.data["portalUrl"]
    _, text = await open_page(org, url)
    assert (await submit(org, url, {"csrf": csrf_of(text), "action": "seats", "seats": str(seats)}))[0] == 303


async def test_an_invitation_sent_before_a_downgrade_cannot_pass_the_seats(client: Any) -> None:
    org = await make_org(client, plan="starter")
    first, second = f"first@{org.slug}.test", f"second@{org.slug}.test"
    tokens = [await invitation_token(org, email) for email in (first, second)]
    await set_seats(org, 2)  # the owner and one more: the two invitations were sent before

    async def accept(token: str, name: str) -> Any:
        return await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token, "name": name, "password": PASSWORD})

    assert (await accept(tokens[0], "First")).status == 200
    refused = await accept(tokens[1], "Second")
    assert refused.status == 403, refused.body
    assert refused.body["error"]["message"] == "the starter plan includes 2 seats, all in use"
    pool = org.anonymous.client.server.app[NODE].pool
    assert await pool.fetchval("SELECT status FROM invitations WHERE organization_id = $1 AND email = $2",
                               org.id, second) == "pending"  # kept: it can be accepted once a seat is free
    assert await pool.fetchval("SELECT count(*) FROM users WHERE email = $1", second) == 0
    await set_seats(org, 3)
    assert (await accept(tokens[1], "Second")).status == 200
    assert (await subscription(org))["seats"] == {"included": 3, "used": 3, "available": 0}


# The procedures each feature key gates (grep `feature=` in protocol/): what a plan without it is refused.
GATED = {"kpis": ("kpis.list", True), "automations": ("automations.list", True), "webhooks": ("webhooks.list", False)}


@pytest.mark.parametrize("plan", list(TABLE))
async def test_every_gated_feature_through_the_procedures_it_gates(client: Any, plan: str) -> None:
    org = await make_org(client, plan=plan)
    board = await make_board(org)
    for feature, (procedure, on_board) in GATED.items():
        reply = await org.owner.query(procedure, {"boardId": board.id} if on_board else None)
        allowed = TABLE[plan][feature][0]
        assert reply.status == (200 if allowed else 403), (feature, reply.body)
        if not allowed:
            assert reply.error["message"] == f"the {plan} plan does not include {feature}"
    key, _ = await create_key(org.owner)
    me = await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")
    assert me.status == (200 if TABLE[plan]["api_access"][0] else 403), me.body


async def _one_after_the_other(pool: Any, take: Callable[[Any], Awaitable[None]],
                               check: Callable[[Any], Awaitable[None]]) -> Any:
    """`take` a seat in a transaction left open while a second transaction `check`s for one; the first commits
    once the second has either finished or is waiting for it. The second's outcome (its task)."""
    async with pool.acquire() as first, pool.acquire() as second:
        async with first.transaction():
            await take(first)

            async def checking() -> None:
                async with second.transaction():
                    await check(second)

            task = asyncio.create_task(checking())
            pid = second.get_server_pid()
            while not task.done() and not await pool.fetchval(
                    "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid):
                await asyncio.sleep(0.01)
        await asyncio.wait([task])
        return task


async def test_two_members_joining_at_once_cannot_both_take_the_last_seat(client: Any) -> None:
    org = await make_org(client, plan="free")
    await org.add_user()  # the owner and one: one seat of three left
    node = client.server.app[NODE]

    async def join(conn: Any) -> None:
        await check_seat_to_join(conn, org.id)
        user_id = new_id(Prefix.USER)
        await account_repo.insert_user(conn, user_id, f"{user_id}@{org.slug}.test", "Joining", "x")
        await account_repo.insert_membership(conn, org.id, user_id, "member")

    second = await _one_after_the_other(node.pool, join, lambda conn: check_seat_to_join(conn, org.id))
    assert isinstance(second.exception(), Forbidden), second.exception()
    assert second.exception().message == "the free plan includes 3 seats, all in use"


async def test_two_invitations_at_once_cannot_both_take_the_last_seat(client: Any) -> None:
    org = await make_org(client, plan="free")
    await org.add_user()
    node = client.server.app[NODE]
    caller = Caller(request_id="", organization=Organization(org.id, org.slug, org.slug, "free"),
                    user_id=org.owner_id)

    async def invite(conn: Any) -> None:
        await _seat_check(conn, caller, node)
        await organization_repo.replace_invitation(conn, new_id(Prefix.INVITATION), org.id, f"new@{org.slug}.test",
                                                   "member", [], new_id(Prefix.PERSONAL_TOKEN), org.owner_id,
                                                   node.clock.now() + timedelta(days=7))

    second = await _one_after_the_other(node.pool, invite, lambda conn: _seat_check(conn, caller, node))
    assert isinstance(second.exception(), Forbidden), second.exception()
