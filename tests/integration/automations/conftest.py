"""Automation fixtures: the board fixture of the board tests and a rule-definition helper."""

from __future__ import annotations

from typing import Any

from tests.integration.boards.conftest import board  # noqa: F401  (fixture re-exported for these tests)


def rule(board_id: str, name: str = "Notify on new items", **fields: Any) -> dict[str, Any]:
    """A valid automations.create input; `fields` replace its parts."""
    return {"boardId": board_id, "name": name, "trigger": {"type": "item.created", "config": {}},
            "conditions": [], "actions": [{"type": "archive_item", "config": {}}], **fields}
