"""MCP fixtures: the board fixture of the board tests."""

from tests.integration.boards.conftest import board  # noqa: F401  (fixture re-exported for these tests)
