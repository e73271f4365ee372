"""Partial updates: which fields an update's input names, so that only those are written."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec


def given_fields(data: msgspec.Struct, names: Iterable[str], clearable: Iterable[str] = ()) -> dict[str, Any]:
    """The fields an update names: absent ones are left out, null only counts for the `clearable` ones."""
    fields = {}
    for name in names:
        value = getattr(data, name)
        if value is msgspec.UNSET or (value is None and name not in clearable):
            continue
        fields[name] = value
    return fields
