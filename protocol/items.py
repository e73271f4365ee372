"""Items, and `items.restore` (an item back from the trash within 30 days)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.fields import Cursor, Id
from protocol.registry import declare

ItemName = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Description = Annotated[str, msgspec.Meta(max_length=100_000)]
Position = Annotated[float, msgspec.Meta(ge=0, le=1e12)]
Version = Annotated[int, msgspec.Meta(ge=1)]
# Bulk operations take at most 100 items.
BulkIds = Annotated[list[Id], msgspec.Meta(min_length=1, max_length=100)]
FilterOperator = Literal["is", "is_not", "contains", "not_contains", "gt", "gte", "lt", "lte", "is_empty",
                         "is_not_empty"]


class Filter(msgspec.Struct):
    columnId: Id
    operator: FilterOperator
    value: Any = None


class ListItemsInput(msgspec.Struct):
    boardId: Id
    groupId: Id | None = None
    cursor: Cursor | None = None
    limit: int | None = None
    sortBy: Id | None = None
    sortDir: Literal["asc", "desc"] = "asc"
    filters: Annotated[list[Filter], msgspec.Meta(max_length=20)] = msgspec.field(default_factory=list)
    includeArchived: bool = False


class ItemIdInput(msgspec.Struct):
    id: Id


class CreateItemInput(msgspec.Struct):
    boardId: Id
    groupId: Id
    name: ItemName
    description: Description | None = None
    position: Position | None = None
    values: dict[str, Any] = msgspec.field(default_factory=dict)
    parentId: Id | None = None
    # REST `POST /api/v1/items` names `priority`: it sets the board's first priority column, if any.
    priority: Annotated[str, msgspec.Meta(max_length=100)] | None = None


class UpdateItemInput(msgspec.Struct):
    id: Id
    name: ItemName | None = None
    description: Description | None = None
    expectedVersion: Version | None = None


class SetValueInput(msgspec.Struct):
    itemId: Id
    columnId: Id
    value: Any = None
    expectedVersion: Version | None = None


class MoveItemInput(msgspec.Struct):
    id: Id
    groupId: Id
    position: Position | None = None
    boardId: Id | None = None
    expectedVersion: Version | None = None


class ReorderItemsInput(msgspec.Struct):
    groupId: Id
    itemIds: Annotated[list[Id], msgspec.Meta(min_length=1, max_length=5000)]


class BulkUpdateInput(msgspec.Struct):
    itemIds: BulkIds
    changes: Annotated[dict[str, Any], msgspec.Meta(min_length=1)]


class BulkDeleteInput(msgspec.Struct):
    itemIds: BulkIds


READ, WRITE = "read:items", "write:items"

LIST = declare("items.list", "query", ListItemsInput, key_scope=READ, summary="A board's items, paged")
GET = declare("items.get", "query", ItemIdInput, key_scope=READ,
              summary="An item with its values, sub-items, comment and file counts")
CREATE = declare("items.create", "mutation", CreateItemInput, key_scope=WRITE, summary="Create an item")
UPDATE = declare("items.update", "mutation", UpdateItemInput, key_scope=WRITE,
                 summary="Rename an item or change its description")
SET_VALUE = declare("items.setValue", "mutation", SetValueInput, key_scope=WRITE,
                    summary="Set one column value of an item")
MOVE = declare("items.move", "mutation", MoveItemInput, key_scope=WRITE,
               summary="Move an item to another group or board")
REORDER = declare("items.reorder", "mutation", ReorderItemsInput, key_scope=WRITE,
                  summary="Put a group's items in a new order")
DELETE = declare("items.delete", "mutation", ItemIdInput, key_scope=WRITE, token_scope="delete",
                 summary="Move an item to the trash (restorable for 30 days)")
RESTORE = declare("items.restore", "mutation", ItemIdInput, key_scope=WRITE,
                  summary="Bring an item back from the trash within 30 days")
ARCHIVE = declare("items.archive", "mutation", ItemIdInput, key_scope=WRITE, summary="Archive an item")
BULK_UPDATE = declare("items.bulkUpdate", "mutation", BulkUpdateInput, key_scope=WRITE,
                      summary="Set column values on up to 100 items")
BULK_DELETE = declare("items.bulkDelete", "mutation", BulkDeleteInput, key_scope=WRITE, token_scope="delete",
                      summary="Move up to 100 items to the trash")
