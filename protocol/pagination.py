"""Cursors and page limits shared by every list.

A cursor is opaque to callers: base64url of a JSON array holding the sort key of the last row (the event feed's
is the last seq in decimal). A malformed cursor, one whose key is out of range (an integer past 64 bits, a time
PostgreSQL cannot hold), or a limit outside its range is a 400 BAD_REQUEST naming the field in both styles (spec
7.3), not a validation 422, so limits are checked here rather than by the input schema.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from protocol.errors import BadRequest, FieldError
from protocol.json_bounds import INT_MAX, INT_MIN

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
# Offset-paged lists (sheets, checklist completions, audits): beyond this no list reaches, and PostgreSQL's
# OFFSET is a bigint, so a larger number is refused (400) rather than sent.
MAX_OFFSET = 1_000_000_000


def page_limit(limit: int | None, *, default: int = DEFAULT_LIMIT, maximum: int = MAX_LIMIT) -> int:
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise BadRequest(f"limit must be an integer from 1 to {maximum}",
                         details=[FieldError("limit", f"must be from 1 to {maximum}")])
    return limit


def page_offset(offset: int | None) -> int:
    if offset is None:
        return 0
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise BadRequest(f"offset must be an integer from 0 to {MAX_OFFSET}",
                         details=[FieldError("offset", f"must be from 0 to {MAX_OFFSET}")])
    return offset


def encode_cursor(*key: Any) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(list(key))).decode("ascii").rstrip("=")


def decode_cursor(cursor: str | None, arity: int) -> list[Any] | None:
    """The sort key a cursor holds, or None for the first page. Raises BadRequest when malformed (a forged
    cursor nesting deeply or holding an integer past 64 bits included)."""
    if cursor is None or cursor == "":
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        key = msgspec.json.decode(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (binascii.Error, msgspec.DecodeError, ValueError, UnicodeEncodeError, RecursionError):
        key = None
    if not isinstance(key, list) or len(key) != arity or not all(_scalar(part) for part in key):
        raise malformed_cursor()
    return key


def malformed_cursor() -> BadRequest:
    return BadRequest("malformed cursor", details=[FieldError("cursor", "malformed cursor")])


def decode_seq_cursor(cursor: str | None) -> int | None:
    """The seq a cursor of decimal digits holds (the event feed's), or None for the first page. Raises BadRequest
    when it is not digits or past 64 bits (a seq is a bigint)."""
    if cursor is None or cursor == "":
        return None
    if not cursor.isascii() or not cursor.isdigit() or int(cursor) > INT_MAX:
        raise malformed_cursor()
    return int(cursor)


def _scalar(value: Any) -> bool:
    """A cursor's key holds scalars only, and its integers fit PostgreSQL's bigint."""
    if isinstance(value, int) and not isinstance(value, bool):
        return INT_MIN <= value <= INT_MAX
    return value is None or isinstance(value, str | float | bool)


class Page(msgspec.Struct):
    """One page of a cursor-paged list. The RPC style renders `{<key>: items, nextCursor}`; the REST style
    renders `data: items` with `meta: {cursor, has_more, limit}`."""

    items: list[Any]
    next_cursor: str | None
    limit: int
    key: str = "items"


def encode_time_cursor(moment: datetime, row_id: str) -> str:
    """Cursor of a list ordered by (timestamp, id), newest first."""
    return encode_cursor(moment.isoformat(), row_id)


def time_page(rows: Sequence[Mapping[str, Any]], limit: int, view: Callable[[Any], dict[str, Any]], key: str,
              at: str = "created_at") -> Page:
    """One page of a list ordered by (`at`, id), from `limit + 1` rows: the extra row says a next page exists."""
    next_cursor = None
    if len(rows) > limit:
        last = rows[limit - 1]
        next_cursor = encode_time_cursor(last[at], last["id"])
    return Page([view(row) for row in rows[:limit]], next_cursor, limit, key=key)


def decode_time_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    """The (timestamp, id) after which the next page starts; BadRequest when malformed."""
    key = decode_cursor(cursor, 2)
    if key is None:
        return None
    try:
        moment = datetime.fromisoformat(key[0])
        # In UTC, as cursors are written: a forged offset could put it outside what PostgreSQL takes.
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        return moment, str(key[1])
    except (TypeError, ValueError, OverflowError):
        raise malformed_cursor() from None
