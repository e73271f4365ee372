"""Each methodology's data shape (docs/decisions.md "Sheet shapes and states"), checked on create and on update; a
bad part is 400 naming its field, and nothing is stored."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.boards.conftest import Board
from tests.integration.problem_solving.conftest import FIVE_WHYS, create_sheet

ISHIKAWA = {"problem": "Scrap rate doubled", "effect": "12% scrap on line 2",
            "categories": {"man": ["New operators untrained"], "machine": ["Worn die", "Loose clamp"],
                           "method": [], "material": ["Coil from a new supplier"], "measurement": ["Gauge drift"],
                           "environment": ["Humidity above 80%"]},
            "rootCause": "Worn die"}
FIVE_W_TWO_H = {"what": "Paint blisters", "why": "Customer complaints", "where": "Booth 2", "when": "Night shift",
                "who": "Paint team", "how": "Visual inspection", "howMuch": "40 parts a week"}

LONG = "x" * 2001
BAD: list[tuple[str, Any, str]] = [
    ("five_whys", {"whys": [{"question": "Why?", "answer": 7}]}, "data.whys.0.answer"),
    ("five_whys", {"whys": [{"answer": "Because"}]}, "data.whys.0.question"),
    ("five_whys", {"whys": [{"question": "Why?"}, {"question": LONG}]}, "data.whys.1.question"),
    ("five_whys", {"whys": [{"question": "Why?"}] * 21}, "data.whys"),
    ("five_whys", {"whys": "why"}, "data.whys"),
    ("five_whys", {"rootCause": LONG}, "data.rootCause"),
    ("ishikawa", {"categories": {"money": ["Budget"]}}, "data.categories.money"),
    ("ishikawa", {"categories": {"machine": ["ok", 3]}}, "data.categories.machine.1"),
    ("ishikawa", {"categories": {"method": [""]}}, "data.categories.method.0"),
    ("ishikawa", {"categories": {"environment": ["cause"] * 51}}, "data.categories.environment"),
    ("ishikawa", {"categories": ["man"]}, "data.categories"),
    ("ishikawa", {"effect": LONG}, "data.effect"),
    ("wwwhwwh", {"howMuch": 40}, "data.howMuch"),
    ("wwwhwwh", {"what": LONG}, "data.what"),
]


@pytest.mark.parametrize(("sheet_type", "data"), [("five_whys", FIVE_WHYS), ("ishikawa", ISHIKAWA),
                                                  ("wwwhwwh", FIVE_W_TWO_H)])
async def test_each_type_stores_its_shape(board: Board, sheet_type: str, data: dict[str, Any]) -> None:
    sheet = await create_sheet(board, sheet_type, data=data)
    assert sheet["data"] == data
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data["data"] == data


async def test_missing_parts_are_filled_and_unknown_top_level_keys_dropped(board: Board) -> None:
    sheet = await create_sheet(board, "ishikawa", data={"categories": {"machine": ["Worn die"]}, "colour": "red"})
    assert sheet["data"] == {"problem": None, "effect": None, "rootCause": None, "categories": {
        "man": [], "machine": ["Worn die"], "method": [], "material": [], "measurement": [], "environment": []}}


@pytest.mark.parametrize(("sheet_type", "data", "field"), BAD)
async def test_bad_data_on_create_is_refused_naming_the_field(board: Board, sheet_type: str, data: Any,
                                                              field: str) -> None:
    reply = await board.api.mutate("problemSolving.create", {"boardId": board.id, "title": "Bad", "type": sheet_type,
                                                             "data": data})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"][0]["field"] == field
    listed = await board.api.query("problemSolving.list", {"boardId": board.id})
    assert listed.data["total"] == 0


@pytest.mark.parametrize(("sheet_type", "data", "field"), BAD)
async def test_bad_data_on_update_is_refused_for_the_sheets_type(board: Board, sheet_type: str, data: Any,
                                                                 field: str) -> None:
    sheet = await create_sheet(board, sheet_type)
    reply = await board.api.mutate("problemSolving.update", {"id": sheet["id"], "data": data, "title": "New"})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"][0]["field"] == field
    assert (await board.api.query("problemSolving.getById", {"id": sheet["id"]})).data == sheet


async def test_update_checks_data_against_the_stored_type(board: Board) -> None:
    sheet = await create_sheet(board, "wwwhwwh")
    # A five-whys payload on a 5W2H sheet keeps none of it: whys is not a 5W2H field.
    reply = await board.api.mutate("problemSolving.update", {"id": sheet["id"], "data": FIVE_WHYS})
    assert reply.status == 200
    assert reply.data["data"] == {key: None for key in FIVE_W_TWO_H}
    ishikawa = await create_sheet(board, "ishikawa")
    refused = await board.api.mutate("problemSolving.update", {"id": ishikawa["id"], "data": FIVE_W_TWO_H | {
        "categories": {"manpower": []}}})
    assert refused.status == 400 and refused.error["data"]["details"][0]["field"] == "data.categories.manpower"


@pytest.mark.parametrize(("fields", "field"), [
    ({"type": "pareto"}, "type"), ({"title": ""}, "title"), ({"title": "x" * 501}, "title"),
    ({"data": [1, 2]}, "data"), ({"boardId": None}, "boardId")])
async def test_bad_inputs_are_refused_naming_the_field(board: Board, fields: dict[str, Any], field: str) -> None:
    reply = await board.api.mutate("problemSolving.create", {"boardId": board.id, "title": "Sheet",
                                                             "type": "five_whys", **fields})
    assert reply.status == 400, reply.body
    assert reply.error["data"]["details"][0]["field"] == field
