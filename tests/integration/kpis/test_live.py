"""A KPI followed live over Socket.IO: a screen subscribed to `kpi:<id>` and one subscribed to the KPI's board
both receive `kpi.value_entered` (and a breach's `kpi.target_breached`) with the webhook payload and their
stream's seq; `kpi:<id>` is refused as not found to whoever may not see the KPI's board."""

from __future__ import annotations

from typing import Any

from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.kpis.conftest import define, set_value
from tests.integration.live.conftest import Screen


async def received(screen: Screen, last_seq: int) -> list[tuple[str, Any]]:
    """What the screen received once the event numbered `last_seq` arrived."""
    await screen.wait_for_seq(last_seq)
    return list(screen.received)


async def test_kpi_and_board_subscribers_receive_the_value(board: Board, screens: Any) -> None:
    kpi = await define(board)
    on_kpi, on_board = screens(), screens()
    await on_kpi.connect(board.api)
    await on_board.connect(board.api)
    kpi_ack = await on_kpi.call("subscribe", {"room": f"kpi:{kpi['id']}"})
    board_ack = await on_board.call("subscribe", {"room": f"board:{board.id}"})
    assert kpi_ack["ok"] is True and board_ack["ok"] is True, (kpi_ack, board_ack)

    value = await set_value(board.api, kpi["id"], 70)  # red: a breach as well
    for screen, ack in ((on_kpi, kpi_ack), (on_board, board_ack)):
        events = await received(screen, ack["seq"] + 2)
        assert [name for name, _ in events] == ["kpi.value_entered", "kpi.target_breached"]
        entered = events[0][1]
        assert entered["event"] == "kpi.value_entered" and entered["id"].startswith("evt_")
        assert entered["data"]["value"]["id"] == value["id"] and entered["data"]["value"]["status"] == "red"
        assert entered["data"]["kpi"]["id"] == kpi["id"]
        assert [data["seq"] for _, data in events] == [ack["seq"] + 1, ack["seq"] + 2]
        assert events[1][1]["data"]["alert"]["id"] == value["alert"]["id"]


async def test_a_kpi_room_is_refused_to_who_may_not_see_its_board(board: Board, screens: Any) -> None:
    kpi = await define(board)
    other = await make_org(board.api.client)
    outsider = screens()
    await outsider.connect(other.owner)
    answer = await outsider.call("subscribe", {"room": f"kpi:{kpi['id']}"})
    assert answer["ok"] is False and answer["error"]["code"] == "NOT_FOUND"
    polled = await other.owner.rest("GET", "/api/v1/events", params={"stream": f"kpi:{kpi['id']}"})
    assert polled.status == 404
    mine = await board.api.rest("GET", "/api/v1/events", params={"stream": f"kpi:{kpi['id']}"})
    assert mine.status == 200 and [e["event"] for e in mine.data] == ["kpi.created"]
