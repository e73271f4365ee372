"""import.mapColumns and import.preview (steps 2 and 3, docs/import.md): the mapping's checks, each named by its field,
and every cell read as its column's type: people by e-mail or name (with `resolvedUserId`), dates in the
mapping's `dateFormat`, numbers, status and dropdown labels, checkboxes, the group by name; each bad cell an
entry of `errors[]` naming its row, column and value."""

from __future__ import annotations

from typing import Any

from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.imports.conftest import column_id, mapped, upload_csv, uploaded

HEADER = "Name,Owner,Status,Due,Cost,Done,Line,Group,Notes\r\n"


def full_mapping(board: Board) -> list[dict[str, Any]]:
    columns = ["Owner", "Status", "Due", "Cost", "Done", "Line"]
    return [{"csvIndex": 0, "target": "item_name"},
            *({"csvIndex": index, "target": "column", "columnId": column_id(board, name)}
              for index, name in enumerate(columns, 1)),
            {"csvIndex": 7, "target": "group"},
            {"csvIndex": 8, "target": "column", "columnId": column_id(board, "Notes")}]


async def test_preview_parses_every_type_and_names_each_bad_cell(board: Board) -> None:
    maria_id, _ = await board.org.add_user("member", name="Maria Member")
    data = (HEADER + f'Fix pump,{board.org.owner_email.upper()},Done,01/12/2026,"1,234.50",yes,l2,done,first\r\n'
            "Clean line,maria member,working on it,31/12/2026,12,no,L1,,second\r\n"
            "Bad row,nobody@x.test,Nope,32/13/2026,abc,maybe,L9,Nowhere,third\r\n"
            ",,,,,,,,\r\n"
            ",Maria Member,Done,,,,,,no name\r\n").encode()
    import_id = await mapped(board, data, full_mapping(board), dateFormat="DD/MM/YYYY")
    reply = await board.api.mutate("import.preview", {"importId": import_id})
    assert reply.status == 200, reply.body
    preview = reply.data
    assert (preview["totalRows"], preview["validRows"], preview["errorRows"]) == (4, 2, 2)
    first, second, third, fourth = preview["preview"]
    assert (first["row"], first["itemName"], first["valid"]) == (2, "Fix pump", True)
    done_group, backlog = board.view["groups"][1]["id"], board.view["groups"][0]["id"]
    assert first["groupId"] == done_group and second["groupId"] == backlog
    cells = {cell["columnId"]: cell for cell in first["values"]}
    owner = cells[column_id(board, "Owner")]
    assert owner["parsed"] == [board.org.owner_id] and owner["resolvedUserId"] == board.org.owner_id
    assert cells[column_id(board, "Status")]["parsed"]["label"] == "Done"
    assert cells[column_id(board, "Due")]["parsed"] == "2026-12-01"
    assert cells[column_id(board, "Cost")]["parsed"] == 1234.5
    assert cells[column_id(board, "Done")]["parsed"] is True
    assert cells[column_id(board, "Line")]["parsed"] == "L2"
    assert all(cell["valid"] for cell in first["values"])
    cells = {cell["columnId"]: cell for cell in second["values"]}
    assert cells[column_id(board, "Owner")]["resolvedUserId"] == maria_id
    assert cells[column_id(board, "Status")]["parsed"]["label"] == "Working on it"
    assert cells[column_id(board, "Done")]["parsed"] is False and cells[column_id(board, "Cost")]["parsed"] == 12
    assert third["valid"] is False and fourth["row"] == 6 and fourth["valid"] is False
    assert preview["errors"] == [
        {"row": 4, "column": "Group", "csvIndex": 7, "value": "Nowhere", "error": "no group of this name on the board"},
        {"row": 4, "column": "Owner", "csvIndex": 1, "value": "nobody@x.test",
         "error": "no member of the organization has the e-mail nobody@x.test"},
        {"row": 4, "column": "Status", "csvIndex": 2, "value": "Nope",
         "error": "'Nope' is not one of the column's labels"},
        {"row": 4, "column": "Due", "csvIndex": 3, "value": "32/13/2026", "error": "is not a calendar date"},
        {"row": 4, "column": "Cost", "csvIndex": 4, "value": "abc", "error": "is not a number"},
        {"row": 4, "column": "Done", "csvIndex": 5, "value": "maybe",
         "error": "is not a checkbox value (true/false, yes/no, 1/0, x)"},
        {"row": 4, "column": "Line", "csvIndex": 6, "value": "L9", "error": "'L9' is not one of the column's options"},
        {"row": 6, "column": "Name", "csvIndex": 0, "value": "", "error": "the item name is empty"}]


async def test_a_name_two_members_share_must_be_an_email(board: Board) -> None:
    await board.org.add_user("member", name="Sam Same")
    await board.org.add_user("member", name="Sam Same")
    import_id = await mapped(board, b"Name,Owner\nA,Sam Same\n", [
        {"csvIndex": 0, "target": "item_name"},
        {"csvIndex": 1, "target": "column", "columnId": column_id(board, "Owner")}])
    preview = (await board.api.mutate("import.preview", {"importId": import_id})).data
    assert preview["validRows"] == 0
    assert preview["errors"][0]["error"] == "2 members are named Sam Same: use their e-mail"


async def test_skip_first_row_false_reads_the_first_row_as_data(board: Board) -> None:
    import_id = await mapped(board, b"Alpha\nBeta\n", [{"csvIndex": 0, "target": "item_name"}], skipFirstRow=False)
    preview = (await board.api.mutate("import.preview", {"importId": import_id})).data
    assert [row["itemName"] for row in preview["preview"]] == ["Alpha", "Beta"] and preview["totalRows"] == 2


async def test_the_mapping_is_stored_and_returned(board: Board) -> None:
    session = await uploaded(board.api, board.id, b"Name,Notes\nA,b\n")
    mappings = [{"csvIndex": 0, "target": "item_name"}, {"csvIndex": 1, "target": "skip", "columnId": None}]
    reply = await board.api.mutate("import.mapColumns", {"importId": session["importId"], "mappings": mappings})
    assert reply.status == 200, reply.body
    assert reply.data["status"] == "mapped" and reply.data["mappings"] == [{**mappings[0], "columnId": None},
                                                                           mappings[1]]
    assert reply.data["groupId"] == board.group_id and reply.data["skipFirstRow"] is True
    assert reply.data["dateFormat"] == "YYYY-MM-DD"


async def test_bad_mappings_are_400_naming_each_field(board: Board) -> None:
    formula = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Total", "type": "formula",
                                                        "config": {"expression": "1 + 1"}})
    assert formula.status == 200, formula.body
    session = await uploaded(board.api, board.id, b"Name,Owner,Due\nA,b,c\n")

    async def fields(mappings: list[dict[str, Any]], **extra: Any) -> list[str]:
        reply = await board.api.mutate("import.mapColumns", {"importId": session["importId"], "mappings": mappings,
                                                             **extra})
        assert reply.status == 400, reply.body
        return [d["field"] for d in reply.error["json"]["data"]["details"]]

    assert await fields([{"csvIndex": 1, "target": "skip"}]) == ["mappings"]
    assert await fields([{"csvIndex": 0, "target": "item_name"}, {"csvIndex": 3, "target": "skip"}]) == [
        "mappings.1.csvIndex"]
    assert await fields([{"csvIndex": 0, "target": "item_name"}, {"csvIndex": 1, "target": "column"},
                         {"csvIndex": 2, "target": "column", "columnId": "col_nope"}]) == [
        "mappings.1.columnId", "mappings.2.columnId"]
    assert await fields([{"csvIndex": 0, "target": "item_name"},
                         {"csvIndex": 1, "target": "column", "columnId": formula.data["id"]}]) == [
        "mappings.1.columnId"]
    assert await fields([{"csvIndex": 0, "target": "item_name"}, {"csvIndex": 0, "target": "group"}]) == [
        "mappings.1.csvIndex"]
    assert await fields([{"csvIndex": 0, "target": "item_name"}], groupId="grp_nope") == ["groupId"]
    unknown = await board.api.mutate("import.mapColumns", {"importId": session["importId"], "mappings": [
        {"csvIndex": 0, "target": "name"}]})
    assert unknown.status == 400 and "target" in unknown.error["json"]["message"]
    date_format = await board.api.mutate("import.mapColumns", {"importId": session["importId"], "mappings": [
        {"csvIndex": 0, "target": "item_name"}], "dateFormat": "YY/MM/DD"})
    assert date_format.status == 400 and "dateFormat" in date_format.error["json"]["message"]


async def test_a_session_is_its_uploaders_and_its_organizations(board: Board) -> None:
    session = await uploaded(board.api, board.id, b"Name\nA\n")
    _, member = await board.org.add_user("member")
    mapping = {"importId": session["importId"], "mappings": [{"csvIndex": 0, "target": "item_name"}]}
    assert (await member.mutate("import.mapColumns", mapping)).status == 404
    other = await make_org(board.api.client)
    assert (await other.owner.mutate("import.mapColumns", mapping)).status == 404
    assert (await board.api.mutate("import.preview", {"importId": "imp_nope"})).status == 404


async def test_preview_before_mapping_is_409(board: Board) -> None:
    session = await uploaded(board.api, board.id, b"Name\nA\n")
    reply = await board.api.mutate("import.preview", {"importId": session["importId"]})
    assert reply.status == 409 and "import.mapColumns" in reply.error["json"]["message"]


async def test_a_column_removed_after_mapping_is_409_asking_for_a_new_mapping(board: Board) -> None:
    notes = column_id(board, "Notes")
    import_id = await mapped(board, b"Name,Notes\nA,b\n", [{"csvIndex": 0, "target": "item_name"},
                                                          {"csvIndex": 1, "target": "column", "columnId": notes}])
    assert (await board.api.mutate("columns.delete", {"id": notes})).status == 200
    reply = await board.api.mutate("import.preview", {"importId": import_id})
    assert reply.status == 409 and "map the columns again" in reply.error["json"]["message"]


async def test_a_required_column_left_unmapped_makes_every_row_an_error(board: Board) -> None:
    required = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Shift", "type": "text",
                                                         "required": True})
    assert required.status == 200, required.body
    import_id = await mapped(board, b"Name\nA\nB\n", [{"csvIndex": 0, "target": "item_name"}])
    preview = (await board.api.mutate("import.preview", {"importId": import_id})).data
    assert preview["validRows"] == 0 and preview["errorRows"] == 2
    assert preview["errors"][0]["column"] == "Shift"


async def test_another_tenants_upload_cannot_name_our_board(board: Board) -> None:
    other = await make_org(board.api.client)
    other_board = await make_board(other)
    reply = await upload_csv(other.owner, board.id, b"Name\nA\n")
    assert reply.status == 404 and other_board.id
