"""`items.list`: filter, sort and page a board's items in memory.

Filters (`columnId` is a column id, or `name`): `is`, `is_not` (equality; a status matches its label
name, a people value matches when it contains the user id), `contains` / `not_contains` (case-insensitive
substring of text, or membership of a list), `gt`, `gte`, `lt`, `lte` (numbers, and dates/ISO strings
compared as text), `is_empty`, `is_not_empty`. Sort: `sortBy` a column id (or `name`, `createdAt`,
`updatedAt`), `sortDir` asc/desc, empty values last; without `sortBy`, board order (group, position).
"""

from __future__ import annotations

from typing import Any

from actors.board.paging import page_by_key
from actors.board.state import BoardState, ItemRow
from actors.board.views import item_view
from protocol import items as spec
from protocol.errors import BadRequest, FieldError
from protocol.pagination import Page, page_limit

_BUILT_IN = {"name", "createdAt", "updatedAt"}


def _field(state: BoardState, item: ItemRow, column_id: str) -> Any:
    if column_id == "name":
        return item.name
    if column_id == "createdAt":
        return item.created_at.isoformat()
    if column_id == "updatedAt":
        return item.updated_at.isoformat()
    return item.values.get(column_id)


def _scalar(value: Any) -> Any:
    """What a value compares as: a status by its label, a link by its text, numbers and text as they are."""
    if isinstance(value, dict):
        return value.get("label", value.get("text", value.get("from")))
    return value


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _matches(value: Any, operator: str, wanted: Any) -> bool:
    if operator == "is_empty":
        return _empty(value)
    if operator == "is_not_empty":
        return not _empty(value)
    if operator in ("contains", "not_contains"):
        found = (any(_scalar(v) == wanted for v in value) if isinstance(value, list)
                 else isinstance(_scalar(value), str) and str(wanted).lower() in _scalar(value).lower())
        return found if operator == "contains" else not found
    if operator in ("is", "is_not"):
        equal = wanted in value if isinstance(value, list) else _scalar(value) == wanted
        return equal if operator == "is" else not equal
    left = _scalar(value)
    if left is None or isinstance(left, bool) or isinstance(wanted, bool):
        return False
    if isinstance(left, int | float) and isinstance(wanted, int | float):
        pass
    elif isinstance(left, str) and isinstance(wanted, str):
        pass
    else:
        return False
    return bool({"gt": left > wanted, "gte": left >= wanted, "lt": left < wanted, "lte": left <= wanted}[operator])


def _sort_value(value: Any) -> list[Any]:
    """A JSON-encodable key: empty values last, then numbers, then text (case-insensitive)."""
    scalar = _scalar(value)
    if isinstance(value, list):
        scalar = len(value)
    if _empty(scalar):
        return [2, ""]
    if isinstance(scalar, bool):
        return [0, int(scalar)]
    if isinstance(scalar, int | float):
        return [0, scalar]
    return [1, str(scalar).lower()]


def list_items(state: BoardState, data: spec.ListItemsInput) -> Page:
    limit = page_limit(data.limit)
    for index, condition in enumerate(data.filters):
        if condition.columnId not in state.columns and condition.columnId not in _BUILT_IN:
            raise BadRequest("unknown filter column",
                             details=[FieldError(f"filters.{index}.columnId", "no such column")])
    if data.sortBy is not None and data.sortBy not in state.columns and data.sortBy not in _BUILT_IN:
        raise BadRequest("unknown sort column", details=[FieldError("sortBy", "no such column")])
    group_rank = {g.id: g.position for g in state.groups.values()}
    rows = [i for i in state.items.values()
            if i.parent_id is None and i.deleted_at is None and (data.includeArchived or i.archived_at is None)
            and (data.groupId is None or i.group_id == data.groupId)
            and all(_matches(_field(state, i, f.columnId), f.operator, f.value) for f in data.filters)]

    def key(item: ItemRow) -> list[Any]:
        if data.sortBy is None:
            return [group_rank.get(item.group_id, 0.0), item.position, item.id]
        return [*_sort_value(_field(state, item, data.sortBy)), item.id]

    return page_by_key(rows, key, 3, data.cursor, limit, "items", lambda item: item_view(state, item),
                       descending=data.sortDir == "desc")
