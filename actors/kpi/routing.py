"""From a procedure call to the KPI actor that owns its KPI: find the KPI's board, check the caller may see
it (a KPI on a board the caller may not see is not found), and ask the actor."""

from __future__ import annotations

from typing import Any

from actors.kernel.access import sees_board
from actors.kernel.membership_cache import org_members
from actors.kernel.node import Node
from actors.kpi.actor import KpiActor
from actors.kpi.commands import Command
from protocol.caller import Caller
from protocol.errors import NotFound
from storage import kpis as repo


async def kpi_board(node: Node, caller: Caller, kpi_id: str) -> str:
    """The board of a KPI the caller may see; NotFound otherwise (also for another organization's KPI).

    Read from the database on every call: a KPI also goes when its board, project or workspace is deleted, which
    its actor does not hear of, and a read answered from the actor's memory would not notice. Writes use
    `writable_kpi_board`."""
    board_id = await repo.board_of(node.pool, caller.org_id, kpi_id)
    if board_id is None:
        raise NotFound("KPI not found")
    return await _visible(node, caller, kpi_id, board_id)


async def writable_kpi_board(node: Node, caller: Caller, kpi_id: str) -> str:
    """`kpi_board` for a change of the KPI, from the node's row -> board cache once the KPI was seen on this node
    (a KPI never moves to another board, and ids are not reused).

    A KPI gone with its board is still refused at once, on every node: every change of a KPI taken this way writes
    a row that refers to the KPI or its board, so the turn's statement fails its foreign key (404) and the actor
    reloads. `kpis.update` may change nothing and write nothing: it checks with `kpi_board`."""
    board_id = node.board_locations.get(kpi_id)
    if board_id is None:
        board_id = await repo.board_of(node.pool, caller.org_id, kpi_id)
        if board_id is None:
            raise NotFound("KPI not found")
        node.remember_board(kpi_id, board_id)
    return await _visible(node, caller, kpi_id, board_id)


async def _visible(node: Node, caller: Caller, kpi_id: str, board_id: str) -> str:
    # The access check is scoped by the caller's organization: another organization's KPI is not found here.
    if not await sees_board(node, caller, board_id):
        raise NotFound("KPI not found")
    return board_id


async def ask_kpi(node: Node, caller: Caller, kpi_id: str, procedure: str, data: Any, *,
                  with_members: bool = False, check_access: bool = True) -> Any:
    """A change of the KPI by its actor; unless `check_access` is off (the caller checked), the caller must see
    the KPI's board."""
    if check_access:
        await writable_kpi_board(node, caller, kpi_id)
    members = await org_members(node, caller.org_id) if with_members else frozenset()
    # Milliseconds, as every timestamp is shown: a `to` copied from a value's `recordedAt` then includes it.
    now = node.clock.now()
    command = Command(procedure, caller, data, now.replace(microsecond=now.microsecond // 1000 * 1000), members)
    return await node.actors.ask(KpiActor, kpi_id, caller.org_id, command)


async def read_kpi(node: Node, caller: Caller, kpi_id: str, procedure: str, data: Any) -> Any:
    """A pure read of a KPI (its query decider) from the actor's committed state, outside its mailbox, on the
    node that owns the KPI."""
    await kpi_board(node, caller, kpi_id)
    command = Command(procedure, caller, data, node.clock.now(), frozenset())
    return await node.actors.query(KpiActor, kpi_id, caller.org_id, command)
