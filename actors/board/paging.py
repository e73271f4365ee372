"""Cursor paging over rows held in memory: the cursor is the last row's sort key, so a page never repeats
or skips a row even while rows are added or removed between pages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from protocol.errors import BadRequest, FieldError
from protocol.pagination import Page, decode_cursor, encode_cursor

R = TypeVar("R")


def page_by_key(rows: list[R], key: Callable[[R], Sequence[Any]], arity: int, cursor: str | None, limit: int,
                name: str, view: Callable[[R], Any], *, descending: bool = False) -> Page:
    """`rows` sorted by `key` (a sequence of `arity` JSON values), starting after the cursor's key."""
    def sort_key(row: R) -> tuple[Any, ...]:
        return tuple(key(row))

    rows = sorted(rows, key=sort_key, reverse=descending)
    after = decode_cursor(cursor, arity)
    if after is not None:
        start = tuple(after)
        try:
            rows = [row for row in rows if (sort_key(row) < start if descending else sort_key(row) > start)]
        except TypeError:  # a cursor of another list or sort order, or tampered with
            raise BadRequest("malformed cursor", details=[FieldError("cursor", "malformed cursor")]) from None
    page = rows[:limit]
    next_cursor = encode_cursor(*sort_key(page[-1])) if len(rows) > limit else None
    return Page([view(row) for row in page], next_cursor, limit, key=name)


def page_reply(page: Page) -> dict[str, Any]:
    """A page as a board's read replies with it: its fields, which cross nodes as they are (a Page would
    arrive as a plain dict); `Page(**reply)` is the page again."""
    return msgspec.structs.asdict(page)
