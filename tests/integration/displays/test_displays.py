"""Display links: an admin creates, reads, lists and revokes them; the secret is shown once, in the link's url;
the link is a bearer credential that stops at once when revoked."""

from __future__ import annotations

import re

from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.displays.conftest import create_display


async def test_an_admin_creates_a_display_whose_url_holds_the_secret_once(org: Org, board: Board) -> None:
    reply = await org.owner.mutate("displays.create", {"name": "Line A wall", "boardId": board.id})

    assert reply.status == 200, reply.body
    created = reply.data
    assert set(created) == {"id", "name", "boardId", "url", "createdAt"}
    assert created["name"] == "Line A wall" and created["boardId"] == board.id
    match = re.fullmatch(r"http://(?P<host>[^/]+)/screens/(?P<id>[^#]+)#(?P<secret>.+)", created["url"])
    assert match is not None, created["url"]
    assert match["host"].startswith(f"{org.slug}.") and match["id"] == created["id"]
    assert re.fullmatch(r"svc_dsp_[0-9a-f]{40}", match["secret"])

    got = await org.owner.query("displays.get", {"id": created["id"]})
    listed = await org.owner.query("displays.list", {})
    assert got.status == 200 and listed.status == 200
    assert got.data == {"id": created["id"], "name": "Line A wall", "boardId": board.id,
                        "createdAt": created["createdAt"], "lastSeenAt": None, "revokedAt": None}
    assert listed.data == {"displays": [got.data]}
    assert match["secret"] not in got.body.__repr__() + listed.body.__repr__()


async def test_the_list_is_newest_first_and_filters_by_board(org: Org, board: Board) -> None:
    other = await make_board(org)
    first = await create_display(board, "First")
    second = await create_display(other, "Second")
    third = await create_display(board, "Third")

    everything = await org.owner.query("displays.list", {})
    of_board = await org.owner.query("displays.list", {"boardId": board.id})

    assert [d["id"] for d in everything.data["displays"]] == [third.id, second.id, first.id]
    assert [d["id"] for d in of_board.data["displays"]] == [third.id, first.id]


async def test_a_member_may_not_manage_displays(org: Org, board: Board) -> None:
    display = await create_display(board)
    _, member = await org.add_user("member")

    for name, data, call in (("displays.create", {"name": "Wall", "boardId": board.id}, member.mutate),
                             ("displays.list", {}, member.query),
                             ("displays.get", {"id": display.id}, member.query),
                             ("displays.revoke", {"id": display.id}, member.mutate)):
        reply = await call(name, data)
        assert reply.status == 403, (name, reply.body)
        assert reply.error["json"]["message"] == "needs the admin role or higher", (name, reply.body)


async def test_a_key_or_a_token_may_not_create_a_display(org: Org, board: Board) -> None:
    key = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "CI", "scopes": ["manage_settings"]})
    token = await org.owner.rest("POST", "/api/auth/tokens", {"json": {"name": "script", "scopes": ["admin"]}})
    assert key.status == 201 and token.status == 200, (key.body, token.body)

    for secret in (key.data["key"], token.data["token"]):
        reply = await org.owner.with_bearer(secret).mutate("displays.create", {"name": "Wall", "boardId": board.id})
        assert reply.status == 403, reply.body
        assert "signed-in session" in reply.error["json"]["message"]


async def test_creating_for_a_board_not_in_the_organization_is_404(org: Org, board: Board) -> None:
    from tests.harness import make_org

    elsewhere = await make_board(await make_org(org.owner.client))

    reply = await org.owner.mutate("displays.create", {"name": "Wall", "boardId": elsewhere.id})

    assert reply.status == 404, reply.body
    assert reply.error["json"]["message"] == "board not found"


async def test_bad_input_names_the_field(org: Org, board: Board) -> None:
    for data, field in (({"name": "", "boardId": board.id}, "name"), ({"name": "x" * 101, "boardId": board.id}, "name"),
                        ({"name": "Wall"}, "boardId"), ({"name": 3, "boardId": board.id}, "name")):
        reply = await org.owner.mutate("displays.create", data)
        assert reply.status == 400, reply.body
        assert [detail["field"] for detail in reply.error["data"]["details"]] == [field], (data, reply.body)
    missing = await org.owner.query("displays.get", {})
    assert missing.status == 400 and missing.error["data"]["details"][0]["field"] == "id", missing.body
    listed = await org.owner.query("displays.list", {"boardId": 7})
    assert listed.status == 400 and listed.error["data"]["details"][0]["field"] == "boardId", listed.body


async def test_the_secret_is_a_bearer_credential_until_revoked(org: Org, board: Board) -> None:
    display = await create_display(board)

    itself = await display.api.query("displays.get", {"id": display.id})
    assert itself.status == 200, itself.body
    assert itself.data["boardId"] == board.id

    revoked = await org.owner.mutate("displays.revoke", {"id": display.id})
    assert revoked.status == 200 and revoked.data == {"success": True, "id": display.id}, revoked.body
    after = await display.api.query("displays.get", {"id": display.id})
    assert after.status == 401, after.body
    again = await org.owner.mutate("displays.revoke", {"id": display.id})
    assert again.status == 200, again.body
    listed = await org.owner.query("displays.get", {"id": display.id})
    assert listed.data["revokedAt"] is not None


async def test_revoking_an_unknown_display_is_404(org: Org) -> None:
    reply = await org.owner.mutate("displays.revoke", {"id": "dsp_unknown"})
    assert reply.status == 404, reply.body
    assert reply.error["json"]["message"] == "display not found"
