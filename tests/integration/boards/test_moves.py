"""A cross-board move is two messages: the source board commits the item leaving, the target board takes it
under its own numbering. Numbers never repeat on the target, the target's own writes are never failed by a
move, a move made twice at once lands once, and a move cut between its two steps is completed."""

from __future__ import annotations

import asyncio
from typing import Any

from actors.board.item_handlers import take_moved_item
from actors.board.items import MoveAcross, MoveTarget
from actors.board.routing import ask_board
from actors.board.trash_sweeper import STALLED_MOVE_SECONDS, complete_stalled_moves
from protocol import items as spec
from storage import automations as automations_repo
from storage import events as event_log
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE


async def numbers(board: Board) -> list[int]:
    node = board.org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    rows = await node.pool.fetch("SELECT number FROM items WHERE board_id = $1 ORDER BY number", board.id)
    return [row["number"] for row in rows]


async def move(board: Board, item_id: str, target: Board) -> Any:
    return await board.api.mutate("items.move", {"id": item_id, "groupId": target.group_id, "boardId": target.id})


async def test_a_moved_item_takes_the_next_numbers_of_the_target_board(org: Org, board: Board) -> None:
    target = await make_board(org)
    await target.add_item("There 1")
    await target.add_item("There 2")
    item = await board.add_item("Here 1")
    await board.add_item("Sub", parentId=item["id"])

    moved = await move(board, item["id"], target)
    assert moved.status == 200, moved.body
    assert moved.data["boardId"] == target.id and moved.data["number"] == 3
    later = await target.add_item("There 3")

    assert later["id"] != item["id"]
    assert await numbers(target) == [1, 2, 3, 4, 5]  # the item 3, its sub-item 4, the next item 5
    assert await numbers(board) == []


async def test_the_target_boards_own_writes_are_not_failed_during_a_move(org: Org, board: Board) -> None:
    target = await make_board(org)
    items = [(await board.add_item(f"Item {n}"))["id"] for n in range(5)]

    replies = await asyncio.gather(
        *(move(board, item_id, target) for item_id in items),
        *(target.api.mutate("items.create", {"boardId": target.id, "groupId": target.group_id, "name": f"New {n}"})
          for n in range(20)))

    assert [reply.status for reply in replies] == [200] * 25, [r.body for r in replies if r.status != 200]
    assert await numbers(target) == list(range(1, 26))


async def test_moving_one_item_twice_at_once_lands_it_once(org: Org, board: Board) -> None:
    target = await make_board(org)
    item = await board.add_item("Travel")

    first, second = await asyncio.gather(move(board, item["id"], target), move(board, item["id"], target))

    assert (first.status, second.status) == (200, 200), (first.body, second.body)
    assert first.data["number"] == second.data["number"] == 1
    listed = await target.api.query("items.list", {"boardId": target.id})
    assert [i["id"] for i in listed.data["items"]] == [item["id"]]
    assert await numbers(target) == [1]


async def test_a_move_cut_after_its_first_step_is_completed_by_the_sweeper(clocked_client: Any, clock: Any) -> None:
    org = await make_org(clocked_client)
    board, target = await make_board(org), await make_board(org)
    item = await board.add_item("Travel")
    comment = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "Coming along"})
    node = clocked_client.server.app[NODE]
    caller = await _caller(node, org)
    # Step 1 only, as if the node stopped before telling the target board.
    step_one = MoveAcross(id=item["id"], groupId=target.group_id, boardId=target.id,
                          target=MoveTarget(target.id, target.group_id, {}))
    await ask_board(node, caller, board.id, spec.MOVE.name, step_one)
    assert (await board.api.query("items.get", {"id": item["id"]})).status == 404
    assert await complete_stalled_moves(node) == 0  # too recent: a caller may still be completing it

    clock.advance(STALLED_MOVE_SECONDS + 1)
    assert await complete_stalled_moves(node) == 1

    got = await target.api.query("items.get", {"id": item["id"]})
    assert got.status == 200, got.body
    assert got.data["boardId"] == target.id and got.data["commentCount"] == 1
    comments = await target.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in comments.data["comments"]] == [comment.data["id"]]
    assert await complete_stalled_moves(node) == 0


async def test_an_item_whose_target_board_was_deleted_before_it_arrived_comes_back(clocked_client: Any,
                                                                                     clock: Any) -> None:
    org = await make_org(clocked_client)
    board, target = await make_board(org), await make_board(org)
    item = await board.add_item("Travel")
    sub = await board.add_item("Part", parentId=item["id"])
    comment = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "Still here"})
    node = clocked_client.server.app[NODE]
    step_one = MoveAcross(id=item["id"], groupId=target.group_id, boardId=target.id,
                          target=MoveTarget(target.id, target.group_id, {}))
    await ask_board(node, await _caller(node, org), board.id, spec.MOVE.name, step_one)
    deleted = await org.owner.mutate("boards.delete", {"id": target.id})
    assert deleted.status == 200, deleted.body

    clock.advance(STALLED_MOVE_SECONDS + 1)
    assert await complete_stalled_moves(node) == 1

    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.status == 200, got.body
    assert got.data["boardId"] == board.id and got.data["commentCount"] == 1
    assert (await board.api.query("items.get", {"id": sub["id"]})).data["boardId"] == board.id
    comments = await board.api.query("comments.list", {"itemId": item["id"]})
    assert [c["id"] for c in comments.data["comments"]] == [comment.data["id"]]
    assert await complete_stalled_moves(node) == 0


async def test_a_caller_retrying_a_cut_move_completes_it(org: Org, board: Board) -> None:
    target = await make_board(org)
    item = await board.add_item("Travel")
    node = org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    step_one = MoveAcross(id=item["id"], groupId=target.group_id, boardId=target.id,
                          target=MoveTarget(target.id, target.group_id, {}))
    await ask_board(node, await _caller(node, org), board.id, spec.MOVE.name, step_one)

    retried = await move(board, item["id"], target)

    assert retried.status == 200, retried.body
    assert retried.data["boardId"] == target.id and retried.data["number"] == 1


async def test_two_takes_of_one_item_in_one_turn_number_it_once(org: Org, board: Board) -> None:
    target = await make_board(org)
    item = await board.add_item("Travel")
    await board.add_item("Sub", parentId=item["id"])
    node = org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    caller = await _caller(node, org)
    step_one = MoveAcross(id=item["id"], groupId=target.group_id, boardId=target.id,
                          target=MoveTarget(target.id, target.group_id, {}))
    await ask_board(node, caller, board.id, spec.MOVE.name, step_one)

    # A caller's retry and the sweeper (or two callers) reach the target board in the same turn.
    first, second = await asyncio.gather(take_moved_item(node, caller, board.id, target.id, item["id"]),
                                         take_moved_item(node, caller, board.id, target.id, item["id"]))

    assert first["number"] == second["number"] == 1, (first, second)
    assert await numbers(target) == [1, 2]
    await target.add_item("Next")
    assert await numbers(target) == [1, 2, 3]  # no number was spent on a second take
    logged = await event_log.read(node.pool, org.id, f"board:{target.id}", 0, 100)
    assert [e.name for e in logged].count("item.moved") == 1


async def test_an_item_between_the_steps_of_a_move_is_in_no_export_nor_automation(org: Org, board: Board) -> None:
    from tests.integration.exports.conftest import export, parse

    target = await make_board(org)
    staying = await board.add_item("Staying")
    leaving = await board.add_item("Leaving")
    node = org.anonymous.client.server.app[NODE]  # type: ignore[attr-defined]
    step_one = MoveAcross(id=leaving["id"], groupId=target.group_id, boardId=target.id,
                          target=MoveTarget(target.id, target.group_id, {}))
    await ask_board(node, await _caller(node, org), board.id, spec.MOVE.name, step_one)

    listed = await board.api.query("items.list", {"boardId": board.id})
    assert [i["id"] for i in listed.data["items"]] == [staying["id"]]
    source_rows = parse(await export(board.api, "exportBoard", {"boardId": board.id}))
    assert [row[1] for row in source_rows[1:]] == ["Staying"]  # as the board's own list shows it
    target_rows = parse(await export(target.api, "exportBoard", {"boardId": target.id}))
    assert target_rows[1:] == []
    # Nor do the source board's automations act on it (an item trigger checks the item is on the board).
    assert not await automations_repo.item_on_board(node.pool, board.id, leaving["id"])
    assert await automations_repo.item_on_board(node.pool, board.id, staying["id"])


async def _caller(node: Any, org: Org) -> Any:
    from protocol.caller import Caller, Organization
    from protocol.registry import Role

    return Caller(request_id="test", organization=Organization(org.id, org.slug, "", "business"),
                  user_id=org.owner_id, role=Role.OWNER)
