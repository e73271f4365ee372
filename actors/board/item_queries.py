"""`items.list`: filter, sort and page a board's items in memory.

Filters (`columnId` is a column id, or `name`): `is`, `is_not` (equality; a status matches its label
name, a people value matches when it contains the user id), `contains` / `not_contains` (case-insensitive
substring of text, or membership of a list), `gt`, `gte`, `lt`, `lte` (numbers, and dates/ISO strings
compared as text), `is_empty`, `is_not_empty`. Sort: `sortBy` a column id (or `name`, `createdAt`,
`updatedAt`), `sortDir` asc/desc, empty values last; without `sortBy`, board order (group, position).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import islice
from typing import Any

import msgspec

from actors.board.state import BoardState, ItemRow
from actors.board.views import item_view
from protocol import items as spec
from protocol.encoded import EncodedList
from protocol.errors import BadRequest, FieldError
from protocol.pagination import Page, decode_cursor, encode_cursor, page_limit

_BUILT_IN = {"name", "createdAt", "updatedAt"}
# Pages kept per board state, by query: a state is read again and again until the board's next change, so each
# page is listed and encoded once. Callers paging or filtering differently add pages; the oldest leaves first.
MAX_PAGES = 16
_query_key = msgspec.json.Encoder().encode


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
    """The page `data` asks for, its items encoded (protocol/encoded.py); the same Page again while the state
    lasts. Shared by the replies: never mutated."""
    key = _query_key(data)
    pages = state.item_pages
    page = pages.get(key)
    if page is None:
        page = _list_page(state, data)
        if len(pages) >= MAX_PAGES:
            del pages[next(iter(pages))]
        pages[key] = page
    return page


def _list_page(state: BoardState, data: spec.ListItemsInput) -> Page:
    limit = page_limit(data.limit)
    for index, condition in enumerate(data.filters):
        if condition.columnId not in state.columns and condition.columnId not in _BUILT_IN:
            raise BadRequest("unknown filter column",
                             details=[FieldError(f"filters.{index}.columnId", "no such column")])
    if data.sortBy is not None and data.sortBy not in state.columns and data.sortBy not in _BUILT_IN:
        raise BadRequest("unknown sort column", details=[FieldError("sortBy", "no such column")])
    keys, ids = _ordered(state, data.sortBy)
    items = state.items
    after = decode_cursor(data.cursor, 3)
    descending = data.sortDir == "desc"
    try:
        if descending:
            start = len(ids) if after is None else bisect_left(keys, tuple(after))
            candidates = (items[ids[index]] for index in range(start - 1, -1, -1))
        else:
            start = 0 if after is None else bisect_right(keys, tuple(after))
            candidates = (items[ids[index]] for index in range(start, len(ids)))
    except TypeError:  # a cursor of another list or sort order, or tampered with
        raise BadRequest("malformed cursor", details=[FieldError("cursor", "malformed cursor")]) from None

    def wanted(item: ItemRow) -> bool:
        return ((data.includeArchived or item.archived_at is None)
                and (data.groupId is None or item.group_id == data.groupId)
                and all(_matches(_field(state, item, f.columnId), f.operator, f.value) for f in data.filters))

    # The plain first call of a board (no filter, group or archived items) keeps every live row: no test per row.
    if not data.filters and data.groupId is None and not data.includeArchived:
        candidates = (item for item in candidates if item.archived_at is None)
    else:
        candidates = (item for item in candidates if wanted(item))
    # Walks from the cursor until one row past the page: a page costs its rows, not the board's.
    page = list(islice(candidates, limit + 1))
    more = len(page) > limit
    page = page[:limit]
    next_cursor = encode_cursor(*_key(state, page[-1], data.sortBy)) if more else None
    views = state.item_views
    rendered = (views.get(item.id) or views.setdefault(item.id, item_view(state, item)) for item in page)
    return Page(EncodedList(rendered), next_cursor, limit, key="items")


def _key(state: BoardState, item: ItemRow, sort_by: str | None) -> tuple[Any, ...]:
    if sort_by is None:
        group = state.groups.get(item.group_id)
        return (group.position if group is not None else 0.0, item.position, item.id)
    return (*_sort_value(_field(state, item, sort_by)), item.id)


def _ordered(state: BoardState, sort_by: str | None) -> tuple[list[tuple[Any, ...]], list[str]]:
    """The board's top-level items (trash excluded) sorted by `sort_by` (board order when None): their keys and
    ids. Computed once per state and order, so later pages and other readers of this version reuse it; a
    change that moves no item hands the board order on to the next state (actors/board/changes.py), which is
    why it holds ids, looked up in the state that reads them, and not rows."""
    cached = state.orders.get(sort_by)
    if cached is None:
        rows = state.board_order if sort_by is None else sorted(
            state.board_order, key=lambda item: _key(state, item, sort_by))
        cached = state.orders[sort_by] = ([_key(state, item, sort_by) for item in rows], [item.id for item in rows])
    return cached
