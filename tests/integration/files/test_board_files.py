"""Files on a board: comment attachments must be files of the organization and show what each file is;
`file` column values are checked the same way and stored as the file truly is; `items.get` counts both."""

from __future__ import annotations

from typing import Any

from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG, uploaded


async def file_column(board: Board) -> str:
    reply = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Photos", "type": "file"})
    assert reply.status == 200, reply.body
    return str(reply.data["id"])


def fields_of(reply: Any) -> list[str]:
    return [d["field"] for d in reply.error["json"]["data"]["details"]]


async def test_comment_attachments_show_each_file(board: Board) -> None:
    item = await board.add_item("Leak at pump 3")
    photo = await uploaded(board.api, PNG, "leak.png")
    reply = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "See photo",
                                                       "attachmentIds": [photo["id"]]})
    assert reply.status == 200, reply.body
    assert reply.data["attachments"] == [{"id": photo["id"], "name": "leak.png", "size": len(PNG),
                                          "type": "image/png", "url": photo["url"]}]
    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert listed.data["comments"][0]["attachments"] == reply.data["attachments"]
    events = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    [commented] = [e for e in events.data["events"] if e["event"] == "item.commented"]
    assert commented["data"]["comment"]["attachments"] == reply.data["attachments"]


async def test_attachments_must_be_files_of_the_organization(board: Board) -> None:
    item = await board.add_item()
    other = await make_org(board.api.client)
    foreign = await uploaded(other.owner)
    for ids in ([foreign["id"]], ["file_" + "A" * 20]):
        reply = await board.api.mutate("comments.create", {"itemId": item["id"], "body": "x", "attachmentIds": ids})
        assert reply.status == 400 and fields_of(reply) == ["attachmentIds"], reply.body
    listed = await board.api.query("comments.list", {"itemId": item["id"]})
    assert listed.data["comments"] == []


async def test_file_column_values_are_files_of_the_organization(board: Board) -> None:
    column = await file_column(board)
    item = await board.add_item()
    photo = await uploaded(board.api, PNG, "before.png")
    claimed = {"id": photo["id"], "name": "fake.exe", "size": 1, "mimeType": "text/html",
               "url": "https://evil.example/x"}
    set_value = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": column,
                                                          "value": [claimed]})
    assert set_value.status == 200, set_value.body
    stored = [{"id": photo["id"], "name": "before.png", "size": len(PNG), "mimeType": "image/png"}]
    assert set_value.data["values"][column] == stored
    foreign = await uploaded((await make_org(board.api.client)).owner)
    refused = await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": column,
                                                        "value": [photo["id"], foreign["id"]]})
    assert refused.status == 400 and fields_of(refused) == ["value.1"], refused.body
    created = await board.api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "n",
                                                      "values": {column: ["file_" + "B" * 20]}})
    assert created.status == 400 and fields_of(created) == [f"values.{column}.0"], created.body
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["values"][column] == stored


async def test_file_count_adds_comment_attachments_and_file_columns(board: Board) -> None:
    column = await file_column(board)
    item = await board.add_item()
    a, b, c = [await uploaded(board.api, PNG, f"{name}.png") for name in "abc"]
    assert (await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": column,
                                                      "value": [a["id"], b["id"]]})).status == 200
    assert (await board.api.mutate("comments.create", {"itemId": item["id"], "body": "one more",
                                                       "attachmentIds": [c["id"], a["id"]]})).status == 200
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["fileCount"] == 4 and got.data["commentCount"] == 1


async def test_a_file_column_default_names_files_of_the_organization(board: Board) -> None:
    photo = await uploaded(board.api, PNG, "template.png")
    foreign = await uploaded((await make_org(board.api.client)).owner)
    refused = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Photos", "type": "file",
                                                        "defaultValue": [foreign["id"]]})
    assert refused.status == 400 and fields_of(refused) == ["defaultValue.0"], refused.body
    claimed = {"id": photo["id"], "name": "fake.exe", "size": 1, "mimeType": "text/html"}
    created = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Photos", "type": "file",
                                                        "defaultValue": [claimed]})
    assert created.status == 200, created.body
    stored = [{"id": photo["id"], "name": "template.png", "size": len(PNG), "mimeType": "image/png"}]
    assert created.data["defaultValue"] == stored
    column = created.data["id"]
    updated = await board.api.mutate("columns.update", {"id": column, "defaultValue": [foreign["id"]]})
    assert updated.status == 400 and fields_of(updated) == ["defaultValue.0"], updated.body
    item = await board.add_item()
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["values"][column] == stored
