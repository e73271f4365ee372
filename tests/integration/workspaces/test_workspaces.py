"""Workspaces: the nine procedures, who may see and change what, colours, counts, search,
paging, archiving, the irreversible delete with everything in it, tenancy and credential scopes."""

from __future__ import annotations

from actors.kernel.events import org_stream
from actors.tenancy.workspaces import PALETTE
from storage import events as event_log
from tests.harness import Org, make_org
from tests.integration.credentials.helpers import create_key, create_token
from tests.integration.workspaces.helpers import (
    count_rows,
    create_project,
    create_workspace,
    env_of,
    insert_board,
    insert_item,
)

WORKSPACE_FIELDS = {"id", "name", "description", "color", "icon", "visibility", "projectCount", "memberCount",
                    "archivedAt", "createdAt", "updatedAt"}


async def _listed(api: object, **params: object) -> list[str]:
    reply = await api.query("workspaces.list", params)  # type: ignore[attr-defined]
    assert reply.status == 200, reply.body
    return [w["name"] for w in reply.data["workspaces"]]


async def test_create_returns_the_workspace_and_makes_the_creator_its_admin(org: Org) -> None:
    created = await create_workspace(org.owner, "Plant 1", description="Main site", color="#112233",
                                     icon="factory", visibility="closed")
    assert set(created) == WORKSPACE_FIELDS
    assert created["id"].startswith("wsp_")
    assert (created["name"], created["description"], created["color"], created["icon"], created["visibility"]) == (
        "Plant 1", "Main site", "#112233", "factory", "closed")
    assert (created["projectCount"], created["memberCount"], created["archivedAt"]) == (0, 1, None)
    assert created["createdAt"].endswith("Z") and created["updatedAt"].endswith("Z")

    detail = await org.owner.query("workspaces.get", {"id": created["id"]})
    assert detail.status == 200, detail.body
    assert set(detail.data) == WORKSPACE_FIELDS | {"members", "projects"}
    assert detail.data["members"] == [{"userId": org.owner_id, "name": "Olga Owner", "role": "admin"}]
    assert detail.data["projects"] == []

    defaults = await create_workspace(org.owner, "Plant 2")
    assert (defaults["visibility"], defaults["description"], defaults["icon"]) == ("open", None, None)


async def test_colour_is_assigned_round_robin_from_the_palette_when_omitted(org: Org) -> None:
    colours = [(await create_workspace(org.owner, f"W{n}"))["color"] for n in range(3)]
    assert colours == list(PALETTE[:3])
    assert (await create_workspace(org.owner, "Chosen", color="#ABCDEF"))["color"] == "#ABCDEF"
    assert (await create_workspace(org.owner, "Fifth"))["color"] == PALETTE[4]


async def test_invalid_inputs_are_refused_naming_the_field(org: Org) -> None:
    cases = [({"name": ""}, "name"), ({"name": "x" * 101}, "name"), ({"name": "W", "color": "red"}, "color"),
             ({"name": "W", "visibility": "secret"}, "visibility"), ({"name": "W", "icon": "<svg/>"}, "icon"),
             ({"name": "W", "description": "d" * 2001}, "description"), ({}, "name")]
    for body, field in cases:
        reply = await org.owner.mutate("workspaces.create", body)
        assert reply.status == 400, (body, reply.body)
        assert [d["field"] for d in reply.error["data"]["details"]] == [field], body
    assert (await create_workspace(org.owner, "x" * 100))["name"] == "x" * 100
    for params in ({"limit": 0}, {"limit": 201}, {"cursor": "not-a-cursor"}):
        assert (await org.owner.query("workspaces.list", params)).status == 400, params
    workspace = await create_workspace(org.owner)
    bad_update = await org.owner.mutate("workspaces.update", {"id": workspace["id"], "color": "#12345"})
    assert bad_update.status == 400 and bad_update.error["data"]["details"][0]["field"] == "color"


async def test_members_see_open_and_their_closed_workspaces_guests_only_theirs_admins_all(org: Org) -> None:
    await create_workspace(org.owner, "Open", visibility="open")
    closed = await create_workspace(org.owner, "Closed", visibility="closed")
    member_id, member = await org.add_user("member")
    guest_id, guest = await org.add_user("guest")
    _, admin = await org.add_user("admin")

    assert await _listed(admin) == ["Closed", "Open"]
    assert await _listed(member) == ["Open"]
    assert await _listed(guest) == []
    assert (await member.query("workspaces.get", {"id": closed["id"]})).status == 404
    assert (await guest.query("workspaces.get", {"id": closed["id"]})).status == 404
    assert (await admin.query("workspaces.get", {"id": closed["id"]})).status == 200

    for user_id in (member_id, guest_id):
        added = await org.owner.mutate("workspaces.members.add",
                                       {"workspaceId": closed["id"], "userId": user_id})
        assert added.status == 200, added.body
    assert await _listed(member) == ["Closed", "Open"]
    assert await _listed(guest) == ["Closed"]
    assert (await guest.query("workspaces.get", {"id": closed["id"]})).status == 200


async def test_search_by_name_and_cursor_paging(org: Org) -> None:
    for name in ("Line A", "Warehouse", "line b", "Offices", "Assembly LINE"):
        await create_workspace(org.owner, name)
    assert await _listed(org.owner, search="LiNe") == ["Assembly LINE", "line b", "Line A"]
    assert await _listed(org.owner, search="100%") == []

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        reply = await org.owner.query("workspaces.list", {"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert reply.status == 200, reply.body
        assert len(reply.data["workspaces"]) <= 2
        seen += [w["name"] for w in reply.data["workspaces"]]
        pages += 1
        cursor = reply.data["nextCursor"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == ["Assembly LINE", "Offices", "line b", "Warehouse", "Line A"]


async def test_counts_follow_projects_and_members(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    member_id, _ = await org.add_user("member")
    await create_project(org.owner, workspace["id"], "P1")
    await create_project(org.owner, workspace["id"], "P2")
    await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace["id"], "userId": member_id})
    [listed] = (await org.owner.query("workspaces.list")).data["workspaces"]
    assert (listed["projectCount"], listed["memberCount"]) == (2, 2)
    detail = (await org.owner.query("workspaces.get", {"id": workspace["id"]})).data
    assert [p["name"] for p in detail["projects"]] == ["P2", "P1"]
    assert set(detail["projects"][0]) == {"id", "name"}

    # A user who leaves the organization no longer counts as a workspace member.
    await org.owner.mutate("organizations.members.remove", {"userId": member_id})
    detail = (await org.owner.query("workspaces.get", {"id": workspace["id"]})).data
    assert detail["memberCount"] == 1 and [m["userId"] for m in detail["members"]] == [org.owner_id]


async def test_update_needs_a_workspace_admin_and_reports_in_the_activity_trail(org: Org) -> None:
    workspace = await create_workspace(org.owner, "Plant", description="Old", icon="factory")
    member_id, member = await org.add_user("member")
    _, guest = await org.add_user("guest")

    assert (await member.mutate("workspaces.update", {"id": workspace["id"], "name": "Mine"})).status == 403
    assert (await guest.mutate("workspaces.update", {"id": workspace["id"], "name": "Mine"})).status == 403
    await org.owner.mutate("workspaces.members.add",
                           {"workspaceId": workspace["id"], "userId": member_id, "role": "admin"})
    updated = await member.mutate("workspaces.update", {"id": workspace["id"], "name": "Plant North",
                                                        "description": None, "visibility": "closed"})
    assert updated.status == 200, updated.body
    assert set(updated.data) == WORKSPACE_FIELDS
    assert (updated.data["name"], updated.data["description"], updated.data["icon"], updated.data["visibility"]) == (
        "Plant North", None, "factory", "closed")
    assert updated.data["updatedAt"] >= workspace["updatedAt"]

    trail = await org.owner.query("activity.listByEntity", {"entityType": "workspace", "entityId": workspace["id"]})
    actions = [e["action"] for e in trail.data["entries"]]
    assert actions == ["workspace.updated", "workspace.member_added", "workspace.created"]
    assert trail.data["entries"][0]["metadata"]["changes"] == {
        "name": {"old": "Plant", "new": "Plant North"}, "description": {"old": "Old", "new": None},
        "visibility": {"old": "open", "new": "closed"}}
    assert trail.data["entries"][0]["actor"]["id"] == member_id


async def test_archive_hides_from_the_list_and_restore_brings_it_back(org: Org) -> None:
    workspace = await create_workspace(org.owner, "Old plant")
    await create_workspace(org.owner, "New plant")
    _, member = await org.add_user("member")
    assert (await member.mutate("workspaces.archive", {"id": workspace["id"]})).status == 403

    archived = await org.owner.mutate("workspaces.archive", {"id": workspace["id"]})
    assert archived.status == 200, archived.body
    assert archived.data["archivedAt"] is not None
    assert await _listed(org.owner) == ["New plant"]
    assert await _listed(org.owner, includeArchived=True) == ["New plant", "Old plant"]
    got = await org.owner.query("workspaces.get", {"id": workspace["id"]})
    assert got.status == 200 and got.data["archivedAt"] == archived.data["archivedAt"]
    again = await org.owner.mutate("workspaces.archive", {"id": workspace["id"]})
    assert again.data["archivedAt"] == archived.data["archivedAt"]

    restored = await org.owner.mutate("workspaces.restore", {"id": workspace["id"]})
    assert restored.status == 200 and restored.data["archivedAt"] is None
    assert await _listed(org.owner) == ["New plant", "Old plant"]
    trail = await org.owner.query("activity.listByEntity", {"entityType": "workspace", "entityId": workspace["id"]})
    assert [e["action"] for e in trail.data["entries"]][:2] == ["workspace.restored", "workspace.archived"]


async def test_members_add_updates_the_role_and_remove_takes_them_out(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    member_id, _ = await org.add_user("member", name="Mia Member")
    guest_id, _ = await org.add_user("guest")

    added = await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace["id"], "userId": member_id})
    assert added.status == 200, added.body
    assert added.data == {"workspaceId": workspace["id"], "userId": member_id, "name": "Mia Member",
                          "role": "member"}
    promoted = await org.owner.mutate("workspaces.members.add",
                                      {"workspaceId": workspace["id"], "userId": member_id, "role": "admin"})
    assert promoted.data["role"] == "admin"
    detail = (await org.owner.query("workspaces.get", {"id": workspace["id"]})).data
    assert detail["memberCount"] == 2
    assert {"userId": member_id, "name": "Mia Member", "role": "admin"} in detail["members"]

    guest_admin = await org.owner.mutate("workspaces.members.add",
                                         {"workspaceId": workspace["id"], "userId": guest_id, "role": "admin"})
    assert guest_admin.status == 400 and guest_admin.error["data"]["details"][0]["field"] == "role"
    bad_role = await org.owner.mutate("workspaces.members.add",
                                      {"workspaceId": workspace["id"], "userId": member_id, "role": "owner"})
    assert bad_role.status == 400 and bad_role.error["data"]["details"][0]["field"] == "role"
    stranger = await make_org(org.owner.client)
    unknown = await org.owner.mutate("workspaces.members.add",
                                     {"workspaceId": workspace["id"], "userId": stranger.owner_id})
    assert unknown.status == 404 and unknown.error["data"]["details"][0]["field"] == "userId"

    removed = await org.owner.mutate("workspaces.members.remove",
                                     {"workspaceId": workspace["id"], "userId": member_id})
    assert removed.status == 200 and removed.data["success"] is True
    assert (await org.owner.query("workspaces.get", {"id": workspace["id"]})).data["memberCount"] == 1
    twice = await org.owner.mutate("workspaces.members.remove",
                                   {"workspaceId": workspace["id"], "userId": member_id})
    assert twice.status == 404


async def test_a_workspace_admin_member_manages_members_a_plain_member_cannot(org: Org) -> None:
    workspace = await create_workspace(org.owner, visibility="closed")
    lead_id, lead = await org.add_user("member")
    other_id, other = await org.add_user("member")
    await org.owner.mutate("workspaces.members.add",
                           {"workspaceId": workspace["id"], "userId": lead_id, "role": "admin"})
    assert (await lead.mutate("workspaces.members.add",
                              {"workspaceId": workspace["id"], "userId": other_id})).status == 200
    refused = await other.mutate("workspaces.members.remove", {"workspaceId": workspace["id"], "userId": lead_id})
    assert refused.status == 403
    assert (await lead.mutate("workspaces.members.remove",
                              {"workspaceId": workspace["id"], "userId": other_id})).status == 200
    # Out of the closed workspace again: it is not found for them any more.
    assert (await other.query("workspaces.get", {"id": workspace["id"]})).status == 404


async def test_only_organization_admins_create_and_delete(org: Org) -> None:
    _, member = await org.add_user("member")
    _, guest = await org.add_user("guest")
    _, admin = await org.add_user("admin")
    assert (await member.mutate("workspaces.create", {"name": "Mine"})).status == 403
    assert (await guest.mutate("workspaces.create", {"name": "Mine"})).status == 403
    workspace = await create_workspace(admin, "Admin's")
    assert (await member.mutate("workspaces.delete", {"id": workspace["id"]})).status == 403
    deleted = await admin.mutate("workspaces.delete", {"id": workspace["id"]})
    assert deleted.status == 200 and deleted.data == {"success": True, "id": workspace["id"]}
    assert (await admin.mutate("workspaces.delete", {"id": workspace["id"]})).status == 404


async def test_delete_removes_every_project_board_and_item_and_logs_their_deletion(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    kept = await create_workspace(org.owner, "Kept")
    projects = [await create_project(org.owner, workspace["id"], name) for name in ("P1", "P2")]
    kept_project = await create_project(org.owner, kept["id"])
    boards = [await insert_board(org, projects[0]["id"]), await insert_board(org, projects[1]["id"])]
    kept_board = await insert_board(org, kept_project["id"])
    items = [await insert_item(org, boards[0]), await insert_item(org, boards[1])]
    kept_item = await insert_item(org, kept_board)

    deleted = await org.owner.mutate("workspaces.delete", {"id": workspace["id"]})
    assert deleted.status == 200, deleted.body
    project_ids = [p["id"] for p in projects]
    assert await count_rows(org, "workspaces", [workspace["id"]]) == 0
    assert await count_rows(org, "projects", project_ids) == 0
    assert await count_rows(org, "boards", boards) == 0
    assert await count_rows(org, "items", items) == 0
    assert await count_rows(org, "items", [kept_item]) == 1
    assert (await org.owner.query("workspaces.get", {"id": workspace["id"]})).status == 404
    assert (await org.owner.query("projects.get", {"id": project_ids[0]})).status == 404

    pool = env_of(org).pool
    org_events = await event_log.read(pool, org.id, org_stream(org.id))
    gone = [e.payload["data"]["project"]["id"] for e in org_events if e.name == "project.deleted"]
    assert sorted(gone) == sorted(project_ids)
    for board_id in boards:
        [event] = await event_log.read(pool, org.id, f"board:{board_id}")
        assert event.name == "board.deleted" and event.payload["data"]["board"]["id"] == board_id
    trail = await org.owner.query("activity.listByEntity", {"entityType": "workspace", "entityId": workspace["id"]})
    entry = trail.data["entries"][0]
    assert entry["action"] == "workspace.deleted"
    assert sorted(entry["metadata"]["boardIds"]) == sorted(boards)


async def test_another_organizations_workspace_is_not_found(org: Org) -> None:
    other = await make_org(org.owner.client)
    theirs = await create_workspace(other.owner, "Theirs")
    member_id, _ = await org.add_user("member")
    assert (await org.owner.query("workspaces.get", {"id": theirs["id"]})).status == 404
    for name, body in [("workspaces.update", {"id": theirs["id"], "name": "Ours"}),
                       ("workspaces.delete", {"id": theirs["id"]}), ("workspaces.archive", {"id": theirs["id"]}),
                       ("workspaces.restore", {"id": theirs["id"]}),
                       ("workspaces.members.add", {"workspaceId": theirs["id"], "userId": member_id}),
                       ("workspaces.members.remove", {"workspaceId": theirs["id"], "userId": other.owner_id})]:
        reply = await org.owner.mutate(name, body)
        assert reply.status == 404, (name, reply.body)
    assert await _listed(org.owner) == []
    assert (await other.owner.query("workspaces.get", {"id": theirs["id"]})).data["name"] == "Theirs"


async def test_bearer_credentials_need_their_scopes(org: Org) -> None:
    workspace = await create_workspace(org.owner)
    reader = org.owner.with_bearer((await create_token(org.owner, scopes=["read"]))["token"])
    assert (await reader.query("workspaces.list")).status == 200
    assert (await reader.mutate("workspaces.create", {"name": "No"})).status == 403
    writer = org.owner.with_bearer((await create_token(org.owner, scopes=["write"]))["token"])
    assert (await writer.mutate("workspaces.create", {"name": "Yes"})).status == 200
    assert (await writer.mutate("workspaces.delete", {"id": workspace["id"]})).status == 403

    items_key, _ = await create_key(org.owner, scopes=["write:items"])
    keyed = org.owner.with_bearer(items_key)
    assert (await keyed.query("workspaces.get", {"id": workspace["id"]})).status == 200
    assert (await keyed.mutate("workspaces.update", {"id": workspace["id"], "name": "Keyed"})).status == 200
    assert (await keyed.mutate("workspaces.delete", {"id": workspace["id"]})).status == 403
    settings_key, _ = await create_key(org.owner, scopes=["manage_settings"])
    assert (await org.owner.with_bearer(settings_key).mutate("workspaces.delete",
                                                             {"id": workspace["id"]})).status == 200
