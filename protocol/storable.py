"""What PostgreSQL cannot store in text or jsonb: the character U+0000. Every input is checked for it before
it is decoded, so such text is a 400 naming its field instead of a database error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_REPORTED = 20


def paths_where(value: Any, refused: Callable[[Any], bool]) -> list[str]:
    """The dotted paths (`items.0.name`; `input` for the value itself) of every value or key for which
    `refused` is true, at most MAX_REPORTED of them, sorted. Iterative, so a deeply nested value cannot exhaust
    the stack."""
    found: list[str] = []
    pending: list[tuple[str, Any]] = [("", value)]
    while pending and len(found) < MAX_REPORTED:
        path, current = pending.pop()
        if isinstance(current, dict):
            for key, item in current.items():
                child = f"{path}.{key}" if path else str(key)
                if refused(key):
                    found.append(child)
                pending.append((child, item))
        elif isinstance(current, list):
            pending.extend((f"{path}.{index}" if path else str(index), item) for index, item in enumerate(current))
        elif refused(current):
            found.append(path or "input")
    return sorted(found)


def _holds_nul(value: Any) -> bool:
    return isinstance(value, str) and "\x00" in value


def nul_paths(value: Any) -> list[str]:
    """The paths of every text or key holding U+0000 (see `paths_where`)."""
    return paths_where(value, _holds_nul)
