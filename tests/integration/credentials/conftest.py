"""Credential fixtures: the board fixture of the board tests, for scopes that reach board data."""

from tests.integration.boards.conftest import board  # noqa: F401  (fixture re-exported for these tests)
