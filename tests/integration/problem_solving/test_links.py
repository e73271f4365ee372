"""problemSolving.linkToRootCause and getByAction: the sheet names the action and the action's
rootCauseId names the sheet, in one transaction; relinking and deleting keep both sides in step."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from actors.runtime.clock import ManualClock
from protocol.ids import iso
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.problem_solving.conftest import create_action, create_sheet, trail


async def action_of(board: Board, action_id: str) -> dict[str, Any]:
    reply = await board.api.query("actions.getById", {"id": action_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def link(board: Board, sheet_id: str, action_id: str) -> Any:
    return await board.api.mutate("problemSolving.linkToRootCause", {"sheetId": sheet_id, "actionId": action_id})


async def test_link_sets_both_sides(board: Board) -> None:
    sheet = await create_sheet(board)
    action = await create_action(board)
    linked = await link(board, sheet["id"], action["id"])
    assert linked.status == 200, linked.body
    assert linked.data["actionId"] == action["id"] and linked.data["id"] == sheet["id"]
    assert (await action_of(board, action["id"]))["rootCauseId"] == sheet["id"]
    fetched = await board.api.query("problemSolving.getById", {"id": sheet["id"]})
    assert fetched.data["actionId"] == action["id"]
    assert "problem_sheet.linked" in await trail(board.api, "problem_sheet", sheet["id"])


async def test_link_stamps_both_sides_with_the_time_of_the_link(clocked_client: TestClient,
                                                                clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    sheet = await create_sheet(board)
    action = await create_action(board)
    clock.advance(3600)
    linked = await link(board, sheet["id"], action["id"])
    assert linked.status == 200, linked.body
    assert linked.data["updatedAt"] == iso(clock.now())
    assert (await action_of(board, action["id"]))["updatedAt"] == iso(clock.now())


async def test_get_by_action_lists_the_linked_sheets_newest_first(board: Board) -> None:
    action = await create_action(board)
    other_action = await create_action(board, "Replace the die")
    first = await create_sheet(board, "five_whys")
    second = await create_sheet(board, "ishikawa")
    unrelated = await create_sheet(board, "wwwhwwh")
    assert (await link(board, first["id"], action["id"])).status == 200
    assert (await link(board, second["id"], action["id"])).status == 200
    assert (await link(board, unrelated["id"], other_action["id"])).status == 200

    reply = await board.api.query("problemSolving.getByAction", {"actionId": action["id"]})
    assert reply.status == 200, reply.body
    assert [s["id"] for s in reply.data] == [second["id"], first["id"]]
    assert all(s["actionId"] == action["id"] for s in reply.data)
    # The action names the sheet linked last as its root cause.
    assert (await action_of(board, action["id"]))["rootCauseId"] == second["id"]

    empty = await create_action(board, "Nothing linked")
    assert (await board.api.query("problemSolving.getByAction", {"actionId": empty["id"]})).data == []
    # A read like every sheet operation: on the trail of the action it was asked about.
    assert await trail(board.api, "action", action["id"]) == ["action.created", "problem_sheet.listed"]


async def test_relinking_moves_the_sheet_and_clears_the_old_actions_root_cause(board: Board) -> None:
    sheet = await create_sheet(board)
    old, new = await create_action(board, "Old"), await create_action(board, "New")
    assert (await link(board, sheet["id"], old["id"])).status == 200
    moved = await link(board, sheet["id"], new["id"])
    assert moved.status == 200 and moved.data["actionId"] == new["id"]
    assert (await action_of(board, old["id"]))["rootCauseId"] is None
    assert (await action_of(board, new["id"]))["rootCauseId"] == sheet["id"]
    assert (await board.api.query("problemSolving.getByAction", {"actionId": old["id"]})).data == []


async def test_relinking_keeps_an_old_action_that_names_another_sheet(board: Board) -> None:
    first, second = await create_sheet(board), await create_sheet(board)
    action, elsewhere = await create_action(board), await create_action(board, "Elsewhere")
    assert (await link(board, first["id"], action["id"])).status == 200
    assert (await link(board, second["id"], action["id"])).status == 200
    assert (await link(board, first["id"], elsewhere["id"])).status == 200
    assert (await action_of(board, action["id"]))["rootCauseId"] == second["id"]


async def test_deleting_the_sheet_clears_the_actions_root_cause(board: Board) -> None:
    sheet = await create_sheet(board)
    action = await create_action(board)
    assert (await link(board, sheet["id"], action["id"])).status == 200
    assert (await board.api.mutate("problemSolving.delete", {"id": sheet["id"]})).status == 200
    assert (await action_of(board, action["id"]))["rootCauseId"] is None


async def test_deleting_the_action_unlinks_the_sheet(board: Board) -> None:
    sheet = await create_sheet(board)
    action = await create_action(board)
    assert (await link(board, sheet["id"], action["id"])).status == 200
    assert (await board.api.mutate("actions.delete", {"id": action["id"]})).status == 200
    fetched = await board.api.query("problemSolving.getById", {"id": sheet["id"]})
    assert fetched.data["actionId"] is None
    assert (await board.api.query("problemSolving.getByAction", {"actionId": action["id"]})).status == 404


async def test_a_sheet_may_analyse_an_action_of_another_board(board: Board) -> None:
    other = await make_board(board.org)
    action = await create_action(other)
    sheet = await create_sheet(board)
    assert (await link(board, sheet["id"], action["id"])).status == 200
    assert (await action_of(board, action["id"]))["rootCauseId"] == sheet["id"]
    assert [s["id"] for s in (await board.api.query("problemSolving.getByAction",
                                                    {"actionId": action["id"]})).data] == [sheet["id"]]


async def test_an_action_outside_the_organization_is_not_found_and_nothing_changes(client: TestClient,
                                                                                  board: Board) -> None:
    sheet = await create_sheet(board)
    other = await make_board(await make_org(client))
    foreign = await create_action(other)
    for action_id in (foreign["id"], "acn_doesnotexist"):
        refused = await link(board, sheet["id"], action_id)
        assert refused.status == 404, refused.body
        assert "action" in refused.error["message"]
        assert refused.error["data"]["details"][0]["field"] == "actionId"
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data["actionId"] is None
    assert (await action_of(other, foreign["id"]))["rootCauseId"] is None
    assert (await board.api.query("problemSolving.getByAction", {"actionId": foreign["id"]})).status == 404
    # And the other organization cannot link its action to our sheet either.
    assert (await link(other, sheet["id"], foreign["id"])).status == 404
    assert (await action_of(other, foreign["id"]))["rootCauseId"] is None


async def test_guests_may_not_link(board: Board) -> None:
    sheet = await create_sheet(board)
    action = await create_action(board)
    _, guest = await board.org.add_user("guest")
    refused = await guest.mutate("problemSolving.linkToRootCause", {"sheetId": sheet["id"], "actionId": action["id"]})
    assert refused.status == 403
    assert (await action_of(board, action["id"]))["rootCauseId"] is None
