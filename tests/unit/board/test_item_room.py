"""The plan's items per board (actors/board/items.check_item_room): trashed items read back into memory do not
count, a board at the limit refuses, and one kept over it since a downgrade refuses however large it is."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from actors.board.commands import Command
from actors.board.items import check_item_room
from actors.board.state import BoardState, ItemRow
from protocol.caller import Caller, Organization
from protocol.errors import Forbidden

NOW = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)
FREE = Organization("org_room", "room", "Room", "free")  # 100 items per board


def item(index: int, trashed: bool = False) -> ItemRow:
    return ItemRow(id=f"itm_{index}", organization_id=FREE.id, board_id="brd_room", group_id="grp_room",
                   parent_id=None, name=f"Item {index}", description=None, position=float(index), values={},
                   number=index, version=1, created_by=None, archived_at=None,
                   deleted_at=NOW if trashed else None, created_at=NOW, updated_at=NOW)


def state(live: int, trashed: int = 0) -> BoardState:
    rows = [item(i) for i in range(live)] + [item(live + i, trashed=True) for i in range(trashed)]
    return BoardState(items={row.id: row for row in rows})


def command() -> Command:
    caller = Caller(request_id="test", organization=FREE, user_id="usr_room")
    return Command("items.create", caller, None, NOW, frozenset({"usr_room"}), "brd_room")


def test_trashed_items_in_memory_leave_room() -> None:
    check_item_room(state(99, trashed=50), command(), 1)
    with pytest.raises(Forbidden) as refused:
        check_item_room(state(99, trashed=50), command(), 2)
    assert refused.value.message == "the free plan includes 100 items per board"


def test_a_board_at_or_over_the_limit_refuses() -> None:
    check_item_room(state(99), command(), 1)
    for live in (100, 5000):
        with pytest.raises(Forbidden):
            check_item_room(state(live), command(), 1)


def test_an_unlimited_plan_never_counts() -> None:
    caller = Caller(request_id="test", organization=Organization("org_room", "room", "Room", "enterprise"),
                    user_id="usr_room")
    check_item_room(state(5000), Command("items.create", caller, None, NOW, frozenset(), "brd_room"), 10)
