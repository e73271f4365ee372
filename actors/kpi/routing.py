"""From a procedure call to the KPI actor that owns its KPI: find the KPI's board, check the caller may see
it (a KPI on a board the caller may not see is not found), and ask the actor."""

from __future__ import annotations

from typing import Any

from actors.kernel.access import require_board_access
from actors.kernel.membership_cache import org_members
from actors.kernel.node import Node
from actors.kpi.actor import KpiActor
from actors.kpi.commands import Command
from protocol.caller import Caller
from protocol.errors import NotFound, ServiceUnavailable
from storage import kpis as repo


async def kpi_board(node: Node, caller: Caller, kpi_id: str) -> str:
    """The board of a KPI the caller may see; NotFound otherwise (also for another organization's KPI).

    Read on every call, not cached: a KPI also goes when its board, project or workspace is deleted, which
    its actor does not hear of; the lookup is one primary-key read."""
    board_id = await repo.board_of(node.pool, caller.org_id, kpi_id)
    if board_id is None:
        raise NotFound("KPI not found")
    try:
        await require_board_access(node, caller, board_id)
    except NotFound:
        raise NotFound("KPI not found") from None
    return board_id


async def ask_kpi(node: Node, caller: Caller, kpi_id: str, procedure: str, data: Any, *,
                  with_members: bool = False, check_access: bool = True) -> Any:
    if check_access:
        await kpi_board(node, caller, kpi_id)
    if node.actors is None:
        raise ServiceUnavailable("the actor system is not running")
    members = await org_members(node, caller.org_id) if with_members else frozenset()
    # Milliseconds, as every timestamp is shown: a `to` copied from a value's `recordedAt` then includes it.
    now = node.clock.now()
    command = Command(procedure, caller, data, now.replace(microsecond=now.microsecond // 1000 * 1000), members)
    return await node.actors.ask(KpiActor, kpi_id, caller.org_id, command)


async def read_kpi(node: Node, caller: Caller, kpi_id: str, procedure: str, data: Any) -> Any:
    """A pure read of a KPI (its query decider) from the actor's committed state, outside its mailbox, on the
    node that owns the KPI."""
    await kpi_board(node, caller, kpi_id)
    if node.actors is None:
        raise ServiceUnavailable("the actor system is not running")
    command = Command(procedure, caller, data, node.clock.now(), frozenset())
    return await node.actors.query(KpiActor, kpi_id, caller.org_id, command)
