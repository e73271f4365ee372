"""Live screens over Socket.IO and the polling feed `GET /api/v1/events`: every committed change arrives
exactly once, in seq order, also across a reconnect that resumes with `since`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import socketio

from storage import events as event_log
from tests.harness import Org, make_org
from web.keys import NODE
from web.socket_gateway import GATEWAY


async def change_role(org: Org, user_id: str, role: str) -> None:
    reply = await org.owner.mutate("organizations.members.updateRole", {"userId": user_id, "role": role})
    assert reply.status == 200, reply.body


async def toggle_roles(org: Org, user_id: str, count: int) -> None:
    for n in range(count):
        await change_role(org, user_id, "guest" if n % 2 == 0 else "member")


async def org_seq(org: Org) -> int:
    return await event_log.last_seq(org.owner.client.server.app[NODE].pool, org.id, f"org:{org.id}")


async def test_connect_without_credential_is_refused(org: Org, screens: Any) -> None:
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screens().connect(org.anonymous)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screens().connect(org.anonymous, token="svc_sk_live_" + "0" * 40)


async def test_a_member_of_another_organization_is_refused(client: Any, org: Org, screens: Any) -> None:
    other = await make_org(client)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screens().connect(other.owner.on_host(org.host))


async def test_subscribe_answers_the_current_seq(org: Org, screens: Any) -> None:
    user_id, _ = await org.add_user("member")
    await toggle_roles(org, user_id, 3)
    screen = screens()
    await screen.connect(org.owner)
    assert await screen.call("subscribe", {"room": "org"}) == {"ok": True, "seq": await org_seq(org)}


async def test_other_organizations_streams_and_unknown_rooms_are_refused(client: Any, org: Org,
                                                                          screens: Any) -> None:
    other = await make_org(client)
    screen = screens()
    await screen.connect(org.owner)
    for room in (f"org:{other.id}", "board:brd_doesnotexist000000000", "kpi:kpi_doesnotexist00000000"):
        answer = await screen.call("subscribe", {"room": room})
        assert answer["ok"] is False and answer["error"]["code"] == "NOT_FOUND", (room, answer)
    answer = await screen.call("subscribe", {"room": "everything"})
    assert answer["ok"] is False and answer["error"]["code"] == "BAD_REQUEST"
    answer = await screen.call("subscribe", {"room": "org", "since": -1})
    assert answer["ok"] is False and answer["error"]["code"] == "BAD_REQUEST"


async def test_guests_cannot_follow_organization_events(org: Org, screens: Any) -> None:
    _, guest = await org.add_user("guest")
    screen = screens()
    await screen.connect(guest)
    answer = await screen.call("subscribe", {"room": "org"})
    assert answer["ok"] is False and answer["error"]["code"] == "FORBIDDEN"


async def test_a_committed_change_arrives_live_with_its_seq(org: Org, screens: Any) -> None:
    user_id, _ = await org.add_user("member")
    screen = screens()
    await screen.connect(org.owner)
    ack = await screen.call("subscribe", {"room": "org"})
    await change_role(org, user_id, "guest")
    await screen.wait_for_seq(ack["seq"] + 1)
    [(name, payload)] = screen.received
    assert name == "member.role_changed"
    assert payload["seq"] == ack["seq"] + 1 and payload["event"] == "member.role_changed"
    assert payload["organizationId"] == org.id and payload["apiVersion"] == "v1"
    assert payload["id"].startswith("evt_")
    assert payload["data"]["userId"] == user_id
    assert payload["data"]["changes"] == {"role": {"old": "member", "new": "guest"}}
    assert payload["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}


async def test_unsubscribed_screens_stop_receiving(org: Org, screens: Any) -> None:
    user_id, _ = await org.add_user("member")
    screen, witness = screens(), screens()
    await screen.connect(org.owner)
    await witness.connect(org.owner)
    await screen.call("subscribe", {"room": "org"})
    ack = await witness.call("subscribe", {"room": "org"})
    assert await screen.call("unsubscribe", {"room": "org"}) == {"ok": True}
    await change_role(org, user_id, "guest")
    await witness.wait_for_seq(ack["seq"] + 1)
    assert screen.received == []


async def test_resuming_with_since_gets_exactly_the_missed_events_while_changes_continue(
        org: Org, screens: Any) -> None:
    user_id, _ = await org.add_user("member")
    first = screens()
    await first.connect(org.owner)
    start = (await first.call("subscribe", {"room": "org"}))["seq"]
    await toggle_roles(org, user_id, 2)
    await first.wait_for_seq(start + 2)
    last_seen = first.seqs()[-1]
    await first.close()

    await toggle_roles(org, user_id, 40)  # missed while disconnected
    writer = asyncio.create_task(toggle_roles(org, user_id, 30))  # committed during the replay
    resumed = screens()
    await resumed.connect(org.owner)
    ack = await resumed.call("subscribe", {"room": "org", "since": last_seen})
    await writer
    final = await org_seq(org)
    await resumed.wait_for_seq(final)
    assert ack["ok"] is True and last_seen + 40 <= ack["seq"] <= final
    assert resumed.seqs() == list(range(last_seen + 1, final + 1))
    assert resumed.seqs()[: ack["seq"] - last_seen] == list(range(last_seen + 1, ack["seq"] + 1))


async def test_concurrent_writers_reach_a_screen_in_seq_order(org: Org, screens: Any) -> None:
    members = [(await org.add_user("member"))[0] for _ in range(3)]
    screen = screens()
    await screen.connect(org.owner)
    start = (await screen.call("subscribe", {"room": "org"}))["seq"]
    await asyncio.gather(*(toggle_roles(org, user_id, 10) for user_id in members))
    final = await org_seq(org)
    await screen.wait_for_seq(final)
    assert screen.seqs() == list(range(start + 1, final + 1))


async def test_a_screen_too_far_behind_is_told_to_reload(org: Org, screens: Any) -> None:
    from web.socket_gateway import MAX_REPLAY

    pool = org.owner.client.server.app[NODE].pool
    async with pool.acquire() as conn, conn.transaction():
        await event_log.append(conn, org.id, f"org:{org.id}",
                               [("member.role_changed", {"event": "member.role_changed", "data": {}})]
                               * (MAX_REPLAY + 1))
    screen = screens()
    await screen.connect(org.owner)
    latest = await org_seq(org)
    answer = await screen.call("subscribe", {"room": "org", "since": latest - MAX_REPLAY - 1})
    assert answer["ok"] is False
    assert answer["error"]["code"] == "TOO_FAR_BEHIND" and answer["error"]["seq"] == latest
    answer = await screen.call("subscribe", {"room": "org", "since": latest - MAX_REPLAY})
    assert answer == {"ok": True, "seq": latest}
    assert screen.seqs() == list(range(latest - MAX_REPLAY + 1, latest + 1))


async def test_an_api_key_connects_with_auth_token(org: Org, screens: Any) -> None:
    user_id, _ = await org.add_user("member")
    reply = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "tier board", "scopes": ["read:items"]})
    assert reply.status in (200, 201), reply.body
    screen = screens()
    await screen.connect(org.owner, token=reply.data["key"], cookie=False)
    ack = await screen.call("subscribe", {"room": "org"})
    assert ack["ok"] is True
    await change_role(org, user_id, "guest")
    await screen.wait_for_seq(ack["seq"] + 1)

    members_only = await org.owner.rest("POST", "/api/v1/auth/api-keys",
                                        {"name": "members", "scopes": ["read:members"]})
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screens().connect(org.owner, token=members_only.data["key"], cookie=False)


async def test_events_feed_pages_oldest_first(org: Org) -> None:
    user_id, _ = await org.add_user("member")
    start = await org_seq(org)
    await toggle_roles(org, user_id, 5)
    stream = f"org:{org.id}"
    first = await org.owner.rest("GET", "/api/v1/events", params={"stream": stream, "since": start, "limit": 3})
    assert first.status == 200, first.body
    assert [event["seq"] for event in first.data] == [start + 1, start + 2, start + 3]
    assert first.body["meta"] == {"cursor": str(start + 3), "has_more": True, "limit": 3}
    assert first.data[0]["event"] == "member.role_changed" and first.data[0]["organizationId"] == org.id
    rest = await org.owner.rest("GET", "/api/v1/events",
                                params={"stream": stream, "cursor": first.body["meta"]["cursor"], "limit": 3})
    assert [event["seq"] for event in rest.data] == [start + 4, start + 5]
    assert rest.body["meta"] == {"cursor": None, "has_more": False, "limit": 3}

    rpc = await org.owner.query("events.list", {"stream": "org", "since": start + 3})
    assert [event["seq"] for event in rpc.data["events"]] == [start + 4, start + 5]
    assert rpc.data["nextCursor"] is None


async def test_events_feed_refuses_bad_and_foreign_streams(client: Any, org: Org) -> None:
    other = await make_org(client)
    foreign = await org.owner.rest("GET", "/api/v1/events", params={"stream": f"org:{other.id}"})
    assert foreign.status == 404
    unknown = await org.owner.rest("GET", "/api/v1/events", params={"stream": "everything"})
    assert unknown.status == 400 and unknown.error["details"][0]["field"] == "stream"
    too_many = await org.owner.rest("GET", "/api/v1/events", params={"stream": "org", "limit": 201})
    assert too_many.status == 400
    bad_cursor = await org.owner.rest("GET", "/api/v1/events", params={"stream": "org", "cursor": "abc"})
    assert bad_cursor.status == 400
    missing = await org.owner.rest("GET", "/api/v1/events")
    assert missing.status == 422 and missing.error["details"][0]["field"] == "stream"
    anonymous = await org.anonymous.rest("GET", "/api/v1/events", params={"stream": "org"})
    assert anonymous.status == 401


async def test_a_connect_during_a_database_outage_is_refused_503_and_leaves_nothing(
        client: Any, org: Org, screens: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    events = client.server.app[NODE].events

    async def away(*args: Any) -> Any:
        raise OSError("the database is away")

    monkeypatch.setattr(events, "last_seq", away)
    screen, reasons = screens(), []
    screen.client.on("connect_error", reasons.append)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screen.connect(org.owner)
    assert reasons, "left to time out instead of refused"
    assert reasons[0].get("data", reasons[0])["code"] == "SERVICE_UNAVAILABLE", reasons
    gateway = client.server.app[GATEWAY]
    assert gateway._connections == {} and gateway._rooms == {}
