"""Which board turns commit as one statement (actors/board/changes.add_change_writes): those whose writes are
independent (rows put, each table once, with their trail); a turn that removes rows, writes a table twice, checks the
board limit or takes another board's comments says False and adds nothing, for the runtime to keep BEGIN ... COMMIT
(a statement's parts share one snapshot: one cannot see what another wrote, and no row may be written twice)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from actors.board.changes import BoardChange, BoardLimit, Put, Remove, add_change_writes
from actors.board.state import GroupRow, ItemRow
from actors.kernel.trail import ActivityEntry, NotificationEntry
from storage.turn_statement import TurnStatement

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


def item(index: int) -> ItemRow:
    return ItemRow(id=f"itm_{index}", organization_id="org_w", board_id="brd_w", group_id="grp_w", parent_id=None,
                   name=f"Item {index}", description=None, position=float(index), values={}, number=index, version=1,
                   created_by=None, archived_at=None, deleted_at=None, created_at=NOW, updated_at=NOW)


GROUP = GroupRow(id="grp_w", board_id="brd_w", name="Group", color="#000000", position=1.0)
TRAIL = ActivityEntry("item", "itm_1", "item.updated", None)
NOTE = NotificationEntry("ntf_w", "usr_w", "item_assigned", "Item 1", None, "item", "itm_1")


def test_rows_put_each_table_once_with_their_trail_are_one_statement() -> None:
    statement = TurnStatement()
    changes = [BoardChange(ops=[Put(GROUP), Put(item(1))]), BoardChange(ops=[Put(item(2)), Put(item(1))],
                                                                         activity=[TRAIL], notifications=[NOTE])]
    assert add_change_writes(statement, "org_w", changes)
    text = statement.text()
    assert [text.count(f"INSERT INTO {table} ") for table in ("board_groups", "items", "activity", "notifications")] \
        == [1, 1, 1, 1]


@pytest.mark.parametrize("changes", [
    [BoardChange(ops=[Put(item(1))]), BoardChange(ops=[Remove(ItemRow, "itm_2")])],
    [BoardChange(ops=[Put(item(1)), Put(GROUP), Put(item(2))])],
    [BoardChange(ops=[Put(item(1))], board_limit=BoardLimit("free", 3))],
    [BoardChange(ops=[Put(item(1))], comments_to=("brd_other", ("itm_1",)))],
], ids=["a row removed", "a table written twice", "the board limit", "another board's comments"])
def test_turns_whose_writes_depend_on_one_another_keep_a_transaction(changes: list[BoardChange]) -> None:
    statement = TurnStatement()
    assert not add_change_writes(statement, "org_w", [*changes, BoardChange(activity=[TRAIL])])
    assert not statement and statement.args == []
