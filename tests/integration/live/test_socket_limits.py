"""Socket.IO limits (issue 10): connections per user and per address are capped at connect, client events
take tokens from the user's bucket (the plan's HTTP rate), a socket that floods is disconnected, and a
socket follows a bounded number of rooms. Nobody else's sockets are slowed."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import socketio

import web.socket_gateway
from tests.conftest import server_settings
from tests.harness import Org, make_org
from tests.integration.live.conftest import WAIT, Screen
from web.socket_limits import FLOOD_STRIKES, RATE_LIMITED

PER_USER = 3
PER_ADDRESS = 5


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> Any:
    return server_settings(request, OBEYA_SOCKET_MAX_PER_USER=str(PER_USER),
                           OBEYA_SOCKET_MAX_PER_ADDRESS=str(PER_ADDRESS))


async def refusal(screen: Screen, api: Any) -> Any:
    """What a client sees of a connection the server refuses: `connect_error` with the message and the
    error's data (Socket.IO's `err.message` and `err.data`)."""
    refused: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    screen.client.on("connect_error", lambda data: refused.done() or refused.set_result(data))
    with pytest.raises(socketio.exceptions.ConnectionError):
        await screen.connect(api)
    return await asyncio.wait_for(refused, WAIT)


async def test_the_connection_past_the_users_limit_is_refused_with_the_reason(org: Org, screens: Any) -> None:
    opened = [screens() for _ in range(PER_USER)]
    for screen in opened:
        await screen.connect(org.owner)
    error = await refusal(screens(), org.owner)
    assert f"at most {PER_USER} live connections per user" in error["message"]
    assert error["data"]["code"] == "TOO_MANY_REQUESTS" and error["data"]["limit"] == PER_USER
    _, member = await org.add_user("member")
    await screens().connect(member)  # another user of the same organization is not affected
    await opened[0].close()
    await screens().connect(org.owner)  # a closed connection frees its place


async def test_connections_past_the_address_limit_are_refused(org: Org, screens: Any) -> None:
    users = [org.owner] + [(await org.add_user("member"))[1] for _ in range(PER_ADDRESS // PER_USER + 1)]
    connected = 0
    for api in users:
        for _ in range(min(PER_USER, PER_ADDRESS - connected)):
            await screens().connect(api)
            connected += 1
    assert connected == PER_ADDRESS
    error = await refusal(screens(), users[-1])
    assert error["data"]["code"] == "TOO_MANY_REQUESTS" and "from one address" in error["message"]


async def test_a_subscribe_flood_is_refused_then_disconnected_and_others_keep_their_events(
        clocked_client: Any, clock: Any, screens: Any) -> None:
    org = await make_org(clocked_client, plan="free")  # 60 requests a minute, 1 a second
    member_id, member = await org.add_user("member")
    watcher = screens()
    await watcher.connect(member)
    start = (await watcher.call("subscribe", {"room": "org"}))["seq"]

    flooder = screens()
    await flooder.connect(org.owner)
    answers: list[Any] = []
    sent = 10_000
    for n in range(sent):
        if not flooder.client.connected:
            break
        await flooder.client.emit("subscribe", {"room": "org"}, callback=answers.append)
        if n % 50 == 0:
            await asyncio.sleep(0)  # the client's own loop (shared with the server in this test) breathes
    kicked = await flooder.wait_for_event(RATE_LIMITED)
    assert kicked["error"]["code"] == "TOO_MANY_REQUESTS"
    await asyncio.wait_for(flooder.client.wait(), WAIT)  # disconnected by the server
    accepted = [a for a in answers if a["ok"]]
    refused = [a for a in answers if not a["ok"]]
    assert len(accepted) == 60  # the free plan's bucket
    assert refused and all(a["error"]["code"] == "TOO_MANY_REQUESTS" and a["error"]["retryAfter"] > 0
                           for a in refused)
    assert len(answers) < sent  # the rest was never handled: the socket was cut after FLOOD_STRIKES refusals
    assert len(refused) >= FLOOD_STRIKES
    again = screens()
    await again.connect(org.owner)
    assert (await again.call("subscribe", {"room": "org"}))["error"]["code"] == "TOO_MANY_REQUESTS"
    clock.advance(1.0)  # the bucket refills at the plan's rate
    assert (await again.call("subscribe", {"room": "org"}))["ok"] is True

    # The flood cost others nothing: the watcher gets the next event live.
    reply = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "admin"})
    assert reply.status == 200, reply.body
    await watcher.wait_for_seq(start + 1)


async def test_unknown_events_are_answered_and_counted(clocked_client: Any, screens: Any) -> None:
    org = await make_org(clocked_client, plan="free")
    screen = screens()
    await screen.connect(org.owner)
    answer = await screen.call("hello", {"x": 1})
    assert answer["ok"] is False and answer["error"]["code"] == "BAD_REQUEST" and "hello" in answer["error"]["message"]
    for _ in range(58):
        await screen.client.emit("hello", {})
    assert (await screen.call("subscribe", {"room": "org"}))["ok"] is True  # the 60th event of the minute
    answer = await screen.call("subscribe", {"room": "org"})
    assert answer["ok"] is False and answer["error"]["code"] == "TOO_MANY_REQUESTS"


async def test_a_socket_follows_a_bounded_number_of_rooms(org: Org, screens: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web.socket_gateway, "MAX_ROOMS", 1)
    screen = screens()
    await screen.connect(org.owner)  # its private room is the one
    answer = await screen.call("subscribe", {"room": "org"})
    assert answer["ok"] is False and answer["error"]["code"] == "TOO_MANY_ROOMS" and answer["error"]["limit"] == 1
    assert (await screen.call("subscribe", {"room": "user"}))["ok"] is True  # one it follows: still fine
    assert await screen.call("unsubscribe", {"room": "user"}) == {"ok": True}
    assert (await screen.call("subscribe", {"room": "org"}))["ok"] is True


async def test_malformed_packets_are_answered_or_dropped_and_the_socket_goes_on(org: Org, screens: Any) -> None:
    screen = screens()
    await screen.connect(org.owner)
    answer = await screen.client.call("subscribe", ({"room": "org"}, 1, 2), timeout=WAIT)
    assert answer["ok"] is False and answer["error"]["code"] == "BAD_REQUEST"
    for payload in ("org", ["org"], 12, True, b"\x00binary"):
        answer = await screen.call("subscribe", payload)
        assert answer == {"ok": False, "error": {"code": "BAD_REQUEST", "message": "input must be a JSON object"}}
    # A packet announcing a billion binary attachments: refused, so later messages are packets again (and not
    # held in memory as attachments).
    await screen.client.eio.send('51000000000-["subscribe",{"room":"org"}]')  # BINARY_EVENT, 10^9 attachments
    assert (await screen.call("subscribe", {"room": "org"}))["ok"] is True


async def test_an_oversized_message_closes_the_socket(org: Org, screens: Any) -> None:
    screen = screens()
    await screen.connect(org.owner)
    await screen.client.emit("subscribe", {"room": "x" * 100_000})
    await asyncio.wait_for(screen.client.wait(), WAIT)  # disconnected by the server


async def test_a_packet_that_is_not_json_or_nests_too_deeply_is_answered_without_a_traceback(
        org: Org, screens: Any, caplog: pytest.LogCaptureFixture) -> None:
    screen = screens()
    await screen.connect(org.owner)
    caplog.set_level(logging.ERROR)
    deep = "[" * 5000 + "]" * 5000  # past what the JSON decoder reads: a RecursionError inside python-socketio
    # Acknowledgement ids the client's own calls do not use, so their answers do not stand for the last one's.
    for packet in (f'2901["subscribe",{deep}]', '2902["subscribe",{"room":', '2903["subscribe",{"room":"org","x":'
                   + "[" * 100 + "]" * 100 + "}]", '4{"message":"x"}', '9'):
        await screen.client.eio.send(packet)
    answer = await screen.call("subscribe", {"room": "org"})
    assert answer["ok"] is True, answer
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
