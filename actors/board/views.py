"""How board rows look on the wire."""

from __future__ import annotations

from typing import Any

from actors.board.state import BoardState, ColumnRow, GroupRow, ItemRow
from actors.board.values import compute_value
from protocol.columns import COMPUTED_TYPES
from protocol.ids import iso


def group_view(group: GroupRow) -> dict[str, Any]:
    return {"id": group.id, "boardId": group.board_id, "name": group.name, "color": group.color,
            "position": group.position, "collapsed": group.collapsed}


def column_view(column: ColumnRow) -> dict[str, Any]:
    return {"id": column.id, "boardId": column.board_id, "name": column.name, "type": column.type,
            "position": column.position, "width": column.width, "required": column.required,
            "config": column.config, "defaultValue": column.default_value, "createdAt": iso(column.created_at)}


def board_summary(state: BoardState) -> dict[str, Any]:
    board = state.board
    assert board is not None
    return {"id": board.id, "name": board.name, "projectId": board.project_id, "defaultView": board.default_view,
            "createdAt": iso(board.created_at), "updatedAt": iso(board.updated_at)}


def board_view(state: BoardState) -> dict[str, Any]:
    return {**board_summary(state), "groups": [group_view(g) for g in state.ordered_groups()],
            "columns": [column_view(c) for c in state.ordered_columns()]}


def _item_fields(item: ItemRow) -> dict[str, Any]:
    return {"id": item.id, "number": item.number, "values": item.values, "createdAt": iso(item.created_at),
            "updatedAt": iso(item.updated_at)}


def item_values(state: BoardState, item: ItemRow) -> dict[str, Any]:
    """The stored values plus every computed column's value."""
    computed = {c.id: c for c in state.columns.values() if c.type in COMPUTED_TYPES}
    if not computed:
        return item.values
    board_items = {i.id: _item_fields(i) for i in state.items.values()} if any(
        c.type == "lookup" for c in computed.values()) else {}
    fields = _item_fields(item)
    return {**item.values, **{cid: compute_value(c.type, c.config, fields, board_items)
                              for cid, c in computed.items()}}


def file_count(state: BoardState, item: ItemRow) -> int:
    """The item's comment attachments plus the files in its `file` columns."""
    in_comments = sum(len(c.attachment_ids) for c in state.comments.values() if c.item_id == item.id)
    in_columns = sum(len(value) for column_id, value in item.values.items()
                     if isinstance(value, list) and (column := state.columns.get(column_id)) is not None
                     and column.type == "file")
    return in_comments + in_columns


def item_view(state: BoardState, item: ItemRow, *, full: bool = False) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item.id, "name": item.name, "boardId": item.board_id, "groupId": item.group_id,
        "parentId": item.parent_id, "position": item.position, "values": item_values(state, item),
        "version": item.version, "createdBy": item.created_by, "createdAt": iso(item.created_at),
        "updatedAt": iso(item.updated_at), "archivedAt": iso(item.archived_at), "deletedAt": iso(item.deleted_at)}
    if full:
        view["description"] = item.description
        view["subItems"] = [{"id": sub.id, "name": sub.name, "values": item_values(state, sub)}
                            for sub in state.sub_items(item.id) if sub.deleted_at is None]
        view["commentCount"] = sum(1 for c in state.comments.values() if c.item_id == item.id)
        view["fileCount"] = file_count(state, item)
    return view
