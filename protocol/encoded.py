"""A list that carries its own JSON encoding: a reply served many times from one state (a board's `items.list`
page) is encoded once, and the envelope encoder copies its bytes (web/envelopes.py). Anything else sees a
plain list; crossing nodes (msgpack) it arrives as one. Shared between replies, so never mutated."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode


class EncodedList(list[Any]):
    __slots__ = ("json",)

    def __init__(self, items: Iterable[Any]) -> None:
        super().__init__(items)
        self.json = msgspec.Raw(_encode(self))


def as_encoded(value: Any) -> Any:
    """What the envelope encoder is given for `value`: its encoding when it carries one, else itself."""
    return value.json if isinstance(value, EncodedList) else value
