"""The trash sweeper: hourly, every board holding items past their 30 days in the trash is told to purge
them; every minute, cross-board moves cut between their two steps are completed. Both go through the
boards' actors, so memory and database stay one, and both are idempotent, so two nodes sweeping at once
change nothing twice."""

from __future__ import annotations

from datetime import timedelta

import structlog

from actors.board.actor import BoardActor
from actors.board.commands import Command
from actors.board.item_handlers import take_moved_item
from actors.board.items import TRASH_DAYS
from actors.board.trash import PURGE_TRASH
from actors.kernel.leadership import leads
from actors.kernel.node import Node
from actors.kernel.supervisor import rest
from protocol.caller import Caller, Organization
from protocol.errors import ApiError, NotFound
from storage import boards as board_repo

log = structlog.get_logger("obeya.trash")

# Trash older than 30 days may wait up to this long past its day before it goes.
SWEEP_SECONDS = 3600.0
# A move still untaken this long after its source committed is one whose second step was lost.
STALLED_MOVE_SECONDS = 60.0


async def purge_expired_trash(node: Node) -> int:
    """Purge every expired trashed item now; return how many items left for good."""
    now = node.clock.now()
    purged = 0
    for row in await board_repo.boards_with_expired_trash(node.pool, now - timedelta(days=TRASH_DAYS)):
        system = Caller(request_id="trash-sweeper", organization=Organization(row["organization_id"], "", "", ""))
        try:
            reply = await node.actors.ask(BoardActor, row["id"], row["organization_id"],
                                         Command(PURGE_TRASH, system, None, now))
            purged += reply["purged"]
        except ApiError as error:  # one board's failure must not stop the sweep; the next sweep retries
            log.warning("trash_purge_failed", board=row["id"], error=error.message)
    return purged


async def complete_stalled_moves(node: Node) -> int:
    """Finish every cross-board move whose source committed the item leaving a while ago but whose target
    never took it (the node stopped between the two steps); return how many were completed. A move whose
    target board was deleted meanwhile brings the item back to its own board."""
    done = 0
    before = node.clock.now() - timedelta(seconds=STALLED_MOVE_SECONDS)
    for row in await board_repo.stalled_moves(node.pool, before):
        org_id, item_id, source, target = row["organization_id"], row["id"], row["board_id"], row["moving_to"]
        system = Caller(request_id="move-sweeper", organization=Organization(org_id, "", "", ""))
        try:
            try:
                await take_moved_item(node, system, source, target, item_id)
            except NotFound:
                if await board_repo.board_exists(node.pool, org_id, target):
                    raise
                await board_repo.return_move(node.pool, org_id, item_id, target)
                await take_moved_item(node, system, target, source, item_id)
            done += 1
        except ApiError as error:  # the next sweep retries
            log.warning("move_completion_failed", item=item_id, error=error.message)
    return done


async def sweep_trash_forever(node: Node) -> None:
    """A worker (node.workers): cut moves are completed every `STALLED_MOVE_SECONDS`, expired trash is purged
    every `SWEEP_SECONDS`. A failed sweep is logged by the supervisor and tried again after its backoff."""
    purged_at: float | None = None
    while True:
        if await leads(node.leadership, "trash-sweeper"):  # one node of the cluster sweeps
            await complete_stalled_moves(node)
            if purged_at is None or node.clock.monotonic() - purged_at >= SWEEP_SECONDS:
                purged = await purge_expired_trash(node)
                if purged:
                    log.info("trash_purged", items=purged)
                purged_at = node.clock.monotonic()
        await rest(node.clock, STALLED_MOVE_SECONDS)
