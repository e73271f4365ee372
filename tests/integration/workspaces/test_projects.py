"""Projects and `boards.list`: the five procedures, access following the workspace, guests
reading only, paging, deletion with the project's boards and items, and the events on the organization's
and the boards' streams, logged and published on the node's bus."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from actors.kernel.events import org_stream, wire_payload
from storage import events as event_log
from storage.events import StoredEvent
from tests.harness import Org, make_org
from tests.integration.credentials.helpers import create_token
from tests.integration.workspaces.helpers import (
    count_rows,
    create_project,
    create_workspace,
    env_of,
    insert_board,
    insert_item,
)

PROJECT_FIELDS = {"id", "workspaceId", "name", "description", "createdAt", "updatedAt"}
BOARD_FIELDS = {"id", "name", "projectId", "defaultView", "createdAt", "updatedAt"}


async def test_create_get_list_update_and_delete(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    created = await create_project(org.owner, workspace["id"], "Line A", description="Stamping")
    assert set(created) == PROJECT_FIELDS
    assert created["id"].startswith("prj_")
    assert (created["workspaceId"], created["name"], created["description"]) == (workspace["id"], "Line A",
                                                                                "Stamping")
    second = await create_project(org.owner, workspace["id"], "Line B")
    assert second["description"] is None

    got = await org.owner.query("projects.get", {"id": created["id"]})
    assert got.status == 200, got.body
    assert got.data == created | {"boards": []}
    listed = await org.owner.query("projects.list", {"workspaceId": workspace["id"]})
    assert [p["id"] for p in listed.data["projects"]] == [second["id"], created["id"]]
    assert listed.data["nextCursor"] is None

    updated = await org.owner.mutate("projects.update", {"id": created["id"], "name": "Line A1",
                                                         "description": None})
    assert updated.status == 200, updated.body
    assert (updated.data["name"], updated.data["description"]) == ("Line A1", None)
    assert updated.data["updatedAt"] >= created["updatedAt"]
    unchanged = await org.owner.mutate("projects.update", {"id": created["id"]})
    assert unchanged.data == updated.data

    deleted = await org.owner.mutate("projects.delete", {"id": created["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": created["id"]}
    assert (await org.owner.query("projects.get", {"id": created["id"]})).status == 404
    assert (await org.owner.mutate("projects.delete", {"id": created["id"]})).status == 404

    trail = await org.owner.query("activity.listByEntity", {"entityType": "project", "entityId": created["id"]})
    assert [e["action"] for e in trail.data["entries"]] == ["project.deleted", "project.updated", "project.created"]
    assert trail.data["entries"][1]["metadata"]["changes"] == {
        "name": {"old": "Line A", "new": "Line A1"}, "description": {"old": "Stamping", "new": None}}


async def test_invalid_inputs_are_refused_naming_the_field(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    for body, field in [({"workspaceId": workspace["id"], "name": ""}, "name"),
                        ({"workspaceId": workspace["id"], "name": "p" * 101}, "name"),
                        ({"name": "No workspace"}, "workspaceId"),
                        ({"workspaceId": workspace["id"], "name": "P", "description": "d" * 2001}, "description")]:
        reply = await org.owner.mutate("projects.create", body)
        assert reply.status == 400, (body, reply.body)
        assert [d["field"] for d in reply.error["data"]["details"]] == [field]
    project = await create_project(org.owner, workspace["id"], "p" * 100)
    bad = await org.owner.mutate("projects.update", {"id": project["id"], "name": None, "description": 5})
    assert bad.status == 400 and [d["field"] for d in bad.error["data"]["details"]] == ["description"]
    for params in ({"limit": 0}, {"limit": 201}, {"cursor": "%%%"}):
        reply = await org.owner.query("projects.list", {"workspaceId": workspace["id"], **params})
        assert reply.status == 400, params


async def test_projects_list_pages_newest_first(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    ids = [(await create_project(org.owner, workspace["id"], f"P{n}"))["id"] for n in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        params = {"workspaceId": workspace["id"], "limit": 2, **({"cursor": cursor} if cursor else {})}
        reply = await org.owner.query("projects.list", params)
        assert reply.status == 200, reply.body
        seen += [p["id"] for p in reply.data["projects"]]
        cursor = reply.data["nextCursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]


async def test_access_follows_the_workspace_and_guests_only_read(org: Org) -> None:
    closed = await create_workspace(org.owner, "Closed", visibility="closed")
    open_ = await create_workspace(org.owner, "Open")
    hidden = await create_project(org.owner, closed["id"], "Hidden")
    visible = await create_project(org.owner, open_["id"], "Visible")
    _, member = await org.add_user("member")
    guest_id, guest = await org.add_user("guest")

    for name, params in [("projects.get", {"id": hidden["id"]}), ("projects.list", {"workspaceId": closed["id"]}),
                         ("boards.list", {"projectId": hidden["id"]})]:
        assert (await member.query(name, params)).status == 404, name
    for name, body in [("projects.create", {"workspaceId": closed["id"], "name": "X"}),
                       ("projects.update", {"id": hidden["id"], "name": "X"}),
                       ("projects.delete", {"id": hidden["id"]})]:
        assert (await member.mutate(name, body)).status == 404, name

    assert (await member.query("projects.get", {"id": visible["id"]})).status == 200
    made = await member.mutate("projects.create", {"workspaceId": open_["id"], "name": "By a member"})
    assert made.status == 200, made.body
    assert (await member.mutate("projects.update", {"id": visible["id"], "name": "Renamed"})).status == 200

    # A guest sees the open workspace's projects only once a member of it, and never changes them.
    assert (await guest.query("projects.get", {"id": visible["id"]})).status == 404
    await org.owner.mutate("workspaces.members.add", {"workspaceId": open_["id"], "userId": guest_id})
    assert (await guest.query("projects.get", {"id": visible["id"]})).status == 200
    assert (await guest.query("boards.list", {"projectId": visible["id"]})).status == 200
    assert (await guest.mutate("projects.create", {"workspaceId": open_["id"], "name": "G"})).status == 403
    assert (await guest.mutate("projects.update", {"id": visible["id"], "name": "G"})).status == 403
    assert (await guest.mutate("projects.delete", {"id": visible["id"]})).status == 403


async def test_another_organizations_projects_are_not_found(org: Org) -> None:
    other = await make_org(org.owner.client)
    their_workspace = await create_workspace(other.owner)
    theirs = await create_project(other.owner, their_workspace["id"])
    assert (await org.owner.query("projects.get", {"id": theirs["id"]})).status == 404
    assert (await org.owner.query("projects.list", {"workspaceId": their_workspace["id"]})).status == 404
    assert (await org.owner.query("boards.list", {"projectId": theirs["id"]})).status == 404
    assert (await org.owner.mutate("projects.create", {"workspaceId": their_workspace["id"],
                                                       "name": "Ours"})).status == 404
    assert (await org.owner.mutate("projects.update", {"id": theirs["id"], "name": "Ours"})).status == 404
    assert (await org.owner.mutate("projects.delete", {"id": theirs["id"]})).status == 404
    assert (await other.owner.query("projects.get", {"id": theirs["id"]})).status == 200


async def test_project_created_is_logged_on_the_org_stream_and_published_after_the_create(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    node = env_of(org)
    received: list[StoredEvent] = []

    def collect(events: Sequence[StoredEvent]) -> None:
        received.extend(events)

    node.bus.subscribe("test", collect)
    try:
        created = await create_project(org.owner, workspace["id"], "Line A")
        await node.bus.drained()
    finally:
        node.bus.unsubscribe("test")

    [logged] = [e for e in await event_log.read(node.pool, org.id, org_stream(org.id)) if e.name == "project.created"]
    payload = wire_payload(logged)
    assert set(payload) == {"id", "event", "timestamp", "apiVersion", "organizationId", "data", "seq"}
    assert (payload["event"], payload["apiVersion"], payload["organizationId"]) == ("project.created", "v1", org.id)
    assert payload["id"].startswith("evt_") and payload["timestamp"].endswith("Z")
    assert payload["data"] == {"project": created, "actor": {"id": org.owner_id, "email": org.owner_email}}
    assert [(e.name, e.id) for e in received if e.stream == org_stream(org.id)] == [("project.created", logged.id)]


async def test_delete_removes_boards_and_items_and_emits_their_deletion(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    project = await create_project(org.owner, workspace["id"])
    other = await create_project(org.owner, workspace["id"], "Other")
    boards = [await insert_board(org, project["id"], name) for name in ("B1", "B2")]
    other_board = await insert_board(org, other["id"])
    items = [await insert_item(org, board) for board in boards]
    node = env_of(org)
    received: list[StoredEvent] = []
    node.bus.subscribe("test", received.extend)
    try:
        deleted = await org.owner.mutate("projects.delete", {"id": project["id"]})
        await node.bus.drained()
    finally:
        node.bus.unsubscribe("test")
    assert deleted.status == 200, deleted.body
    assert await count_rows(org, "boards", boards) == 0
    assert await count_rows(org, "items", items) == 0
    assert await count_rows(org, "boards", [other_board]) == 1

    by_stream = {e.stream: e for e in received}
    for board_id in boards:
        event = by_stream[f"board:{board_id}"]
        assert event.name == "board.deleted"
        assert event.payload["data"]["board"]["projectId"] == project["id"]
        assert [e.id for e in await event_log.read(node.pool, org.id, f"board:{board_id}")] == [event.id]
    project_event = by_stream[org_stream(org.id)]
    assert project_event.name == "project.deleted"
    assert project_event.payload["data"]["project"]["id"] == project["id"]
    assert project_event.payload["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    assert (await org.owner.query("workspaces.get", {"id": workspace["id"]})).data["projectCount"] == 1


async def test_boards_list_reads_a_projects_boards_newest_first_in_pages(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    project = await create_project(org.owner, workspace["id"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [await insert_board(org, project["id"], f"Board {n}", start + timedelta(minutes=n)) for n in range(5)]
    first = await org.owner.query("boards.list", {"projectId": project["id"], "limit": 3})
    assert first.status == 200, first.body
    assert [b["id"] for b in first.data["boards"]] == ids[::-1][:3]
    board = first.data["boards"][0]
    assert set(board) == BOARD_FIELDS
    assert (board["name"], board["projectId"], board["defaultView"], board["createdAt"]) == (
        "Board 4", project["id"], "board", "2026-01-01T00:04:00.000Z")
    rest = await org.owner.query("boards.list", {"projectId": project["id"], "limit": 3,
                                                 "cursor": first.data["nextCursor"]})
    assert [b["id"] for b in rest.data["boards"]] == ids[::-1][3:] and rest.data["nextCursor"] is None
    detail = await org.owner.query("projects.get", {"id": project["id"]})
    assert [b["id"] for b in detail.data["boards"]] == ids[::-1]
    assert (await org.owner.query("boards.list", {"projectId": project["id"], "limit": 500})).status == 400


async def test_deleting_a_project_needs_the_delete_token_scope(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    project = await create_project(org.owner, workspace["id"])
    writer = org.owner.with_bearer((await create_token(org.owner, scopes=["read", "write"]))["token"])
    assert (await writer.mutate("projects.update", {"id": project["id"], "name": "By token"})).status == 200
    assert (await writer.mutate("projects.delete", {"id": project["id"]})).status == 403
    deleter = org.owner.with_bearer((await create_token(org.owner, scopes=["delete"]))["token"])
    assert (await deleter.mutate("projects.delete", {"id": project["id"]})).status == 200
