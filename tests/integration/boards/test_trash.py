"""Items in the trash come back within 30 days and leave for good after, through the board actor."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from actors.board.trash_sweeper import purge_expired_trash
from actors.kernel.supervisor import FIRST_BACKOFF_SECONDS
from storage import boards as board_repo
from tests.harness import login, make_org
from tests.integration.boards.conftest import make_board
from web.keys import NODE

DAY = 86400.0


async def test_trash_is_purged_after_thirty_days(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    board = await make_board(org)
    kept, purged = await board.add_item("Restorable"), await board.add_item("Forgotten")
    await board.api.mutate("items.delete", {"id": kept["id"]})
    await board.api.mutate("items.delete", {"id": purged["id"]})
    node = clocked_client.server.app[NODE]

    async def still_stored() -> set[str]:
        rows = await node.pool.fetch("SELECT id FROM items WHERE board_id = $1", board.id)
        return {row["id"] for row in rows}

    clock.advance(29 * DAY)
    await purge_expired_trash(node)
    assert await still_stored() == {kept["id"], purged["id"]}
    owner = await login(org.anonymous, org.owner_email)  # a fresh session: the first one ends on day 30
    assert (await owner.mutate("items.restore", {"id": kept["id"]})).status == 200

    clock.advance(2 * DAY)
    # The background sweeper, woken by the clock, may purge first; either way the item must be gone.
    await purge_expired_trash(node)
    assert await still_stored() == {kept["id"]}
    assert (await owner.mutate("items.restore", {"id": purged["id"]})).status == 404
    assert (await owner.query("items.get", {"id": kept["id"]})).status == 200
    event = await node.pool.fetchrow("SELECT payload FROM events WHERE stream = $1 AND name = 'item.deleted' "
                                    "ORDER BY seq DESC LIMIT 1", f"board:{board.id}")
    assert event["payload"]["data"]["permanent"] is True
    assert event["payload"]["data"]["item"]["id"] == purged["id"]


@pytest.mark.workers("trash-sweeper")
async def test_the_sweeper_survives_a_database_error_and_sweeps_after_its_backoff(
        clocked_client: Any, clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    board = await make_board(await make_org(clocked_client))
    item = await board.add_item("Forgotten")
    await board.api.mutate("items.delete", {"id": item["id"]})
    node = clocked_client.server.app[NODE]
    await node.workers.idle()  # its first sweep, at start, found nothing to purge

    real = board_repo.boards_with_expired_trash
    failures = [asyncpg.AdminShutdownError("terminating connection due to administrator command")]

    async def failing_once(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real(*args)

    monkeypatch.setattr(board_repo, "boards_with_expired_trash", failing_once)
    clock.advance(31 * DAY)  # past its hour, and past the item's 30 days
    await node.workers.idle()
    assert node.workers.restarts("trash-sweeper") == 1 and not failures
    assert await node.pool.fetchval("SELECT count(*) FROM items WHERE id = $1", item["id"]) == 1

    clock.advance(FIRST_BACKOFF_SECONDS)  # started again: it sweeps at once
    await node.workers.idle()
    assert await node.pool.fetchval("SELECT count(*) FROM items WHERE id = $1", item["id"]) == 0
