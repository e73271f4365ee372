"""Organization settings, the member list, invitations by e-mail, and the role rules."""

from __future__ import annotations

import re

from actors.kernel import sealing
from tests.harness import PASSWORD, Org, make_org
from web.keys import NODE


async def _invitation_token(org: Org, email: str) -> str:
    node = org.owner.client.server.app[NODE]
    sealed = await node.pool.fetchval(
        "SELECT sealed_body FROM emails WHERE recipient = $1 ORDER BY created_at DESC LIMIT 1", email)
    body = await sealing.open_sealed(node.pool, sealed, node.settings.secret_key)  # the text the mail sender would send
    match = re.search(r"Invitation token: (\S+)", body)
    assert match, body
    return match.group(1)


async def test_get_and_update_settings(org: Org) -> None:
    got = await org.owner.query("organizations.get")
    assert got.status == 200
    assert got.data["slug"] == org.slug and got.data["plan"] == "business"
    assert set(got.data) == {"id", "name", "slug", "logo", "timezone", "dateFormat", "weekStart", "language",
                             "plan", "createdAt", "updatedAt"}
    updated = await org.owner.mutate("organizations.update", {"name": "Acme Plant 2", "timezone": "Europe/Paris",
                                                              "dateFormat": "DD/MM/YYYY", "weekStart": "monday"})
    assert updated.status == 200, updated.body
    assert updated.data["name"] == "Acme Plant 2" and "updatedAt" in updated.data
    again = await org.owner.query("organizations.get")
    assert (again.data["timezone"], again.data["dateFormat"]) == ("Europe/Paris", "DD/MM/YYYY")
    bad = await org.owner.mutate("organizations.update", {"timezone": "Mars/Olympus", "dateFormat": "YY"})
    assert bad.status == 400
    assert {d["field"] for d in bad.error["data"]["details"]} == {"dateFormat"}
    bad_zone = await org.owner.mutate("organizations.update", {"timezone": "Mars/Olympus"})
    assert bad_zone.status == 400 and bad_zone.error["data"]["details"][0]["field"] == "timezone"


async def test_member_cannot_update_settings(org: Org) -> None:
    _, member = await org.add_user("member")
    assert (await member.query("organizations.get")).status == 200
    assert (await member.mutate("organizations.update", {"name": "Mine Now"})).status == 403


async def test_invite_accept_and_list(org: Org) -> None:
    invited = await org.owner.mutate("organizations.members.invite",
                                     {"email": "newbie@example.test", "role": "member", "workspaceIds": []})
    assert invited.status == 200, invited.body
    assert invited.data["status"] == "pending" and invited.data["email"] == "newbie@example.test"
    pending = await org.owner.query("organizations.members.list", {"status": "pending"})
    assert [m["email"] for m in pending.data["members"]] == ["newbie@example.test"]

    token = await _invitation_token(org, "newbie@example.test")
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token, "name": "New Bie", "password": PASSWORD})
    assert accepted.status == 200, accepted.body
    assert "authjs.session-token=" in accepted.headers["Set-Cookie"]
    reused = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                      {"token": token, "name": "New Bie", "password": PASSWORD})
    assert reused.status == 404

    members = await org.owner.query("organizations.members.list")
    by_email = {m["email"]: m for m in members.data["members"]}
    assert by_email["newbie@example.test"]["status"] == "active"
    assert by_email["newbie@example.test"]["role"] == "member"
    assert by_email[org.owner_email]["role"] == "owner"
    again = await org.owner.mutate("organizations.members.invite", {"email": "NEWBIE@example.test"})
    assert again.status == 409


async def test_members_list_pages_and_filters(org: Org) -> None:
    for _ in range(3):
        await org.add_user("guest")
    first = await org.owner.query("organizations.members.list", {"limit": 2})
    assert len(first.data["members"]) == 2 and first.data["nextCursor"]
    rest = await org.owner.query("organizations.members.list", {"limit": 2, "cursor": first.data["nextCursor"]})
    emails = [m["email"] for m in first.data["members"] + rest.data["members"]]
    assert len(emails) == 4 and len(set(emails)) == 4
    guests = await org.owner.query("organizations.members.list", {"role": "guest"})
    assert len(guests.data["members"]) == 3
    found = await org.owner.query("organizations.members.list", {"search": "Olga"})
    assert [m["email"] for m in found.data["members"]] == [org.owner_email]
    assert (await org.owner.query("organizations.members.list", {"limit": 201})).status == 400
    assert (await org.owner.query("organizations.members.list", {"cursor": "garbage!"})).status == 400


async def test_role_rules(org: Org) -> None:
    admin_id, admin = await org.add_user("admin")
    member_id, _ = await org.add_user("member")
    other_admin_id, _ = await org.add_user("admin")
    # The owner's role cannot be changed, by anyone.
    assert (await admin.mutate("organizations.members.updateRole",
                               {"userId": org.owner_id, "role": "member"})).status == 403
    assert (await org.owner.mutate("organizations.members.updateRole",
                                   {"userId": org.owner_id, "role": "admin"})).status == 403
    # Only the owner promotes to admin; admins set member or guest.
    assert (await admin.mutate("organizations.members.updateRole",
                               {"userId": member_id, "role": "admin"})).status == 403
    assert (await admin.mutate("organizations.members.updateRole",
                               {"userId": member_id, "role": "guest"})).status == 200
    assert (await admin.mutate("organizations.members.updateRole",
                               {"userId": other_admin_id, "role": "member"})).status == 403
    promoted = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "admin"})
    assert promoted.status == 200
    listed = await org.owner.query("organizations.members.list", {"role": "admin"})
    assert {m["id"] for m in listed.data["members"]} == {admin_id, member_id, other_admin_id}
    assert (await admin.mutate("organizations.members.invite", {"email": "boss@x.test", "role": "admin"})).status == 403


async def test_remove_member(org: Org) -> None:
    member_id, member = await org.add_user("member")
    keeper_id, _ = await org.add_user("member")
    assert (await org.owner.mutate("organizations.members.remove", {"userId": org.owner_id})).status == 403
    bad = await org.owner.mutate("organizations.members.remove", {"userId": member_id, "reassignTo": "usr_nobody"})
    assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == "reassignTo"
    removed = await org.owner.mutate("organizations.members.remove", {"userId": member_id, "reassignTo": keeper_id})
    assert removed.status == 200 and removed.data == {"success": True, "id": member_id, "reassignedItems": 0}
    assert (await member.query("organizations.get")).status == 403
    assert (await org.owner.mutate("organizations.members.remove", {"userId": member_id})).status == 404


async def test_only_the_owner_removes_an_admin(org: Org) -> None:
    admin_id, admin = await org.add_user("admin")
    other_admin_id, other_admin = await org.add_user("admin")
    member_id, _ = await org.add_user("member")
    # An admin may not change another admin's role, so it may not remove that admin either.
    refused = await admin.mutate("organizations.members.remove", {"userId": other_admin_id})
    assert refused.status == 403 and "owner" in refused.error["message"]
    assert (await other_admin.query("organizations.get")).status == 200  # still a member
    # An admin still removes members; the owner removes admins.
    assert (await admin.mutate("organizations.members.remove", {"userId": member_id})).status == 200
    removed = await org.owner.mutate("organizations.members.remove", {"userId": other_admin_id})
    assert removed.status == 200 and removed.data["id"] == other_admin_id
    assert (await other_admin.query("organizations.get")).status == 403


async def test_member_events_are_logged(org: Org) -> None:
    member_id, _ = await org.add_user("member")
    await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "guest"})
    node = org.owner.client.server.app[NODE]
    rows = await node.pool.fetch("SELECT name, seq, payload FROM events WHERE stream = $1 ORDER BY seq",
                                f"org:{org.id}")
    assert [r["name"] for r in rows] == ["member.role_changed"]
    payload = rows[0]["payload"]
    assert payload["apiVersion"] == "v1" and payload["organizationId"] == org.id
    assert payload["data"]["changes"] == {"role": {"old": "member", "new": "guest"}}
    assert payload["data"]["actor"]["id"] == org.owner_id


async def test_seat_limit_on_free_plan(client: object) -> None:
    free = await make_org(client, plan="free")  # type: ignore[arg-type]
    for index in range(2):
        assert (await free.owner.mutate("organizations.members.invite", {"email": f"p{index}@x.test"})).status == 200
    full = await free.owner.mutate("organizations.members.invite", {"email": "p3@x.test"})
    assert full.status == 403


async def test_invitation_joins_the_named_workspaces(org: Org) -> None:
    workspace = await org.owner.mutate("workspaces.create", {"name": "Night shift", "visibility": "closed"})
    unknown = await org.owner.mutate("organizations.members.invite",
                                     {"email": "x@example.test", "workspaceIds": ["wsp_nope"]})
    assert unknown.status == 404 and unknown.error["data"]["details"][0]["field"] == "workspaceIds.0"
    await org.owner.mutate("organizations.members.invite",
                           {"email": "nights@example.test", "workspaceIds": [workspace.data["id"]]})
    token = await _invitation_token(org, "nights@example.test")
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token, "name": "Nia Nights", "password": PASSWORD})
    assert accepted.status == 200
    detail = await org.owner.query("workspaces.get", {"id": workspace.data["id"]})
    assert accepted.data["id"] in [m["userId"] for m in detail.data["members"]]


async def test_removed_members_items_move_to_reassign_to(org: Org) -> None:
    from tests.integration.boards.conftest import make_board

    leaver_id, _ = await org.add_user("member")
    keeper_id, _ = await org.add_user("member")
    board = await make_board(org)
    owner_column = board.column("people")["id"]
    mine = await board.add_item("Leaver's job", values={owner_column: [leaver_id, keeper_id]})
    other = await board.add_item("Someone else's", values={owner_column: [org.owner_id]})
    removed = await org.owner.mutate("organizations.members.remove", {"userId": leaver_id, "reassignTo": keeper_id})
    assert removed.status == 200 and removed.data["reassignedItems"] == 1
    assert (await board.api.query("items.get", {"id": mine["id"]})).data["values"][owner_column] == [keeper_id]
    assert (await board.api.query("items.get", {"id": other["id"]})).data["values"][owner_column] == [org.owner_id]


async def test_a_demotion_takes_effect_on_the_next_request(org: Org) -> None:
    admin_id, admin = await org.add_user("admin")
    assert (await admin.mutate("organizations.update", {"name": "Admin Was Here"})).status == 200
    demoted = await org.owner.mutate("organizations.members.updateRole", {"userId": admin_id, "role": "member"})
    assert demoted.status == 200
    assert (await admin.mutate("organizations.update", {"name": "Not Any More"})).status == 403
