"""A board's in-memory state: immutable rows keyed by id in persistent maps (`immutables.Map`), replaced
(never mutated) by `apply`. A change costs time in proportion to the rows it touches: the maps share
everything else with the previous state, and the order of items is sorted once per state, on first read.

Only live state is held: items in the trash and comments are read from the database when a message needs
them (`BoardActor.prepare`, actors/board/on_demand.py), so a board costs memory in proportion to its live items."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Any

import msgspec
from immutables import Map


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
    # Set while the item leaves for another board (between the source's commit and the target's take).
    moving_to: str | None = None

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
    # What each attachment was when the comment was made ({id, name, size, type}): files never change.
    attachments: list[dict[str, Any]] = msgspec.field(default_factory=list)


class FileRef(msgspec.Struct, frozen=True, kw_only=True):
    """A file of the organization a message names (a comment attachment, a `file` column value), read by
    `BoardActor.prepare` so that deciding checks it without I/O. Not a board row: files are the organization's."""

    id: str
    name: str
    size: int
    content_type: str


Row = BoardRow | GroupRow | ColumnRow | ItemRow | CommentRow


Siblings = tuple[str, str | None]  # (group id, parent item id): the items one position order ranks


@dataclass(frozen=True, eq=False)
class BoardState:
    board: BoardRow | None = None
    groups: Map[str, GroupRow] = field(default_factory=Map)
    columns: Map[str, ColumnRow] = field(default_factory=Map)
    items: Map[str, ItemRow] = field(default_factory=Map)
    comments: Map[str, CommentRow] = field(default_factory=Map)
    # The highest position among each set of siblings, for appending at the end without a scan. It never
    # goes down when an item leaves, so an appended item still lands after every one present.
    ends: Map[Siblings, float] = field(default_factory=Map)
    # Items that have sub-items -> their ids, so a parent's sub-items are found without a scan.
    children: Map[str, frozenset[str]] = field(default_factory=Map)
    # Items whose comments were read from the database into `comments` (all others: not loaded yet).
    comments_of: frozenset[str] = frozenset()
    # Rows another board is handing over (`board.takeItem`), read for the turn that takes them.
    arriving: Map[str, ItemRow] = field(default_factory=Map)
    # The organization's files the current turn's messages name (`prepare`); only those, so memory stays small.
    files: Map[str, FileRef] = field(default_factory=Map)
    # Form items (`board.formItem`) found made already though not live here: in the trash, moved away or purged.
    made: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Plain dicts are accepted (exports build a state from rows) and kept as persistent maps.
        for name in ("groups", "columns", "items", "comments", "ends", "children"):
            value = getattr(self, name)
            if not isinstance(value, Map):
                object.__setattr__(self, name, Map(value))

    def with_rows(self, table: str, rows: Mapping[str, Any]) -> BoardState:
        fields: dict[str, Any] = {table: rows}
        return replace(self, **fields)

    def ordered_groups(self) -> list[GroupRow]:
        return sorted(self.groups.values(), key=lambda g: (g.position, g.id))

    def ordered_columns(self) -> list[ColumnRow]:
        return sorted(self.columns.values(), key=lambda c: (c.position, c.id))

    def sub_items(self, parent_id: str) -> list[ItemRow]:
        """The item's sub-items in memory (live ones, and trashed ones a message read back), in position order."""
        rows = [self.items[i] for i in self.children.get(parent_id, ()) if i in self.items]
        return sorted(rows, key=lambda i: (i.position, i.id))

    def end_of(self, group_id: str, parent_id: str | None) -> float:
        """A position after every sibling's: where an item appended to this group (or parent) goes."""
        return self.ends.get((group_id, parent_id), 0.0) + 1.0

    @cached_property
    def board_order(self) -> list[ItemRow]:
        """Top-level items not in the trash, in board order (group position, then item position); sorted
        once per state, so paging through a list sorts nothing again until the board changes."""
        rank = {g.id: g.position for g in self.groups.values()}
        rows = [i for i in self.items.values() if i.parent_id is None and i.deleted_at is None]
        rows.sort(key=lambda i: (rank.get(i.group_id, 0.0), i.position, i.id))
        return rows

    @cached_property
    def orders(self) -> dict[str | None, Any]:
        """Sorted views of this state's items by sort key, as keys and item ids (filled by `items.list`); a new
        state starts empty, but for the board order that `apply_change` hands on when no item changed place."""
        return {}

    @cached_property
    def item_views(self) -> dict[str, dict[str, Any]]:
        """The wire views `items.list` rendered from this state, by item id (a new state starts empty), so a
        board read again and again renders each item once per change. Shared by the replies: never mutated."""
        return {}

    @cached_property
    def item_pages(self) -> dict[bytes, Any]:
        """The `items.list` pages listed from this state, by query, at most MAX_PAGES of them (filled by
        actors/board/item_queries.py); a new state starts empty."""
        return {}

    def items_of_group(self, group_id: str) -> list[ItemRow]:
        return [i for i in self.board_order if i.group_id == group_id]
