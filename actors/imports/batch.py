"""The board command an import sends its rows in: `board.importItems`, an internal command (not a procedure) that
creates one batch of items in one turn of the board's actor (server/domains.py adds `import_items` to the board's
commands). The batch is decided against the board as it is then, each row's values checked again by their columns'
rules (the board may have changed since the preview); a row the board refuses is answered, not created. Each created
item is an `item.created` event like any other, so live screens see the rows arrive batch by batch and webhooks and
automations see each item.

The item ids are chosen by the import before it sends the batch, so a batch sent again (its reply was lost) makes
nothing twice: rows whose item is already on the board are counted as made.

Two costs are kept off the board's turn, which every other write to the board waits for. The rows travel as one
JSON text, decoded here in one call: the board's `prepare` looks through every string of a message for file ids,
and imported values never name a file. Each column the rows fill travels with a fingerprint of its type, config
and required flag as the import read them: a value read against a column that still has that fingerprint is
taken as read (people are checked against the members of the organization again), so a cell is validated once,
not twice; a column changed since is validated again by its rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from immutables import Map

from actors.board.changes import BoardChange, Put
from actors.board.commands import Command, Outcome
from actors.board.items import check_item_room, column_value, with_defaults
from actors.board.state import BoardState, ItemRow
from actors.board.views import item_view
from actors.runtime.actor import Decision
from protocol.columns import COMPUTED_TYPES
from protocol.errors import BadRequest, FieldError, NotFound, ValidationFailed

IMPORT_ITEMS = "board.importItems"


class ImportRow(msgspec.Struct, frozen=True):
    item_id: str
    row: int
    name: str
    group_id: str
    values: dict[str, Any]


class ImportBatch(msgspec.Struct, frozen=True):
    import_id: str
    rows: str  # JSON of list[ImportRow] (`encode_rows`)
    # Column id -> `fingerprint` of the column the rows' values were read against.
    columns: dict[str, str]


_encode = msgspec.json.Encoder().encode
# Sorted keys: a config read back from jsonb and one built in memory name the same column alike.
_encode_sorted = msgspec.json.Encoder(order="sorted").encode
_rows_decoder = msgspec.json.Decoder(list[ImportRow])


def encode_rows(rows: list[ImportRow]) -> str:
    return _encode(rows).decode()


def fingerprint(column_type: str, config: Any, required: bool) -> str:
    """What a value read for a column depends on: its type, config and whether it is required."""
    return _encode_sorted([column_type, config, required]).decode()


def _unchanged(state: BoardState, columns: dict[str, str]) -> frozenset[str]:
    """The columns that are as the import read them."""
    return frozenset(column_id for column_id, seen in columns.items()
                     if (column := state.columns.get(column_id)) is not None
                     and fingerprint(column.type, column.config, column.required) == seen)


@dataclass(frozen=True)
class _Defaults:
    """What `with_defaults` gives every new item, worked out once per batch: the columns' default values, and the
    required columns a value must fill."""

    values: dict[str, Any]
    required: tuple[tuple[str, str], ...]  # (column id, column name)

    @classmethod
    def of(cls, state: BoardState, command: Command) -> _Defaults:
        values: dict[str, Any] = {}
        with_defaults(state, command, values, required=False)
        return cls(values, tuple((c.id, c.name) for c in state.ordered_columns()
                                 if c.required and c.type not in COMPUTED_TYPES))

    def fill(self, values: dict[str, Any]) -> None:
        for column_id, value in self.values.items():
            values.setdefault(column_id, value)
        for column_id, name in self.required:
            if column_id not in values:
                raise ValidationFailed(f"column {name} is required",
                                       details=[FieldError(f"values.{column_id}", "required")])


def _values(state: BoardState, command: Command, row: ImportRow, unchanged: frozenset[str],
            defaults: _Defaults) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for column_id, value in row.values.items():
        column = state.columns.get(column_id)
        field = f"values.{column_id}"
        if column is None or column.type in COMPUTED_TYPES:
            raise ValidationFailed.of(field, "the column was removed from the board")
        if column_id not in unchanged:
            value = column_value(state, command, column_id, value, field)
        elif column.type == "people" and any(person not in command.members for person in value):
            raise ValidationFailed.of(field, "is no longer a member of the organization")
        if value is not None:
            values[column_id] = value
    defaults.fill(values)
    return values


def _assigned(people_columns: frozenset[str], item: ItemRow, caller_id: str | None, counts: dict[str, int]) -> None:
    """Count each person an item's people columns name (the caller aside), once per item."""
    people: set[str] = set()
    for column_id in people_columns:
        value = item.values.get(column_id)
        if isinstance(value, list):
            people.update(value)
    for user_id in people - {caller_id}:
        counts[user_id] = counts.get(user_id, 0) + 1


def import_items(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: ImportBatch = command.data
    board = state.board
    assert board is not None
    groups = state.ordered_groups()
    if not groups:
        raise BadRequest("the board has no group to put the items in")
    made, refused = 0, []
    fresh: list[tuple[ImportRow, dict[str, Any]]] = []
    unchanged = _unchanged(state, data.columns)
    defaults = _Defaults.of(state, command)
    for row in _rows_decoder.decode(data.rows):
        if row.item_id in state.items:
            made += 1
            continue
        try:
            fresh.append((row, _values(state, command, row, unchanged, defaults)))
        except (ValidationFailed, NotFound) as error:
            detail = error.details[0] if error.details else None
            refused.append({"row": row.row, "error": f"{detail.field}: {detail.message}" if detail else error.message})
    check_item_room(state, command, len(fresh))
    out = Outcome(command)
    # Imported items name no other item (dependencies are not imported), so a lookup column shows nothing for
    # them: their views are rendered without the board's items, which a lookup would walk for each one.
    shown = state.with_rows("items", Map()) if any(c.type == "lookup" for c in state.columns.values()) else state
    ends: dict[str, float] = {}
    number = board.next_number
    assigned: dict[str, int] = {}
    people_columns = frozenset(c.id for c in state.columns.values() if c.type == "people")
    for row, values in fresh:
        group_id = row.group_id if row.group_id in state.groups else groups[0].id
        position = ends.get(group_id) or state.end_of(group_id, None)
        ends[group_id] = position + 1.0
        item = ItemRow(id=row.item_id, organization_id=board.organization_id, board_id=board.id, group_id=group_id,
                       parent_id=None, name=row.name, description=None, position=position, values=values,
                       number=number, version=1, created_by=command.caller.user_id, archived_at=None,
                       deleted_at=None, created_at=command.now, updated_at=command.now)
        number += 1
        out.put(item)
        out.emit("item.created", {"item": item_view(shown, item), "importId": data.import_id})
        _assigned(people_columns, item, command.caller.user_id, assigned)
    if fresh:
        out.ops.insert(0, Put(msgspec.structs.replace(board, next_number=number)))
    return out.decision({"created": made + len(fresh), "refused": refused, "assigned": assigned})
