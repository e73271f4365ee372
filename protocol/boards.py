"""Boards, groups and columns; `boards.list` is declared with projects."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.columns import ColumnType
from protocol.fields import Id
from protocol.registry import Procedure, Role, declare

BoardName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
ColumnName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
GroupName = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
HexColor = Annotated[str, msgspec.Meta(pattern=r"^#[0-9A-Fa-f]{6}$")]
View = Literal["board", "table", "timeline", "calendar", "visual"]
Position = Annotated[float, msgspec.Meta(ge=0, le=1e12)]
Width = Annotated[int, msgspec.Meta(ge=40, le=2000)]
IdList = Annotated[list[Id], msgspec.Meta(max_length=1000)]


class NewGroup(msgspec.Struct):
    name: GroupName
    color: HexColor | None = None


class NewColumn(msgspec.Struct):
    name: ColumnName
    type: ColumnType
    config: dict[str, Any] | None = None


class BoardIdInput(msgspec.Struct):
    id: Id


class CreateBoardInput(msgspec.Struct):
    projectId: Id
    name: BoardName
    defaultView: View = "board"
    groups: Annotated[list[NewGroup], msgspec.Meta(max_length=50)] | None = None
    columns: Annotated[list[NewColumn], msgspec.Meta(max_length=100)] | None = None
    templateId: Id | None = None


class UpdateBoardInput(msgspec.Struct):
    id: Id
    name: BoardName | None = None
    defaultView: View | None = None


class CreateGroupInput(msgspec.Struct):
    boardId: Id
    name: GroupName
    color: HexColor | None = None
    position: Position | None = None


class UpdateGroupInput(msgspec.Struct):
    id: Id
    name: GroupName | None = None
    color: HexColor | None = None
    collapsed: bool | None = None


class ReorderGroupsInput(msgspec.Struct):
    boardId: Id
    groupIds: IdList


class DeleteGroupInput(msgspec.Struct):
    id: Id
    moveItemsTo: Id | None = None


class ListColumnsInput(msgspec.Struct):
    boardId: Id


class CreateColumnInput(msgspec.Struct):
    boardId: Id
    name: ColumnName
    type: ColumnType
    position: Position | None = None
    width: Width = 150
    required: bool = False
    config: dict[str, Any] | None = None
    defaultValue: Any = None


class UpdateColumnInput(msgspec.Struct):
    id: Id
    name: ColumnName | None = None
    config: dict[str, Any] | None = None
    required: bool | None = None
    width: Width | None = None
    defaultValue: Any = msgspec.UNSET
    type: str | None = None  # present only to refuse a change of type with a clear error


class ReorderColumnsInput(msgspec.Struct):
    boardId: Id
    columnIds: IdList


class ColumnIdInput(msgspec.Struct):
    id: Id


class DuplicateColumnInput(msgspec.Struct):
    id: Id
    name: ColumnName | None = None
    includeValues: bool = False


READ, WRITE = "read:items", "write:items"


def _structural(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    """A change to a board's structure: members and up (guests work items on boards shared with them)."""
    return declare(name, "mutation", input, min_role=Role.MEMBER, key_scope=WRITE, token_scope=token_scope,
                   summary=summary)


GET = declare("boards.get", "query", BoardIdInput, key_scope=READ, summary="A board with its groups and columns")
CREATE = _structural("boards.create", CreateBoardInput, "Create a board")
UPDATE = _structural("boards.update", UpdateBoardInput, "Rename a board or change its default view")
DELETE = _structural("boards.delete", BoardIdInput, "Delete a board with everything on it", token_scope="delete")
GROUPS_CREATE = _structural("boards.groups.create", CreateGroupInput, "Add a group to a board")
GROUPS_UPDATE = _structural("boards.groups.update", UpdateGroupInput, "Rename, recolour or collapse a group")
GROUPS_REORDER = _structural("boards.groups.reorder", ReorderGroupsInput, "Put a board's groups in a new order")
GROUPS_DELETE = _structural("boards.groups.delete", DeleteGroupInput, "Delete a group; its items are deleted or moved",
                            token_scope="delete")
COLUMNS_LIST = declare("columns.list", "query", ListColumnsInput, key_scope=READ, summary="A board's columns")
COLUMNS_CREATE = _structural("columns.create", CreateColumnInput, "Add a column")
COLUMNS_UPDATE = _structural("columns.update", UpdateColumnInput, "Rename or reconfigure a column (its type is fixed)")
COLUMNS_REORDER = _structural("columns.reorder", ReorderColumnsInput, "Put a board's columns in a new order")
COLUMNS_DELETE = _structural("columns.delete", ColumnIdInput, "Delete a column and all its values",
                             token_scope="delete")
COLUMNS_DUPLICATE = _structural("columns.duplicate", DuplicateColumnInput, "Copy a column, optionally with its values")
