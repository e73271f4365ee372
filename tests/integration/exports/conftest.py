"""Export fixtures: the board fixture of the board tests and reading an export back with csv.reader."""

from __future__ import annotations

import csv
import io
from typing import Any

from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)

# Names a naive CSV writer would break: a comma, a quote, a line break, a CR LF, leading and trailing spaces.
AWKWARD = ['Leak, "big" one\nsecond line', 'He said "stop"', "a,b,c", "  padded  ", "windows\r\nbreak", "=1+2"]


async def export(api: Api, name: str, input: dict[str, Any]) -> str:
    reply = await api.query(f"export.{name}", input)
    assert reply.status == 200, reply.body
    assert isinstance(reply.data, str)
    return str(reply.data)


def parse(text: str) -> list[list[str]]:
    """The rows of a CSV export, the header first; every record ends with CR LF."""
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text, newline="")))


__all__ = ["AWKWARD", "Board", "board", "export", "parse"]
