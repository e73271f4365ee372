"""A board's in-memory state: immutable rows keyed by id, replaced (never mutated) by `apply`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import msgspec


class BoardRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    project_id: str
    name: str
    default_view: str
    next_number: int
    created_by: str | None
    created_at: datetime
    updated_at: datetime


class GroupRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    board_id: str
    name: str
    color: str
    position: float
    collapsed: bool = False


class ColumnRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    board_id: str
    name: str
    type: str
    position: float
    width: int
    required: bool
    config: dict[str, Any]
    default_value: Any
    created_at: datetime


class ItemRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    board_id: str
    group_id: str
    parent_id: str | None
    name: str
    description: str | None
    position: float
    values: dict[str, Any]
    number: int | None
    version: int
    created_by: str | None
    archived_at: datetime | None
    deleted_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def live(self) -> bool:
        """Neither archived nor in the trash."""
        return self.archived_at is None and self.deleted_at is None


class CommentRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    organization_id: str
    board_id: str
    item_id: str
    parent_id: str | None
    author_id: str | None
    body: str
    body_html: str
    mentions: list[str]
    attachment_ids: list[str]
    reactions: dict[str, list[str]]
    is_pinned: bool
    created_at: datetime
    updated_at: datetime


Row = BoardRow | GroupRow | ColumnRow | ItemRow | CommentRow


@dataclass(frozen=True)
class BoardState:
    board: BoardRow | None = None
    groups: dict[str, GroupRow] = field(default_factory=dict)
    columns: dict[str, ColumnRow] = field(default_factory=dict)
    items: dict[str, ItemRow] = field(default_factory=dict)
    comments: dict[str, CommentRow] = field(default_factory=dict)

    def with_rows(self, table: str, rows: dict[str, Any]) -> BoardState:
        tables: dict[str, Any] = {table: rows}
        return replace(self, **tables)

    def ordered_groups(self) -> list[GroupRow]:
        return sorted(self.groups.values(), key=lambda g: (g.position, g.id))

    def ordered_columns(self) -> list[ColumnRow]:
        return sorted(self.columns.values(), key=lambda c: (c.position, c.id))

    def items_of_group(self, group_id: str) -> list[ItemRow]:
        return sorted((i for i in self.items.values() if i.group_id == group_id and i.parent_id is None
                       and i.deleted_at is None), key=lambda i: (i.position, i.id))
