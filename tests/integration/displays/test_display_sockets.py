"""A display on the live connection: it connects with its secret, follows its own board's room and no other, its
sockets count as its own and not its creator's, and when it is revoked each of its sockets is told
`display.revoked` and disconnected, and connecting again is refused UNAUTHORIZED."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import socketio

from tests.conftest import server_settings
from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.displays.conftest import Display, create_display
from tests.integration.live.conftest import WAIT, Screen

PER_USER = 2


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> Any:
    return server_settings(request, OBEYA_SOCKET_MAX_PER_USER=str(PER_USER))


async def connect(screen: Screen, display: Display) -> None:
    await screen.connect(display.api, token=display.secret, cookie=False)


def disconnected(screen: Screen) -> asyncio.Future[None]:
    """Resolved when the server closes the screen's connection."""
    closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    screen.client.on("disconnect", lambda *reason: closed.done() or closed.set_result(None))
    return closed


async def refusal(screen: Screen, display: Display) -> Any:
    """The `connect_error` data of a connection the server refuses."""
    refused: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    screen.client.on("connect_error", lambda data: refused.done() or refused.set_result(data))
    with pytest.raises(socketio.exceptions.ConnectionError):
        await connect(screen, display)
    return await asyncio.wait_for(refused, WAIT)


async def test_a_display_follows_its_boards_room_and_no_other(org: Org, board: Board, screens: Any) -> None:
    other = await make_board(org)
    display = await create_display(board)
    screen = screens()
    await connect(screen, display)

    for room in (f"board:{other.id}", "user", "org", f"user:{org.owner_id}"):
        refused = await screen.call("subscribe", {"room": room})
        assert refused["ok"] is False and refused["error"]["code"] == "NOT_FOUND", (room, refused)
    joined = await screen.call("subscribe", {"room": f"board:{board.id}"})
    assert joined["ok"] is True, joined

    await other.add_item("Elsewhere")
    item = await board.add_item("Here")
    created = await screen.wait_for_event("item.created")
    assert created["data"]["item"]["id"] == item["id"], created
    # Its creator's notifications are not the wall's: it was never in the private room.
    assert [name for name, _ in screen.received] == ["item.created"]


async def test_a_displays_sockets_are_counted_apart_from_its_creators(org: Org, board: Board, screens: Any) -> None:
    for _ in range(PER_USER):
        await screens().connect(org.owner)
    first, second = await create_display(board, "Wall"), await create_display(board, "Office")

    for _ in range(PER_USER):
        await connect(screens(), first)  # the owner's sockets are full: the display's are not the owner's
    error = await refusal(screens(), first)
    assert error["data"]["code"] == "TOO_MANY_REQUESTS", error
    await connect(screens(), second)  # nor one display's another's


async def test_revoking_tells_each_socket_and_closes_it_and_it_cannot_come_back(
        org: Org, board: Board, screens: Any) -> None:
    display = await create_display(board)
    walls = [screens(), screens()]
    for wall in walls:
        await connect(wall, display)
        assert (await wall.call("subscribe", {"room": f"board:{board.id}"}))["ok"] is True
    closed = [disconnected(wall) for wall in walls]

    revoked = await org.owner.mutate("displays.revoke", {"id": display.id})
    assert revoked.status == 200, revoked.body

    for wall, gone in zip(walls, closed, strict=True):
        told = await wall.wait_for_event("display.revoked")
        assert told == {"id": display.id}
        await asyncio.wait_for(gone, WAIT)
        assert not wall.client.connected
    error = await refusal(screens(), display)
    assert error["data"]["code"] == "UNAUTHORIZED", error
