"""A turn's writes composed as one statement: each write is a data-modifying CTE of one `WITH`, with its values as
numbered parameters of the whole. Sent on its own (not inside BEGIN ... COMMIT) it is one implicit transaction and
one round trip to PostgreSQL: all of it is written, or nothing.

What a CTE may be, and what the parts of one statement must respect (PostgreSQL's rules for data-modifying
statements in WITH): a plain INSERT, UPDATE or DELETE (a nested WITH holding one is refused); every part sees the
database as it was when the statement began, none sees another's rows, so no part may depend on what another
writes, and no row may be written by two parts (foreign keys are checked at the end, so a part may refer to a row
another part inserts); a part that only reads runs only as far as the final query reads it.
"""

from __future__ import annotations

from typing import Any

from storage.connection import Conn


class TurnStatement:
    """Parts added in order, each `name AS (sql)`; `param` numbers a value for them to use."""

    def __init__(self) -> None:
        self.args: list[Any] = []
        self._parts: list[tuple[str, str]] = []

    def param(self, value: Any) -> str:
        """The placeholder (`$n`) that stands for `value` in a part's SQL."""
        self.args.append(value)
        return f"${len(self.args)}"

    def add(self, sql: str, name: str | None = None) -> str:
        """Add a part (`name`: how later parts and the final query refer to it); returns its name."""
        name = name or f"w{len(self._parts)}"
        self._parts.append((name, sql))
        return name

    def __bool__(self) -> bool:
        return bool(self._parts)

    def text(self, final: str = "SELECT NULL") -> str:
        """The statement: every part, then `final`, the query whose rows it returns."""
        return "WITH " + ", ".join(f"{name} AS ({sql})" for name, sql in self._parts) + f" {final}"

    async def execute(self, conn: Conn) -> None:
        """Run it inside the caller's transaction (or as one of its own outside of one)."""
        if self._parts:
            await conn.execute(self.text(), *self.args)
