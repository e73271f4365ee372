"""How a rule compares an item's values: a value as rules see it (`plain`: a status is its label) and the
operators of a rule's conditions. Form approval flows compare answers the same way (actors/approvals/graph.py)."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """A value as rules compare it: a status is its label."""
    return value.get("label") if isinstance(value, dict) and "label" in value else value


def same(value: Any, expected: Any) -> bool:
    return bool(value == expected or plain(value) == expected)


def _number(value: Any) -> float | None:
    try:
        return float(plain(value))
    except (TypeError, ValueError):
        return None


def condition_passes(operator: str, actual: Any, expected: Any) -> bool:
    """The operators of docs/decisions.md "Automation rules, actions and conditions"."""
    value = plain(actual)
    if operator in ("is", "equals"):
        return same(actual, expected)
    if operator == "is_not":
        return not same(actual, expected)
    if operator in ("contains", "not_contains"):
        if isinstance(value, list):
            found = expected in value
        else:
            found = value is not None and str(expected).lower() in str(value).lower()
        return found if operator == "contains" else not found
    if operator in ("gt", "lt"):
        left, right = _number(actual), _number(expected)
        if left is None or right is None:
            return False
        return left > right if operator == "gt" else left < right
    empty = value in (None, "", [], {})
    return empty if operator == "is_empty" else not empty
