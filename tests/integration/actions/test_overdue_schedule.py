"""The overdue-action scheduler on clocks the test drives: the first escalation once an action is overdue, one
more level a day up the board's chain to level 3, nothing for finished actions, exactly once across two app
instances on one database, and one catch-up escalation after downtime."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import asyncpg
import pytest

from actors.actions.escalation import escalate_overdue
from actors.runtime.clock import ManualClock
from server.app import create_app
from server.node_services import build_node
from tests.harness import Org, make_org
from tests.integration.actions.conftest import board_events, create, get, notifications, settled, trail, update
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE

pytestmark = pytest.mark.workers("action-escalation")

START = datetime(2031, 3, 10, 12, 0, tzinfo=UTC)
DUE = "2031-03-10"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


async def lead_board(org: Org, lead: Any) -> Board:
    """A board made by a member (its lead) in the owner's open workspace."""
    workspace = await org.owner.mutate("workspaces.create", {"name": "Plant"})
    project = await lead.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "Press shop"})
    made = await lead.mutate("boards.create", {"projectId": project.data["id"], "name": "Presses tier 1"})
    assert made.status == 200, made.body
    return Board(org, made.data["id"], project.data["id"], made.data)


async def test_overdue_actions_climb_one_level_a_day_up_the_boards_chain(org: Org, pool: asyncpg.Pool) -> None:
    lead_id, lead = await org.add_user("member", name="Lena Lead")
    admin_id, admin = await org.add_user("admin", name="Max Manager")
    worker_id, _ = await org.add_user("member")
    board = await lead_board(org, lead)
    action = await create(board, assigneeId=worker_id, dueDate=DUE)
    lead_owns = await create(board, title="Lead's own", assigneeId=lead_id, dueDate=DUE)
    finished = await create(board, title="Finished", dueDate=DUE)
    await update(board, finished["id"], status="completed")
    # This scheduler runs on a clock of its own; the app's loop runs on the real clock, years before DUE.
    scheduler_clock = ManualClock(START)
    scheduler = build_node(pool, clock=scheduler_clock)

    async def level_after(seconds: float) -> int:
        scheduler_clock.advance(seconds)
        await escalate_overdue(scheduler)
        return int((await get(board, action["id"]))["escalationLevel"])

    assert await level_after(0) == 0  # due today: not overdue yet
    assert await level_after(timedelta(hours=12, minutes=5).total_seconds()) == 1  # first check of the next day
    assert await level_after(0) == 1
    assert await level_after(timedelta(hours=23).total_seconds()) == 1
    assert await level_after(timedelta(hours=1).total_seconds()) == 2
    assert await level_after(timedelta(days=1).total_seconds()) == 3
    assert await level_after(timedelta(days=1).total_seconds()) == 3  # tier 3 is as high as it goes by itself

    history = (await get(board, action["id"]))["escalations"]
    assert [(h["toLevel"], h["escalatedTo"]["id"], h["automatic"]) for h in reversed(history)] == [
        (1, lead_id, True), (2, admin_id, True), (3, org.owner_id, True)]
    assert history[-1]["reason"] == "overdue since 2031-03-10 (1 day past due)"
    assert history[0]["reason"] == "overdue since 2031-03-10 (3 days past due)"
    # The board's lead is its own action's assignee: its first level goes to the next one up.
    assert (await get(board, lead_owns["id"]))["escalations"][-1]["escalatedTo"]["id"] == admin_id
    assert (await get(board, finished["id"]))["escalationLevel"] == 0

    mine = [e for e in await board_events(board) if e["event"] == "action.escalated"
            and e["data"]["action"]["id"] == action["id"]]
    assert [e["data"]["toLevel"] for e in mine] == [1, 2, 3]
    assert mine[0]["data"]["automatic"] is True and mine[0]["data"]["actor"] is None
    assert mine[0]["data"]["reason"] == "overdue since 2031-03-10 (1 day past due)"
    assert [n["entityId"] for n in await notifications(lead, "action_escalated")] == [action["id"]]
    assert {n["entityId"] for n in await notifications(admin, "action_escalated")} == {action["id"], lead_owns["id"]}
    assert (await trail(board, action["id"])).count("action.escalated") == 3


async def test_two_instances_escalate_each_action_once(clocked_client: Any, aiohttp_client: Any, database_url: str,
                                                       settings: Any, clock: ManualClock) -> None:
    second = await aiohttp_client(create_app(settings, database_url, clock=clock),
                                  cookie_jar=aiohttp.DummyCookieJar())
    board = await make_board(await make_org(clocked_client))
    actions = [await create(board, title=f"Late {n}", dueDate=DUE) for n in range(30)]

    clock.advance(timedelta(days=1).total_seconds())  # both instances' schedulers wake at once
    await asyncio.gather(escalate_overdue(clocked_client.server.app[NODE]), escalate_overdue(second.server.app[NODE]),
                         clocked_client.server.app[NODE].workers.idle(), second.server.app[NODE].workers.idle())
    for action in actions:
        assert (await get(board, action["id"]))["escalationLevel"] == 1
    escalated = [e["data"]["action"]["id"] for e in await board_events(board) if e["event"] == "action.escalated"]
    assert sorted(escalated) == sorted(a["id"] for a in actions)
    for action in actions:
        assert len((await get(board, action["id"]))["escalations"]) == 1


async def test_after_downtime_an_overdue_action_is_escalated_once_then_daily(clocked_client: Any,
                                                                              clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    action = await create(board, dueDate=DUE)

    clock.advance(timedelta(days=5).total_seconds())  # no check ran for five days
    caught_up = await settled(board, action["id"])
    assert caught_up["escalationLevel"] == 1 and caught_up["isOverdue"] is True
    assert caught_up["escalations"][0]["reason"] == "overdue since 2031-03-10 (5 days past due)"
    assert caught_up["escalatedTo"]["id"] == board.org.owner_id

    clock.advance(timedelta(hours=23).total_seconds())
    assert (await settled(board, action["id"]))["escalationLevel"] == 1
    clock.advance(timedelta(hours=1).total_seconds())
    assert (await settled(board, action["id"]))["escalationLevel"] == 2
