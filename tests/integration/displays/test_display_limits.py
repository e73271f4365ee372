"""A display's rate limit is its own (DISPLAY_RATE_LIMIT a minute, whatever the plan): a person spending theirs
leaves the wall screen's whole, and the screen spending its own leaves everyone else's. Its last-seen time is
noted at most once a minute and written off the request's path. The server's clock is the test's, so no minute
turns over while a test counts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from actors.identity.last_used import flush
from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import make_org
from tests.integration.boards.conftest import make_board
from tests.integration.displays.conftest import create_display
from web.keys import NODE
from web.rate_limit import DISPLAY_RATE_LIMIT

PERSON_LIMIT = 60  # the free plan's, per credential


async def test_a_screen_spending_its_budget_spends_no_one_elses(clocked_client: Any) -> None:
    org = await make_org(clocked_client, plan="free")
    board = await make_board(org)
    wall, office = await create_display(board, "Wall"), await create_display(board, "Office")
    before = await org.owner.query("auth.me")
    assert before.headers["X-RateLimit-Limit"] == str(PERSON_LIMIT)

    replies = [await wall.api.query("displays.get", {"id": wall.id}) for _ in range(DISPLAY_RATE_LIMIT)]
    assert [reply.status for reply in replies] == [200] * DISPLAY_RATE_LIMIT
    assert replies[0].headers["X-RateLimit-Limit"] == str(DISPLAY_RATE_LIMIT)
    assert replies[-1].headers["X-RateLimit-Remaining"] == "0"
    over = await wall.api.query("boards.get", {"id": board.id})
    assert over.status == 429, over.body
    assert over.error["data"]["code"] == "TOO_MANY_REQUESTS" and "Retry-After" in over.headers

    after = await org.owner.query("auth.me")  # its creator's budget is one request less, its own
    assert after.status == 200, after.body
    assert int(after.headers["X-RateLimit-Remaining"]) == int(before.headers["X-RateLimit-Remaining"]) - 1
    other = await office.api.query("boards.get", {"id": board.id})  # another screen's bucket is its own too
    assert other.status == 200, other.body
    assert other.headers["X-RateLimit-Remaining"] == str(DISPLAY_RATE_LIMIT - 1)


async def test_a_person_spending_their_budget_leaves_the_screens(clocked_client: Any) -> None:
    org = await make_org(clocked_client, plan="free")
    board = await make_board(org)
    wall = await create_display(board)
    spent = [await org.owner.query("auth.me") for _ in range(PERSON_LIMIT)]
    assert spent[-1].status == 429, spent[-1].body  # gone (some of it went on making the board)

    seen = await wall.api.query("boards.get", {"id": board.id})

    assert seen.status == 200, seen.body
    assert seen.headers["X-RateLimit-Remaining"] == str(DISPLAY_RATE_LIMIT - 1)


async def test_last_seen_is_noted_once_a_minute_and_written_off_the_path(clocked_client: Any,
                                                                        clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org)
    display = await create_display(board)
    node = clocked_client.server.app[NODE]
    stored = "SELECT last_seen_at FROM displays WHERE id = $1"

    first_seen = clock.now()
    assert (await display.api.query("boards.get", {"id": board.id})).status == 200
    assert await node.pool.fetchval(stored, display.id) is None  # nothing written on the request's path
    shown = await org.owner.query("displays.get", {"id": display.id})
    assert shown.data["lastSeenAt"] == iso(first_seen)  # yet shown at once, from this node's memory
    await flush(node)
    assert await node.pool.fetchval(stored, display.id) == first_seen

    clock.advance(59)
    assert (await display.api.query("boards.get", {"id": board.id})).status == 200
    await flush(node)
    assert await node.pool.fetchval(stored, display.id) == first_seen  # within the minute: not noted again
    clock.advance(1)
    assert (await display.api.query("boards.get", {"id": board.id})).status == 200
    await flush(node)
    assert await node.pool.fetchval(stored, display.id) == first_seen + timedelta(seconds=60)
    listed = await org.owner.query("displays.list", {"boardId": board.id})
    assert listed.data["displays"][0]["lastSeenAt"] == iso(first_seen + timedelta(seconds=60))
