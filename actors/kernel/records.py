"""Database records as the actors' row structs: a record's columns picked by the struct's field names (a
`SELECT *` may hold more columns than the struct has fields)."""

from __future__ import annotations

from typing import Any

import asyncpg


def row_from_record(row_type: type[Any], record: asyncpg.Record) -> Any:
    return row_type(**{name: record[name] for name in row_type.__struct_fields__})
