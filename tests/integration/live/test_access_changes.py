"""Sockets follow access changes: a removed member, a revoked key or a logged-out session stops receiving
board and organization events at once (the socket is told why and disconnected); a member made guest
leaves the organization room only; a member whose change keeps their access misses nothing. "Not
received" is proved by a later event that a still-authorized witness does receive."""

from __future__ import annotations

from typing import Any

from actors.kernel.membership_cache import forget_member
from actors.runtime.bus import AccessChange
from storage import accounts as accounts_repo
from storage import events as event_log
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen
from web.keys import NODE
from web.socket_gateway import GATEWAY


async def follow(screen: Screen, rooms: list[str]) -> dict[str, int]:
    acks = {}
    for room in rooms:
        ack = await screen.call("subscribe", {"room": room})
        assert ack["ok"] is True, ack
        acks[room] = ack["seq"]
    return acks


async def later_changes(org: Org, board: Board, user_id: str, witness: Screen) -> None:
    """Commit a board event and an organization event after the access change; return once the witness
    (still authorized, subscribed to both) got both: anything the screen under test would get, it got."""
    await board.add_item("Later change")
    role = await org.owner.mutate("organizations.members.updateRole", {"userId": user_id, "role": "guest"})
    assert role.status == 200, role.body
    await witness.wait_for_event("item.created")
    await witness.wait_for_event("member.role_changed")


async def test_a_removed_member_stops_receiving_board_and_organization_events(org: Org, screens: Any) -> None:
    board = await make_board(org)
    member_id, member = await org.add_user("member")
    bystander_id, _ = await org.add_user("member")
    screen, witness = screens(), screens()
    await screen.connect(member)
    await witness.connect(org.owner)
    rooms = [f"board:{board.id}", "org"]
    await follow(screen, rooms)
    await follow(witness, rooms)

    removed = await org.owner.mutate("organizations.members.remove", {"userId": member_id})
    assert removed.status == 200, removed.body
    await later_changes(org, board, bystander_id, witness)

    revoked = await screen.wait_for_event("access.revoked")
    assert revoked["room"] is None and revoked["error"]["code"] in ("UNAUTHORIZED", "FORBIDDEN")
    assert [event for event, _ in screen.received] == ["access.revoked"]  # not even its own removal


async def test_a_revoked_api_key_stops_receiving_at_once(org: Org, screens: Any) -> None:
    board = await make_board(org)
    bystander_id, _ = await org.add_user("member")
    key = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "tier board", "scopes": ["read:items"]})
    assert key.status in (200, 201), key.body
    screen, witness = screens(), screens()
    await screen.connect(org.owner, token=key.data["key"], cookie=False)
    await witness.connect(org.owner)
    rooms = [f"board:{board.id}", "org"]
    await follow(screen, rooms)
    await follow(witness, rooms)

    revoked = await org.owner.mutate("apiKeys.revoke", {"id": key.data["apiKey"]["id"]})
    assert revoked.status == 200, revoked.body
    await later_changes(org, board, bystander_id, witness)

    reason = await screen.wait_for_event("access.revoked")
    assert reason["room"] is None and reason["error"]["code"] == "UNAUTHORIZED"
    assert [event for event, _ in screen.received] == ["access.revoked"]


async def test_a_logged_out_session_stops_receiving(org: Org, screens: Any) -> None:
    board = await make_board(org)
    bystander_id, _ = await org.add_user("member")
    _, member = await org.add_user("member")
    screen, witness = screens(), screens()
    await screen.connect(member)
    await witness.connect(org.owner)
    rooms = [f"board:{board.id}", "org"]
    await follow(screen, rooms)
    await follow(witness, rooms)

    logout = await member.rest("POST", "/api/v1/auth/logout", {})
    assert logout.status in (200, 204), logout.body
    await later_changes(org, board, bystander_id, witness)

    reason = await screen.wait_for_event("access.revoked")
    assert reason["room"] is None
    assert [event for event, _ in screen.received] == ["access.revoked"]


async def test_a_member_made_guest_leaves_the_organization_room_only(org: Org, screens: Any) -> None:
    board = await make_board(org)
    member_id, member = await org.add_user("member")
    screen, witness = screens(), screens()
    await screen.connect(member)
    await witness.connect(org.owner)
    await follow(screen, ["org"])
    await follow(witness, ["org"])

    demoted = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "guest"})
    assert demoted.status == 200, demoted.body
    reason = await screen.wait_for_event("access.revoked")
    assert reason["room"] == "org" and reason["error"]["code"] == "FORBIDDEN"
    promoted = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "member"})
    assert promoted.status == 200, promoted.body
    await witness.wait_for_seq(await org_seq(org))
    # The promotion's re-check of the screen's socket may still run when the witness has the event.
    await org.owner.client.server.app[GATEWAY].settled()

    assert [event for event, _ in screen.received] == ["access.revoked"]
    # Still connected, and may follow the organization again now that it is a member once more.
    assert (await screen.call("subscribe", {"room": "org"}))["ok"] is True
    assert board.id  # the board room was never asked for: nothing else to check


async def test_a_change_that_keeps_access_misses_nothing(org: Org, screens: Any) -> None:
    member_id, member = await org.add_user("member")
    screen = screens()
    await screen.connect(member)
    start = (await screen.call("subscribe", {"room": "org"}))["seq"]
    for role in ("admin", "member", "admin"):
        reply = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": role})
        assert reply.status == 200, reply.body
    final = await org_seq(org)
    await screen.wait_for_seq(final)
    assert screen.seqs() == list(range(start + 1, final + 1))  # held and released: no gap, no duplicate


async def test_a_user_of_two_organizations_gets_each_notification_once_on_each_host(
        client: Any, org: Org, screens: Any) -> None:
    other = await make_org(client)
    member_id, member = await org.add_user("member")
    node = client.server.app[NODE]
    await accounts_repo.insert_membership(node.pool, other.id, member_id, "member")
    forget_member(node, other.id, member_id)
    here, there = screens(), screens()
    await here.connect(member)
    await there.connect(member.on_host(other.host))

    for organization in (org, other) * 3:
        board = await make_board(organization)
        item = await board.add_item("Check die 12")
        comment = await organization.owner.mutate("comments.create", {"itemId": item["id"],
                                                                      "body": f"@{member_id} please check"})
        assert comment.status == 200, comment.body
    for screen in (here, there):
        await screen.wait_for(lambda screen=screen: len(screen.events("notification.created")) >= 3)
    await client.server.app[GATEWAY].settled()  # everything published has been delivered
    for screen, organization in ((here, org), (there, other)):
        received = screen.events("notification.created")
        assert [n["organizationId"] for n in received] == [organization.id] * 3
        assert len({n["id"] for n in received}) == 3, received
        assert [name for name, _ in screen.received] == ["notification.created"] * 3


async def org_seq(org: Org) -> int:
    return await event_log.last_seq(org.owner.client.server.app[NODE].pool, org.id, f"org:{org.id}")


async def test_a_socket_held_by_a_check_that_failed_goes_on_within_the_safety_net(
        client: Any, org: Org, screens: Any, monkeypatch: Any) -> None:
    """The database is away while a role change is re-checked: the socket is not held for good, the next
    round of the safety net lets it go on from where it stopped, with nothing missed."""
    member_id, member = await org.add_user("member")
    screen = screens()
    await screen.connect(member)
    start = (await screen.call("subscribe", {"room": "org"}))["seq"]
    gateway = client.server.app[GATEWAY]
    admit = gateway._admit
    failures = []

    async def away_once(*args: Any) -> Any:
        if not failures:
            failures.append(args)
            raise OSError("the database is away")
        return await admit(*args)

    monkeypatch.setattr(gateway, "_admit", away_once)
    reply = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "admin"})
    assert reply.status == 200, reply.body
    final = await org_seq(org)
    await screen.wait_for_seq(final)
    assert failures, "the access check never ran"
    assert screen.seqs() == list(range(start + 1, final + 1))


async def test_a_replay_that_failed_goes_on_within_the_safety_net(
        client: Any, org: Org, screens: Any, monkeypatch: Any) -> None:
    """The log cannot be read when a held socket's replay starts: the replay starts again on the safety
    net's next round instead of leaving the socket skipped by every broadcast."""
    member_id, member = await org.add_user("member")
    screen = screens()
    await screen.connect(member)
    start = (await screen.call("subscribe", {"room": "org"}))["seq"]
    events = client.server.app[NODE].events
    read = events.read
    failures = []

    async def away_once(*args: Any) -> Any:
        if not failures:
            failures.append(args)
            raise OSError("the database is away")
        return await read(*args)

    monkeypatch.setattr(events, "read", away_once)
    gateway = client.server.app[GATEWAY]
    gateway._access_changed(AccessChange(organization_id=org.id, user_id=member_id))  # held: replays on release
    await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "admin"})
    final = await org_seq(org)
    await screen.wait_for_seq(final)
    assert failures, "no replay ran"
    assert screen.seqs() == list(range(start + 1, final + 1))


async def test_a_subscribe_that_cannot_read_the_log_is_answered_503(
        client: Any, org: Org, screens: Any, monkeypatch: Any) -> None:
    board = await make_board(org)
    screen = screens()
    await screen.connect(org.owner)
    events = client.server.app[NODE].events

    async def away(*args: Any) -> Any:
        raise OSError("the database is away")

    monkeypatch.setattr(events, "last_seq", away)
    reply = await screen.call("subscribe", {"room": f"board:{board.id}"})
    assert reply == {"ok": False, "error": {"code": "SERVICE_UNAVAILABLE",
                                            "message": "the database is unavailable; retry"}}
