"""The item a form submission makes (step 2 of the submission pipeline, actors/forms/pipeline.py): an
internal board command, not a procedure. The item's id was chosen when the submission was stored, so the
command is safe to apply twice: an item of that id already on the board is answered as it is, and one made
already but no longer live here (in the trash, moved to another board, purged: `BoardActor.prepare` finds it)
is answered None, never made again. Each mapped answer goes through its column's own validation; a refused one
is 422 naming the form key it came from."""

from __future__ import annotations

from typing import Any

import msgspec

from actors.board.changes import BoardChange
from actors.board.commands import Command, Outcome, decides
from actors.board.items import column_value, notify_assigned, with_defaults
from actors.board.state import BoardState, ItemRow
from actors.board.views import item_view
from actors.runtime.actor import Decision
from protocol.columns import COMPUTED_TYPES
from protocol.errors import BadRequest, FieldError, ValidationFailed

FORM_ITEM = "board.formItem"


class MappedValue(msgspec.Struct, frozen=True):
    column_id: str
    form_key: str
    answer: Any


class FormItem(msgspec.Struct, frozen=True):
    """`values`: every column mapping, `answer` None when not answered. `lenient`: drop refused answers and let
    required columns be empty instead of refusing the item (the sweeper finishing a submission that was already
    acknowledged, whose board changed meanwhile)."""

    item_id: str
    name: str
    description: str | None
    group_id: str | None
    values: tuple[MappedValue, ...] = ()
    lenient: bool = False


def _values(state: BoardState, command: Command, data: FormItem) -> dict[str, Any]:
    values: dict[str, Any] = {}
    faults: list[FieldError] = []
    for mapped in data.values:
        if mapped.answer is None:
            continue  # not answered: the column's default, or its required rule (create_form_item)
        column = state.columns.get(mapped.column_id)
        try:
            if column is None or column.type in COMPUTED_TYPES:
                raise ValidationFailed.of(mapped.form_key, "is mapped to a column the board cannot take it in")
            value = column_value(state, command, mapped.column_id, mapped.answer, mapped.form_key)
        except ValidationFailed as refused:
            if not data.lenient:
                faults.append(FieldError(mapped.form_key, refused.details[0].message if refused.details
                                         else refused.message))
            continue
        if value is not None:
            values[mapped.column_id] = value
    if faults:
        raise ValidationFailed.naming(faults)
    return values


def _by_form_key(missing: ValidationFailed, data: FormItem) -> ValidationFailed:
    """A required column left empty, named by the form key mapped onto it (the respondent can answer that);
    a required column no form key maps onto stays named as the column."""
    keys = {f"values.{mapped.column_id}": mapped.form_key for mapped in data.values}
    return ValidationFailed.naming([FieldError(keys.get(fault.field, fault.field), "is required")
                                    for fault in missing.details or []])


@decides(FORM_ITEM, FormItem)
def create_form_item(state: BoardState, command: Command) -> Decision[BoardChange]:
    data: FormItem = command.data
    board = state.board
    assert board is not None
    existing = state.items.get(data.item_id)
    if existing is not None and existing.deleted_at is None:
        return Decision(reply=item_view(state, existing))
    if existing is not None or data.item_id in state.made:
        return Decision(reply=None)  # made, then trashed, moved away or purged by someone: not made again
    groups = state.ordered_groups()
    if not groups:
        raise BadRequest("the form's board has no group to put the item in")
    group_id = data.group_id if data.group_id is not None and data.group_id in state.groups else groups[0].id
    values = _values(state, command, data)
    try:
        with_defaults(state, command, values, required=not data.lenient)
    except ValidationFailed as missing:
        raise _by_form_key(missing, data) from None
    out = Outcome(command)
    item = ItemRow(id=data.item_id, organization_id=board.organization_id, board_id=board.id, group_id=group_id,
                   parent_id=None, name=data.name, description=data.description,
                   position=state.end_of(group_id, None), values=values, number=board.next_number, version=1,
                   created_by=command.caller.user_id, archived_at=None, deleted_at=None, created_at=command.now,
                   updated_at=command.now)
    out.put(msgspec.structs.replace(board, next_number=board.next_number + 1))
    out.put(item)
    view = item_view(state.with_rows("items", state.items.set(item.id, item)), item)
    out.log("item", item.id, "item.created", boardId=board.id, name=item.name, source="form")
    out.emit("item.created", {"item": view})
    notify_assigned(out, state, item, {})
    return out.decision(view)
