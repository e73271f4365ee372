"""export.exportProblemSheet: the sheet as a JSON document with id, type, title, status,
actionId, data, createdAt, updatedAt and reviewedAt."""

from __future__ import annotations

import json

from aiohttp.test_utils import TestClient

from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.exports.conftest import AWKWARD, export
from tests.integration.problem_solving.conftest import FIVE_WHYS, create_action, create_sheet, trail


async def test_the_sheet_exports_as_json(board: Board) -> None:
    sheet = await create_sheet(board, "five_whys", title=AWKWARD[0], data=FIVE_WHYS)
    action = await create_action(board)
    assert (await board.api.mutate("problemSolving.linkToRootCause", {"sheetId": sheet["id"],
                                                                      "actionId": action["id"]})).status == 200
    assert (await board.api.mutate("problemSolving.submit", {"id": sheet["id"]})).status == 200
    reviewed = (await board.api.mutate("problemSolving.review", {"id": sheet["id"]})).data

    document = json.loads(await export(board.api, "exportProblemSheet", {"id": sheet["id"]}))
    assert document == {"id": sheet["id"], "type": "five_whys", "title": AWKWARD[0], "status": "reviewed",
                        "actionId": action["id"], "data": FIVE_WHYS, "createdAt": sheet["createdAt"],
                        "updatedAt": reviewed["updatedAt"], "reviewedAt": reviewed["reviewedAt"]}
    assert "problem_sheet.exported" in await trail(board.api, "problem_sheet", sheet["id"])


async def test_an_unreviewed_unlinked_sheet_has_nulls(board: Board) -> None:
    sheet = await create_sheet(board, "wwwhwwh", data={"what": "Blisters", "howMuch": "40 a week"})
    document = json.loads(await export(board.api, "exportProblemSheet", {"id": sheet["id"]}))
    assert document["actionId"] is None and document["reviewedAt"] is None and document["status"] == "draft"
    assert document["data"]["what"] == "Blisters" and document["data"]["howMuch"] == "40 a week"


async def test_missing_and_foreign_sheets_are_not_found(client: TestClient, board: Board) -> None:
    sheet = await create_sheet(board)
    stranger = (await make_board(await make_org(client))).api
    assert (await stranger.query("export.exportProblemSheet", {"id": sheet["id"]})).status == 404
    assert (await board.api.query("export.exportProblemSheet", {"id": "ps_missing"})).status == 404
