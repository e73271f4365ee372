"""Deciders for a board's structure: the board itself, its groups and its columns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import msgspec

from actors.board.changes import BoardChange, BoardLimit
from actors.board.commands import Command, Outcome, decides
from actors.board.formula import formula_references
from actors.board.items import known_files
from actors.board.state import BoardRow, BoardState, ColumnRow, GroupRow, ItemRow
from actors.board.values import default_config, normalize_config, validate_value
from actors.board.views import board_summary, board_view, column_view, group_view
from actors.kernel.events import changes
from actors.runtime.actor import Decision
from protocol import boards as spec
from protocol.columns import COMPUTED_TYPES, ColumnType
from protocol.errors import BadRequest, Conflict, FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, new_id
from protocol.plans import plan

# Group colours given in turn when a group is created without one.
GROUP_PALETTE = ("#579BFC", "#00C875", "#FDAB3D", "#E2445C", "#A25DDC", "#037F4C", "#FF642E", "#66CCFF")
DEFAULT_GROUP = "New Group"
DEFAULT_COLUMNS: tuple[tuple[str, ColumnType], ...] = (("Status", "status"), ("Owner", "people"))


def _board(state: BoardState) -> BoardRow:
    assert state.board is not None
    return state.board


def _group(state: BoardState, group_id: str, field: str = "id") -> GroupRow:
    group = state.groups.get(group_id)
    if group is None:
        raise NotFound("group not found", details=[FieldError(field, "no such group on this board")])
    return group


def _column(state: BoardState, column_id: str, field: str = "id") -> ColumnRow:
    column = state.columns.get(column_id)
    if column is None:
        raise NotFound("column not found", details=[FieldError(field, "no such column on this board")])
    return column


def _touch(out: Outcome, board: BoardRow) -> None:
    out.put(msgspec.structs.replace(board, updated_at=out.command.now))


def _configured(out: Outcome, what: str, state: BoardState, detail: dict[str, Any]) -> None:
    """Groups and columns are the board's configuration: each change is a `board.updated` event."""
    out.emit("board.updated", {"board": board_summary(state), "change": what, **detail})


def _new_column(command: Command, board_id: str, name: str, column_type: str, config: dict[str, Any] | None,
                position: float, *, width: int = 150, required: bool = False, default: Any = None,
                field: str = "config") -> ColumnRow:
    normalized = normalize_config(column_type, config if config is not None else default_config(column_type),
                                  field=field)
    if default is not None:
        if column_type in COMPUTED_TYPES:
            raise ValidationFailed("a computed column has no default",
                                   details=[FieldError("defaultValue", "computed columns take no default")])
        default = validate_value(column_type, normalized, default, members=command.members, field="defaultValue")
    return ColumnRow(id=new_id(Prefix.COLUMN), board_id=board_id, name=name, type=column_type, position=position,
                     width=width, required=required, config=normalized, default_value=default,
                     created_at=command.now)


def _known_default(state: BoardState, column: ColumnRow) -> ColumnRow:
    """A `file` column's default names files of the organization (read by `prepare`), kept as they truly are:
    every new item copies it."""
    if column.type != "file" or not column.default_value:
        return column
    return msgspec.structs.replace(column, default_value=known_files(state, column.default_value, "defaultValue"))


def check_references(state: BoardState, column_type: str, config: dict[str, Any], field: str = "config") -> None:
    """Config that names other columns must name columns of this board (of the right type)."""
    if column_type == "formula":
        unknown = sorted(formula_references(config.get("expression") or "") - set(state.columns))
        if unknown:
            raise ValidationFailed("the formula names unknown columns",
                                   details=[FieldError(f"{field}.expression", f"no column {unknown[0]} on this board")])
    if column_type == "lookup":
        dependency = config.get("dependencyColumnId")
        if dependency is not None and getattr(state.columns.get(dependency), "type", None) != "dependency":
            raise ValidationFailed("a lookup follows a dependency column of this board",
                                   details=[FieldError(f"{field}.dependencyColumnId", "not a dependency column")])
        target = config.get("targetColumnId")
        if target is not None and target not in state.columns:
            raise ValidationFailed("a lookup reads a column of this board",
                                   details=[FieldError(f"{field}.targetColumnId", "no such column on this board")])


def _end(positions: list[float]) -> float:
    return max(positions, default=0.0) + 1.0


def _permutation(given: list[str], existing: set[str], field: str) -> None:
    if len(given) != len(set(given)) or set(given) != existing:
        raise BadRequest(f"{field} must list every one of the board's ids exactly once",
                         details=[FieldError(field, "must be a permutation of the board's ids")])


@decides(spec.CREATE)
def create_board(state: BoardState, command: Command) -> Decision[BoardChange]:
    if state.board is not None:
        raise Conflict("board exists")
    data: spec.CreateBoardInput = command.data
    assert command.board_id is not None
    out = Outcome(command)
    organization = command.caller.organization
    if organization is not None and (boards := plan(organization.plan).boards) is not None:
        out.board_limit = BoardLimit(organization.plan, boards)
    board = BoardRow(id=command.board_id, organization_id=command.caller.org_id, project_id=data.projectId,
                     name=data.name, default_view=data.defaultView, next_number=1,
                     created_by=command.caller.user_id, created_at=command.now, updated_at=command.now)
    out.put(board)
    groups = data.groups if data.groups is not None else [spec.NewGroup(DEFAULT_GROUP)]
    for index, group in enumerate(groups):
        out.put(GroupRow(id=new_id(Prefix.GROUP), board_id=board.id, name=group.name,
                         color=group.color or GROUP_PALETTE[index % len(GROUP_PALETTE)], position=float(index + 1)))
    columns = data.columns if data.columns is not None else [spec.NewColumn(n, t) for n, t in DEFAULT_COLUMNS]
    for index, column in enumerate(columns):
        out.put(_new_column(command, board.id, column.name, column.type, column.config, float(index + 1),
                            field=f"columns.{index}.config"))
    out.log("board", board.id, "board.created", name=board.name, projectId=board.project_id)
    created = BoardState(board=board)
    for op in out.ops[1:]:
        row = op.row  # type: ignore[union-attr]
        table = "groups" if isinstance(row, GroupRow) else "columns"
        created = created.with_rows(table, {**getattr(created, table), row.id: row})
    view = board_view(created)
    out.emit("board.created", {"board": board_summary(created)})
    return out.decision(view)


@decides(spec.GET)
def get_board(state: BoardState, command: Command) -> Decision[BoardChange]:
    return Decision(reply=board_view(state))


@decides(spec.UPDATE)
def update_board(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.UpdateBoardInput = command.data
    board = _board(state)
    new = {k: v for k, v in (("name", data.name), ("defaultView", data.defaultView)) if v is not None}
    diff = changes({"name": board.name, "defaultView": board.default_view}, new)
    out = Outcome(command)
    updated = msgspec.structs.replace(board, name=data.name or board.name,
                                      default_view=data.defaultView or board.default_view, updated_at=command.now)
    if diff:
        out.put(updated)
        out.log("board", board.id, "board.updated", changes=diff)
        after = replace(state, board=updated)
        out.emit("board.updated", {"board": board_summary(after), "changes": diff})
        return out.decision(board_view(after))
    return out.decision(board_view(state))


@decides(spec.DELETE)
def delete_board(state: BoardState, command: Command) -> Decision[BoardChange]:
    board = _board(state)
    out = Outcome(command)
    out.remove(BoardRow, board.id)  # groups, columns, items and comments go with it (foreign keys)
    out.log("board", board.id, "board.deleted", name=board.name)
    out.emit("board.deleted", {"board": board_summary(state)})
    return out.decision({"success": True, "id": board.id})


@decides(spec.GROUPS_CREATE)
def create_group(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.CreateGroupInput = command.data
    board = _board(state)
    position = data.position if data.position is not None else _end([g.position for g in state.groups.values()])
    group = GroupRow(id=new_id(Prefix.GROUP), board_id=board.id, name=data.name,
                     color=data.color or GROUP_PALETTE[len(state.groups) % len(GROUP_PALETTE)], position=position)
    out = Outcome(command)
    out.put(group)
    _touch(out, board)
    out.log("group", group.id, "group.created", boardId=board.id, name=group.name)
    _configured(out, "group.created", state, {"group": group_view(group)})
    return out.decision(group_view(group))


@decides(spec.GROUPS_UPDATE)
def update_group(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.UpdateGroupInput = command.data
    group = _group(state, data.id)
    new = {k: v for k, v in (("name", data.name), ("color", data.color), ("collapsed", data.collapsed))
           if v is not None}
    diff = changes({"name": group.name, "color": group.color, "collapsed": group.collapsed}, new)
    updated = msgspec.structs.replace(group, **new)
    out = Outcome(command)
    if diff:
        out.put(updated)
        out.log("group", group.id, "group.updated", changes=diff)
        _configured(out, "group.updated", state, {"group": group_view(updated), "changes": diff})
    return out.decision(group_view(updated))


def _reorder(state: BoardState, command: Command, rows: Mapping[str, Any], ids: list[str], field: str,
             what: str) -> Decision[BoardChange]:
    """Give `rows` the positions 1..n in the order of `ids`, which must name each of them once."""
    _permutation(ids, set(rows), field)
    out = Outcome(command)
    for index, row_id in enumerate(ids):
        out.put(msgspec.structs.replace(rows[row_id], position=float(index + 1)))
    out.log("board", _board(state).id, f"{what}.reordered", **{field: ids})
    _configured(out, f"{what}.reordered", state, {field: ids})
    return out.decision({"success": True, field: ids})


@decides(spec.GROUPS_REORDER)
def reorder_groups(state: BoardState, command: Command) -> Decision[BoardChange]:
    return _reorder(state, command, state.groups, command.data.groupIds, "groupIds", "group")


@decides(spec.GROUPS_DELETE)
def delete_group(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.DeleteGroupInput = command.data
    group = _group(state, data.id)
    if len(state.groups) == 1:
        raise BadRequest("a board keeps at least one group", details=[FieldError("id", "the board's last group")])
    out = Outcome(command)
    members = [i for i in state.items.values() if i.group_id == group.id]
    if data.moveItemsTo is not None:
        target = _group(state, data.moveItemsTo, "moveItemsTo")
        if target.id == group.id:
            raise BadRequest("moveItemsTo must be another group",
                             details=[FieldError("moveItemsTo", "the group being deleted")])
        start = _end([i.position for i in state.items_of_group(target.id)])
        for offset, item in enumerate(sorted(members, key=lambda i: (i.position, i.id))):
            out.put(msgspec.structs.replace(item, group_id=target.id, position=start + offset,
                                            version=item.version + 1, updated_at=command.now))
    else:
        # Deleted with the group means to the trash: restorable for 30 days, into the first group.
        for item in members:
            if item.deleted_at is None:
                out.put(msgspec.structs.replace(item, deleted_at=command.now, version=item.version + 1,
                                                updated_at=command.now))
                out.emit("item.deleted", {"item": {"id": item.id, "boardId": item.board_id,
                                                   "groupId": item.group_id, "name": item.name}})
    out.remove(GroupRow, group.id)
    out.log("group", group.id, "group.deleted", name=group.name, moveItemsTo=data.moveItemsTo,
            itemCount=len(members))
    _configured(out, "group.deleted", state, {"group": group_view(group), "moveItemsTo": data.moveItemsTo})
    return out.decision({"success": True, "id": group.id})


@decides(spec.COLUMNS_LIST)
def list_columns(state: BoardState, command: Command) -> Decision[BoardChange]:
    return Decision(reply={"columns": [column_view(c) for c in state.ordered_columns()]})


@decides(spec.COLUMNS_CREATE)
def create_column(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.CreateColumnInput = command.data
    board = _board(state)
    position = data.position if data.position is not None else _end([c.position for c in state.columns.values()])
    column = _new_column(command, board.id, data.name, data.type, data.config, position, width=data.width,
                         required=data.required, default=data.defaultValue)
    column = _known_default(state, column)
    check_references(state, column.type, column.config)
    out = Outcome(command)
    out.put(column)
    _touch(out, board)
    out.log("column", column.id, "column.created", boardId=board.id, name=column.name, type=column.type)
    _configured(out, "column.created", state, {"column": column_view(column)})
    return out.decision(column_view(column))


@decides(spec.COLUMNS_UPDATE)
def update_column(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.UpdateColumnInput = command.data
    column = _column(state, data.id)
    if data.type is not None and data.type != column.type:
        raise BadRequest("a column's type cannot be changed: create a new column and migrate the values",
                         details=[FieldError("type", "immutable")])
    updated = column
    if data.name is not None:
        updated = msgspec.structs.replace(updated, name=data.name)
    if data.config is not None:
        # A partial config changes only the keys it names: `{"defaultLabelId": ...}` keeps the labels (and
        # their ids, which the items' values point at).
        config = normalize_config(column.type, {**column.config, **data.config})
        check_references(state, column.type, config)
        updated = msgspec.structs.replace(updated, config=config)
    if data.required is not None:
        updated = msgspec.structs.replace(updated, required=data.required)
    if data.width is not None:
        updated = msgspec.structs.replace(updated, width=data.width)
    if data.defaultValue is not msgspec.UNSET:
        default = data.defaultValue
        if default is not None:
            default = validate_value(column.type, updated.config, default, members=command.members,
                                     field="defaultValue")
        updated = _known_default(state, msgspec.structs.replace(updated, default_value=default))
    before, after = column_view(column), column_view(updated)
    diff = changes(before, after)
    out = Outcome(command)
    if diff:
        out.put(updated)
        out.log("column", column.id, "column.updated", changes=diff)
        _configured(out, "column.updated", state, {"column": after, "changes": diff})
    return out.decision(after)


@decides(spec.COLUMNS_REORDER)
def reorder_columns(state: BoardState, command: Command) -> Decision[BoardChange]:
    return _reorder(state, command, state.columns, command.data.columnIds, "columnIds", "column")


def _with_values(item: ItemRow, values: dict[str, Any], command: Command) -> ItemRow:
    return msgspec.structs.replace(item, values=values, version=item.version + 1, updated_at=command.now)


@decides(spec.COLUMNS_DELETE)
def delete_column(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.ColumnIdInput = command.data
    column = _column(state, data.id)
    out = Outcome(command)
    for item in state.items.values():
        if column.id in item.values:
            out.put(_with_values(item, {k: v for k, v in item.values.items() if k != column.id}, command))
    out.remove(ColumnRow, column.id)
    out.log("column", column.id, "column.deleted", name=column.name, type=column.type)
    _configured(out, "column.deleted", state, {"column": column_view(column)})
    return out.decision({"success": True, "id": column.id})


@decides(spec.COLUMNS_DUPLICATE)
def duplicate_column(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.DuplicateColumnInput = command.data
    column = _column(state, data.id)
    later = [c.position for c in state.columns.values() if c.position > column.position]
    position = (column.position + min(later)) / 2 if later else column.position + 1
    copy = msgspec.structs.replace(column, id=new_id(Prefix.COLUMN), name=data.name or f"{column.name} (copy)",
                                   position=position, created_at=command.now)
    out = Outcome(command)
    out.put(copy)
    if data.includeValues and column.type not in COMPUTED_TYPES:
        for item in state.items.values():
            if column.id in item.values:
                out.put(_with_values(item, {**item.values, copy.id: item.values[column.id]}, command))
    out.log("column", copy.id, "column.created", boardId=column.board_id, duplicateOf=column.id,
            includeValues=data.includeValues)
    _configured(out, "column.created", state, {"column": column_view(copy), "duplicateOf": column.id})
    return out.decision(column_view(copy))
