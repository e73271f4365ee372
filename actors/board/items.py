"""Deciders for items: create, read, update, setValue, move, reorder, trash, restore,
archive and the bulk operations. Every write bumps the item's `version`; a stale `expectedVersion` is
409 CONFLICT, so a stale tablet never overwrites a newer change silently."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec

from actors.board.changes import BoardChange
from actors.board.commands import Command, Outcome, decides
from actors.board.item_queries import list_items
from actors.board.paging import page_reply
from actors.board.state import BoardState, ItemRow
from actors.board.values import validate_value
from actors.board.views import item_view
from actors.kernel.events import changes
from actors.runtime.actor import Decision
from protocol import items as spec
from protocol.columns import COMPUTED_TYPES
from protocol.errors import BadRequest, Conflict, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.plans import plan

# Items stay restorable in the trash this long; then the trash sweeper deletes them.
TRASH_DAYS = 30
# Step 2 of a cross-board move: the target board takes the item (`TakeItem`).
TAKE_ITEM = "board.takeItem"
# Before a cross-board move, each board's columns (a read): the source's, and the target's with its group checked.
MOVE_COLUMNS = "board.moveColumns"
# The notification type of an item assignment (the spec names `action_assigned` for actions).
ASSIGNED = "item_assigned"


def find_item(state: BoardState, item_id: str, field: str = "id", *, trashed: bool = False) -> ItemRow:
    item = state.items.get(item_id)
    if item is None or (item.deleted_at is not None) != trashed:
        raise NotFound("item not found", details=[FieldError(field, "no such item on this board")])
    return item


def _check_version(item: ItemRow, expected: int | None) -> None:
    if expected is not None and expected != item.version:
        raise Conflict(f"item changed: version is {item.version}, not {expected}",
                       data={"currentVersion": item.version})


def webhook_item(state: BoardState, item: ItemRow) -> dict[str, Any]:
    """The `data.item` of `item.updated`: id, name, boardId, groupId, status, priority,
    assigneeId, read from the board's first status, priority and people columns; and parentId (null for a
    top-level item), which sub-item automations need."""
    def first(column_type: str) -> Any:
        for column in state.ordered_columns():
            if column.type == column_type:
                return item.values.get(column.id)
        return None

    status = first("status")
    people = first("people")
    return {"id": item.id, "name": item.name, "boardId": item.board_id, "groupId": item.group_id,
            "status": status.get("label") if isinstance(status, dict) else status, "priority": first("priority"),
            "assigneeId": people[0] if isinstance(people, list) and people else None, "parentId": item.parent_id}


def _bump(item: ItemRow, command: Command, **fields: Any) -> ItemRow:
    return msgspec.structs.replace(item, version=item.version + 1, updated_at=command.now, **fields)


def column_value(state: BoardState, command: Command, column_id: str, value: Any, field: str) -> Any:
    """`value` as column `column_id` stores it, by the column's own rules (a `file` value's files and a
    `dependency` value's items must exist too); bad ones are named `field`."""
    column = state.columns.get(column_id)
    if column is None:
        raise NotFound("column not found", details=[FieldError(field, "no such column on this board")])
    if value is None:
        if column.required:
            raise ValidationFailed("a required column cannot be cleared", details=[FieldError(field, "required")])
        return None
    checked = validate_value(column.type, column.config, value, members=command.members, field=field)
    if column.type == "file" and checked:
        return known_files(state, checked, field)
    if column.type == "dependency" and checked:
        for index, item_id in enumerate(checked):
            target = state.items.get(item_id)
            if target is None or target.deleted_at is not None:
                raise ValidationFailed("dependencies name items of this board",
                                       details=[FieldError(f"{field}.{index}", "no such item on this board")])
    return checked


def known_files(state: BoardState, entries: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    """A `file` value names files of the organization (read by `prepare`); each entry is stored as the file
    truly is, whatever name, size or type the caller claimed."""
    known = []
    for index, entry in enumerate(entries):
        found = state.files.get(entry["id"])
        if found is None:
            raise ValidationFailed("file values name files of this organization",
                                   details=[FieldError(f"{field}.{index}", "no such file")])
        known.append({"id": found.id, "name": found.name, "size": found.size, "mimeType": found.content_type})
    return known


def _checked_values(state: BoardState, command: Command, given: dict[str, Any], field: str, *,
                    keep_none: bool = False) -> dict[str, Any]:
    """Every given value checked against its column; all bad ones reported together."""
    checked: dict[str, Any] = {}
    errors: list[FieldError] = []
    for column_id, value in given.items():
        name = f"{field}.{column_id}"
        column = state.columns.get(column_id)
        try:
            if column is not None and column.type in COMPUTED_TYPES:
                raise ValidationFailed("computed columns cannot be written", details=[FieldError(name, "computed")])
            checked[column_id] = column_value(state, command, column_id, value, name)
        except (ValidationFailed, NotFound) as error:
            errors.extend(error.details or [FieldError(name, error.message)])
    if errors:
        raise ValidationFailed.naming(errors)
    return checked if keep_none else {k: v for k, v in checked.items() if v is not None}


def _with_value(values: dict[str, Any], column_id: str, value: Any) -> dict[str, Any]:
    if value is None:
        return {k: v for k, v in values.items() if k != column_id}
    return {**values, column_id: value}


def notify_assigned(out: Outcome, state: BoardState, item: ItemRow, before: dict[str, Any]) -> None:
    """Each person newly put in one of the item's people columns is notified,
    once per item however many columns name them; not the caller, not who was already there."""
    added: dict[str, None] = {}
    for column_id, value in item.values.items():
        column = state.columns.get(column_id)
        if column is None or column.type != "people" or not isinstance(value, list):
            continue
        old = before.get(column_id)
        kept = set(old) if isinstance(old, list) else set()
        added.update((uid, None) for uid in value if uid not in kept)
    for user_id in added:
        if user_id != out.command.caller.user_id:
            out.notify(user_id, ASSIGNED, f"You were assigned to {item.name}", None, "item", item.id)


def _updated(out: Outcome, state: BoardState, before: ItemRow, after: ItemRow, diff: dict[str, Any]) -> None:
    out.put(after)
    out.log("item", after.id, "item.updated", changes=diff)
    out.emit("item.updated", {"item": webhook_item(state, after), "changes": diff})
    notify_assigned(out, state, after, before.values)


def _end(state: BoardState, group_id: str, parent_id: str | None) -> float:
    return state.end_of(group_id, parent_id)


def with_defaults(state: BoardState, command: Command, values: dict[str, Any], *, required: bool = True) -> None:
    """Fill a new item's `values` with each column's default (a status column's default label); 422 naming a
    required column left without a value (unless `required` is false)."""
    for column in state.ordered_columns():
        if column.id not in values and column.default_value is not None:
            values[column.id] = column.default_value
        elif column.id not in values and column.type == "status" and column.config.get("defaultLabelId"):
            values[column.id] = validate_value("status", column.config, {"id": column.config["defaultLabelId"]},
                                               members=command.members, field=f"values.{column.id}")
        if required and column.required and column.id not in values and column.type not in COMPUTED_TYPES:
            raise ValidationFailed(f"column {column.name} is required",
                                   details=[FieldError(f"values.{column.id}", "required")])


def check_item_room(state: BoardState, command: Command, adding: int) -> None:
    """403 naming the limit when `adding` more live items would pass the plan's items per board (a board over it
    since a downgrade keeps every item; only additions are refused). Every item create asks: under the limit it
    costs a length, not a walk through the board."""
    organization = command.caller.organization
    limit = plan(organization.plan).items_per_board if organization is not None else None
    if limit is None or organization is None:
        return
    if len(state.items) + adding <= limit:  # in memory are the live items and a few trashed ones read back
        return
    # Near or over the limit: count live items only until one too many is found, at most `limit` + 1 of them
    # however large a board kept from before a downgrade.
    live, room = 0, limit - adding
    for item in state.items.values():
        if item.deleted_at is None:
            live += 1
            if live > room:
                raise Forbidden(f"the {organization.plan} plan includes {limit} items per board",
                                data={"limit": "maxItemsPerBoard", "max": limit})


@decides(spec.CREATE)
def create_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.CreateItemInput = command.data
    board = state.board
    assert board is not None
    group_id = data.groupId
    if data.parentId is not None:
        parent = find_item(state, data.parentId, "parentId")
        if parent.parent_id is not None:
            raise BadRequest("sub-items cannot have sub-items", details=[FieldError("parentId", "is a sub-item")])
        group_id = parent.group_id
    elif group_id not in state.groups:
        raise NotFound("group not found", details=[FieldError("groupId", "no such group on this board")])
    values = _checked_values(state, command, data.values, "values")
    if data.priority is not None:
        priority = next((c for c in state.ordered_columns() if c.type == "priority"), None)
        if priority is not None and priority.id not in values:
            values[priority.id] = column_value(state, command, priority.id, data.priority, "priority")
    with_defaults(state, command, values)
    check_item_room(state, command, 1)  # after the input's checks: a bad input is told what is wrong with it
    out = Outcome(command)
    item = ItemRow(id=new_id(Prefix.ITEM), organization_id=board.organization_id, board_id=board.id, group_id=group_id,
                   parent_id=data.parentId, name=data.name, description=data.description,
                   position=data.position if data.position is not None else _end(state, group_id, data.parentId),
                   values=values, number=board.next_number, version=1, created_by=command.caller.user_id,
                   archived_at=None, deleted_at=None, created_at=command.now, updated_at=command.now)
    out.put(msgspec.structs.replace(board, next_number=board.next_number + 1))
    out.put(item)
    after = state.with_rows("items", state.items.set(item.id, item))
    view = item_view(after, item)
    out.log("item", item.id, "item.created", boardId=board.id, name=item.name)
    out.emit("item.created", {"item": view})
    notify_assigned(out, state, item, {})
    return out.decision(view)


@decides(spec.GET)
def get_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    return Decision(reply=item_view(state, find_item(state, command.data.id), full=True))


@decides(spec.LIST)
def list_board_items(state: BoardState, command: Command) -> Decision[BoardChange]:
    return Decision(reply=page_reply(list_items(state, command.data)))


@decides(spec.UPDATE)
def update_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.UpdateItemInput = command.data
    item = find_item(state, data.id)
    _check_version(item, data.expectedVersion)
    new = {k: v for k, v in (("name", data.name), ("description", data.description)) if v is not None}
    diff = changes({"name": item.name, "description": item.description}, new)
    out = Outcome(command)
    if not diff:
        return out.decision(item_view(state, item))
    after = _bump(item, command, **new)
    _updated(out, state, item, after, diff)
    return out.decision(item_view(state, after))


@decides(spec.SET_VALUE)
def set_value(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.SetValueInput = command.data
    item = find_item(state, data.itemId, "itemId")
    _check_version(item, data.expectedVersion)
    column = state.columns.get(data.columnId)
    if column is not None and column.type in COMPUTED_TYPES:
        raise ValidationFailed("computed columns cannot be written", details=[FieldError("columnId", "computed")])
    value = column_value(state, command, data.columnId, data.value, "value")
    old = item.values.get(data.columnId)
    out = Outcome(command)
    if old == value:
        return out.decision(item_view(state, item))
    after = _bump(item, command, values=_with_value(item.values, data.columnId, value))
    _updated(out, state, item, after, {data.columnId: {"old": old, "new": value}})
    return out.decision(item_view(state, after))


class MoveTarget(msgspec.Struct, frozen=True):
    """What the service read about the target board of a cross-board move."""

    board_id: str
    group_id: str
    column_map: dict[str, str]  # source column id -> target column id (same name and type)


class MoveAcross(spec.MoveItemInput):
    """`items.move` as the board takes it: the input, and for a move to another board what the service read
    about the target."""

    target: MoveTarget | None = None


@decides(spec.MOVE, MoveAcross)
def move_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.MoveItemInput = command.data
    item = find_item(state, data.id)
    _check_version(item, data.expectedVersion)
    if item.parent_id is not None:
        raise BadRequest("move the parent item; sub-items follow it", details=[FieldError("id", "is a sub-item")])
    out = Outcome(command)
    origin = {"boardId": item.board_id, "groupId": item.group_id}
    if data.boardId is not None and data.boardId != item.board_id:
        return _move_out(state, command, item, origin, out)
    if data.groupId not in state.groups:
        raise NotFound("group not found", details=[FieldError("groupId", "no such group on this board")])
    position = data.position if data.position is not None else _end(state, data.groupId, None)
    after = _bump(item, command, group_id=data.groupId, position=position)
    for sub in state.sub_items(item.id):
        if sub.group_id != data.groupId and sub.deleted_at is None:
            out.put(_bump(sub, command, group_id=data.groupId))
    out.put(after)
    target = {"boardId": after.board_id, "groupId": after.group_id}
    out.log("item", item.id, "item.moved", **{"from": origin, "to": target})
    out.emit("item.moved", {"item": webhook_item(state, after), "from": origin, "to": target})
    return out.decision(item_view(state, after))


def _move_out(state: BoardState, command: Command, item: ItemRow, origin: dict[str, Any],
              out: Outcome) -> Decision[BoardChange]:
    """Across boards, step 1 of 2: this board commits the item (and its sub-items) as leaving for the target
    (`moving_to`, values already carried over to the target's columns of the same name and type) and logs
    `item.moved` on its own stream. The rows leave memory here; the target board takes them (step 2,
    `board.takeItem`) under its own numbering. No actor writes another's rows or waits on another."""
    target_board: MoveTarget = command.data.target
    target = {"boardId": target_board.board_id, "groupId": target_board.group_id}
    moved = [item, *state.sub_items(item.id)]
    for row in moved:
        values = {target_board.column_map[cid]: v for cid, v in row.values.items() if cid in target_board.column_map}
        out.put(_bump(row, command, group_id=target_board.group_id, values=values, moving_to=target_board.board_id))
    out.log("item", item.id, "item.moved", **{"from": origin, "to": target})
    out.emit("item.moved", {"item": {**webhook_item(state, item), **target}, "from": origin, "to": target})
    return out.decision({"id": item.id, **target, "version": item.version + 1})


@decides(MOVE_COLUMNS, str | None)
def move_columns(state: BoardState, command: Command) -> Decision[BoardChange]:
    """The board's columns (id, name and type), for the service to map a moved item's values by name and type;
    on the target board, `data` is the group the item goes to, which must exist."""
    if command.data is not None and command.data not in state.groups:
        raise NotFound("group not found", details=[FieldError("groupId", "no such group on the target board")])
    return Decision(reply=[{"id": c.id, "name": c.name, "type": c.type} for c in state.columns.values()])


class TakeItem(msgspec.Struct, frozen=True):
    """Step 2 of a cross-board move, sent to the target board after the source committed step 1. Idempotent:
    an item already taken is answered as it is, so a retry (or the sweeper) never takes it twice."""

    item_id: str
    source_board_id: str
    position: float | None = None


@decides(TAKE_ITEM, TakeItem)
def take_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: TakeItem = command.data
    board = state.board
    assert board is not None
    taken = state.items.get(data.item_id)
    if taken is not None:  # already taken (by an earlier turn, or earlier in this one): answered as it is
        return Decision(reply=_taken(state, taken))
    item = state.arriving.get(data.item_id)
    if item is None:
        raise NotFound("item not found", details=[FieldError("id", "no such item moving to this board")])
    out = Outcome(command)
    group_id = item.group_id if item.group_id in state.groups else state.ordered_groups()[0].id
    position = data.position if data.position is not None else state.end_of(group_id, None)
    rows = [item, *sorted((i for i in state.arriving.values() if i.parent_id == item.id),
                          key=lambda i: (i.position, i.id))]
    number = board.next_number
    after: list[ItemRow] = []
    for row in rows:
        # Values of columns this board lacks are dropped (an item coming back from a board deleted before it
        # took the item holds that board's column ids).
        values = {column_id: value for column_id, value in row.values.items() if column_id in state.columns}
        after.append(msgspec.structs.replace(
            row, board_id=board.id, group_id=group_id, moving_to=None, number=number, updated_at=command.now,
            values=values, position=position if row.id == item.id else row.position))
        number += 1
    out.put(msgspec.structs.replace(board, next_number=number))
    for row in after:
        out.put(row)
    out.comments_to = (board.id, tuple(row.id for row in rows))
    origin = {"boardId": data.source_board_id, "groupId": None}
    target = {"boardId": board.id, "groupId": group_id}
    out.log("item", item.id, "item.moved", **{"from": origin, "to": target})
    out.emit("item.moved", {"item": webhook_item(state, after[0]), "from": origin, "to": target})
    return out.decision(_taken(state, after[0]))


def _taken(state: BoardState, item: ItemRow) -> dict[str, Any]:
    return {"id": item.id, "boardId": item.board_id, "groupId": item.group_id, "number": item.number,
            "version": item.version, "subItemIds": [i.id for i in state.sub_items(item.id)]}


@decides(spec.REORDER)
def reorder_items(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.ReorderItemsInput = command.data
    if data.groupId not in state.groups:
        raise NotFound("group not found", details=[FieldError("groupId", "no such group on this board")])
    current = {i.id for i in state.items_of_group(data.groupId)}
    if len(data.itemIds) != len(set(data.itemIds)) or set(data.itemIds) != current:
        raise BadRequest("itemIds must list every item of the group exactly once",
                         details=[FieldError("itemIds", "must be a permutation of the group's items")])
    out = Outcome(command)
    for index, item_id in enumerate(data.itemIds):
        item = state.items[item_id]
        if item.position != float(index + 1):
            out.put(_bump(item, command, position=float(index + 1)))
    out.log("group", data.groupId, "item.reordered", itemIds=data.itemIds)
    out.emit("item.moved", {"groupId": data.groupId, "itemIds": data.itemIds, "reordered": True})
    return out.decision({"success": True, "groupId": data.groupId, "itemIds": data.itemIds})


def _trash(out: Outcome, state: BoardState, item: ItemRow, command: Command) -> None:
    for row in [item, *[i for i in state.sub_items(item.id) if i.deleted_at is None]]:
        out.put(_bump(row, command, deleted_at=command.now))
    out.log("item", item.id, "item.deleted", name=item.name, trash=True)
    out.emit("item.deleted", {"item": webhook_item(state, item), "permanent": False,
                              "restorableUntil": iso(command.now + timedelta(days=TRASH_DAYS))})


@decides(spec.DELETE)
def delete_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    item = find_item(state, command.data.id)
    out = Outcome(command)
    _trash(out, state, item, command)
    return out.decision({"success": True, "id": item.id})


@decides(spec.RESTORE)
def restore_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    item = find_item(state, command.data.id, trashed=True)
    assert item.deleted_at is not None
    if command.now - item.deleted_at > timedelta(days=TRASH_DAYS):
        raise NotFound("item not found: it left the trash after 30 days")
    subs = [sub for sub in state.sub_items(item.id) if sub.deleted_at == item.deleted_at]
    check_item_room(state, command, 1 + len(subs))
    group_id = item.group_id if item.group_id in state.groups else state.ordered_groups()[0].id
    out = Outcome(command)
    restored = _bump(item, command, deleted_at=None, group_id=group_id)
    out.put(restored)
    for sub in subs:
        out.put(_bump(sub, command, deleted_at=None, group_id=group_id))
    diff = {"deletedAt": {"old": iso(item.deleted_at), "new": None}}
    out.log("item", item.id, "item.restored", changes=diff)
    out.emit("item.updated", {"item": webhook_item(state, restored), "changes": diff, "restored": True})
    return out.decision(item_view(state, restored))


@decides(spec.ARCHIVE)
def archive_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    item = find_item(state, command.data.id)
    out = Outcome(command)
    if item.archived_at is not None:
        return out.decision(item_view(state, item))
    after = _bump(item, command, archived_at=command.now)
    _updated(out, state, item, after, {"archivedAt": {"old": None, "new": iso(command.now)}})
    return out.decision(item_view(state, after))


@decides(spec.BULK_UPDATE)
def bulk_update(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.BulkUpdateInput = command.data
    targets = [find_item(state, item_id, f"itemIds.{index}") for index, item_id in enumerate(data.itemIds)]
    validated = _checked_values(state, command, data.changes, "changes", keep_none=True)
    out = Outcome(command)
    views = []
    for item in {item.id: item for item in targets}.values():
        values = item.values
        diff = {}
        for column_id, value in validated.items():
            if values.get(column_id) != value:
                diff[column_id] = {"old": values.get(column_id), "new": value}
                values = _with_value(values, column_id, value)
        after = item
        if diff:
            after = _bump(item, command, values=values)
            _updated(out, state, item, after, diff)
        views.append(item_view(state, after))
    return out.decision({"updated": len(views), "items": views})


@decides(spec.BULK_DELETE)
def bulk_delete(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: spec.BulkDeleteInput = command.data
    targets = [find_item(state, item_id, f"itemIds.{index}") for index, item_id in enumerate(data.itemIds)]
    out = Outcome(command)
    for item in {item.id: item for item in targets}.values():
        _trash(out, state, item, command)
    ids = list(dict.fromkeys(item.id for item in targets))
    return out.decision({"deleted": len(ids), "ids": ids})
