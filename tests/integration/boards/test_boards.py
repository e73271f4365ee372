"""Boards, groups and columns through the board actor."""

from __future__ import annotations

from tests.harness import Org
from tests.integration.boards.conftest import Board, make_project
from web.keys import NODE


async def test_create_has_the_spec_defaults(board: Board) -> None:
    view = board.view
    assert view["id"].startswith("brd_") and view["defaultView"] == "board"
    assert [g["name"] for g in view["groups"]] == ["New Group"]
    assert [c["type"] for c in view["columns"]] == ["status", "people"]
    labels = board.column("status")["config"]["labels"]
    assert any(label.get("isDone") for label in labels)
    again = await board.api.query("boards.get", {"id": board.id})
    assert again.data == view


async def test_create_with_groups_and_columns_and_bad_input(org: Org) -> None:
    project_id = await make_project(org)
    made = await org.owner.mutate("boards.create", {
        "projectId": project_id, "name": "Safety", "defaultView": "table",
        "groups": [{"name": "This week", "color": "#112233"}, {"name": "Next week"}],
        "columns": [{"name": "Score", "type": "number", "config": {"decimals": 1}}]})
    assert made.status == 200, made.body
    assert [g["name"] for g in made.data["groups"]] == ["This week", "Next week"]
    assert made.data["groups"][0]["color"] == "#112233"
    assert made.data["columns"][0]["config"]["decimals"] == 1
    bad = await org.owner.mutate("boards.create", {"projectId": project_id, "name": "", "defaultView": "kanban",
                                                   "columns": [{"name": "X", "type": "hologram"}]})
    assert bad.status == 400
    assert {d["field"].split(".")[0] for d in bad.error["data"]["details"]} == {"name", "defaultView", "columns"}
    missing = await org.owner.mutate("boards.create", {"projectId": "prj_nope", "name": "X"})
    assert missing.status == 404
    template = await org.owner.mutate("boards.create", {"projectId": project_id, "name": "X", "templateId": "tpl_x"})
    assert template.status == 404 and template.error["data"]["details"][0]["field"] == "templateId"


async def test_update_and_delete(board: Board) -> None:
    updated = await board.api.mutate("boards.update", {"id": board.id, "name": "Renamed", "defaultView": "calendar"})
    assert updated.status == 200 and updated.data["name"] == "Renamed"
    deleted = await board.api.mutate("boards.delete", {"id": board.id})
    assert deleted.data == {"success": True, "id": board.id}
    assert (await board.api.query("boards.get", {"id": board.id})).status == 404
    node = board.api.client.server.app[NODE]
    assert await node.pool.fetchval("SELECT count(*) FROM boards WHERE id = $1", board.id) == 0


async def test_groups(board: Board) -> None:
    second = await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Done"})
    assert second.status == 200 and second.data["color"].startswith("#")
    updated = await board.api.mutate("boards.groups.update", {"id": second.data["id"], "collapsed": True,
                                                              "name": "Closed"})
    assert updated.data["collapsed"] is True and updated.data["name"] == "Closed"
    order = [second.data["id"], board.group_id]
    assert (await board.api.mutate("boards.groups.reorder", {"boardId": board.id, "groupIds": order})).status == 200
    assert [g["id"] for g in (await board.refresh())["groups"]] == order
    not_all = await board.api.mutate("boards.groups.reorder", {"boardId": board.id, "groupIds": order[:1]})
    assert not_all.status == 400


async def test_delete_group_moves_or_trashes_items(board: Board) -> None:
    other = (await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Other"})).data
    kept = await board.add_item("Keep me")
    moved = await board.api.mutate("boards.groups.delete", {"id": board.group_id, "moveItemsTo": other["id"]})
    assert moved.status == 200
    assert (await board.api.query("items.get", {"id": kept["id"]})).data["groupId"] == other["id"]
    third = (await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Third"})).data
    assert (await board.api.mutate("boards.groups.delete", {"id": other["id"]})).status == 200
    assert (await board.api.query("items.get", {"id": kept["id"]})).status == 404  # in the trash
    last = await board.api.mutate("boards.groups.delete", {"id": third["id"]})
    assert last.status == 400


async def test_columns(board: Board) -> None:
    made = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Due", "type": "date",
                                                     "required": False, "width": 200})
    assert made.status == 200, made.body
    column = made.data
    assert column["width"] == 200 and column["type"] == "date"
    listed = await board.api.query("columns.list", {"boardId": board.id})
    assert [c["id"] for c in listed.data["columns"]][-1] == column["id"]
    retype = await board.api.mutate("columns.update", {"id": column["id"], "type": "text"})
    assert retype.status == 400 and retype.error["data"]["details"][0]["field"] == "type"
    renamed = await board.api.mutate("columns.update", {"id": column["id"], "name": "Due date"})
    assert renamed.data["name"] == "Due date"
    item = await board.add_item(values={column["id"]: "2026-12-01"})
    copy = await board.api.mutate("columns.duplicate", {"id": column["id"], "includeValues": True})
    assert copy.status == 200 and copy.data["name"] == "Due date (copy)"
    got = await board.api.query("items.get", {"id": item["id"]})
    assert got.data["values"][copy.data["id"]] == got.data["values"][column["id"]]
    assert (await board.api.mutate("columns.delete", {"id": column["id"]})).status == 200
    got = await board.api.query("items.get", {"id": item["id"]})
    assert column["id"] not in got.data["values"]
    ids = [c["id"] for c in (await board.refresh())["columns"]]
    assert (await board.api.mutate("columns.reorder", {"boardId": board.id, "columnIds": ids[::-1]})).status == 200
    assert [c["id"] for c in (await board.refresh())["columns"]] == ids[::-1]


async def test_board_of_another_org_is_not_found(client: object, board: Board) -> None:
    from tests.harness import make_org

    other = await make_org(client)  # type: ignore[arg-type]
    assert (await other.owner.query("boards.get", {"id": board.id})).status == 404
    assert (await other.owner.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                      "name": "x"})).status == 404


async def test_closed_workspace_hides_its_boards(org: Org) -> None:
    workspace = await org.owner.mutate("workspaces.create", {"name": "Secret", "visibility": "closed"})
    project = await org.owner.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "P"})
    made = await org.owner.mutate("boards.create", {"projectId": project.data["id"], "name": "Hidden"})
    _, member = await org.add_user("member")
    assert (await member.query("boards.get", {"id": made.data["id"]})).status == 404


async def test_board_events_reach_the_log(board: Board) -> None:
    await board.api.mutate("boards.update", {"id": board.id, "name": "Renamed"})
    node = board.api.client.server.app[NODE]
    rows = await node.pool.fetch("SELECT name, seq, payload FROM events WHERE stream = $1 ORDER BY seq",
                                f"board:{board.id}")
    assert [(r["name"], r["seq"]) for r in rows] == [("board.created", 1), ("board.updated", 2)]
    assert rows[1]["payload"]["data"]["changes"] == {"name": {"old": "Tier 1 board", "new": "Renamed"}}

