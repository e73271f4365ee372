"""Standard-work checklists: the inputs with their limits and the procedure declarations.

The spec names no checklist scope: reading needs the `read:items` key scope, changing `write:items`.
Templates are managed by members and up; a checklist is completed by whoever it applies to, guests
included (they work items on the boards shared with them, and checklists are shop-floor work too).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import msgspec

from protocol.fields import Id
from protocol.registry import Procedure, Role, declare

Frequency = Literal["daily", "shift", "weekly", "monthly"]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Description = Annotated[str, msgspec.Meta(max_length=2000)]
ItemText = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Comment = Annotated[str, msgspec.Meta(max_length=2000)]
DeadlineHour = Annotated[int, msgspec.Meta(ge=0, le=23)]

# A checklist is read and ticked on a tablet at the line: a hundred steps is already far past useful.
MAX_ITEMS = 100
MAX_ASSIGNEES = 100


class ItemInput(msgspec.Struct):
    text: ItemText
    required: bool = True
    # On update, an item given with the id of one of the checklist's items keeps that id.
    id: Id | None = None


Items = Annotated[list[ItemInput], msgspec.Meta(min_length=1, max_length=MAX_ITEMS)]
AssigneeIds = Annotated[list[Id], msgspec.Meta(max_length=MAX_ASSIGNEES)]


class Response(msgspec.Struct):
    itemId: Id
    checked: bool
    comment: Comment | None = None


Responses = Annotated[list[Response], msgspec.Meta(min_length=1, max_length=MAX_ITEMS)]


class BoardInput(msgspec.Struct):
    boardId: Id


class ListInput(msgspec.Struct):
    boardId: Id
    isActive: bool | None = None


class IdInput(msgspec.Struct):
    id: Id


class CreateInput(msgspec.Struct):
    boardId: Id
    name: Name
    frequency: Frequency
    items: Items
    description: Description | None = None
    assigneeIds: AssigneeIds = []
    deadlineHour: DeadlineHour = 17


class UpdateInput(msgspec.Struct):
    id: Id
    name: Name | None = None
    description: Description | None = None
    frequency: Frequency | None = None
    items: Items | None = None
    assigneeIds: AssigneeIds | None = None
    deadlineHour: DeadlineHour | None = None
    isActive: bool | None = None


# The fields of a template that checklists.update may change.
TEMPLATE_FIELDS = ("name", "description", "frequency", "items", "assigneeIds", "deadlineHour", "isActive")


class CompleteInput(msgspec.Struct):
    checklistId: Id
    responses: Responses


class HistoryInput(msgspec.Struct):
    checklistId: Id
    startDate: date | None = None
    endDate: date | None = None
    limit: int | None = None
    offset: int | None = None


class RateInput(msgspec.Struct):
    checklistId: Id
    startDate: date
    endDate: date


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None,
           min_role: Role = Role.MEMBER) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=min_role,
                   summary=summary)


CREATE = _write("checklists.create", CreateInput, "Create a standard-work checklist on a board")
UPDATE = _write("checklists.update", UpdateInput, "Change a checklist's name, description, frequency, items, "
                "assignees, deadline hour or active flag")
DELETE = _write("checklists.delete", IdInput, "Delete a checklist and all its completions", token_scope="delete")
LIST = _read("checklists.list", ListInput, "A board's checklists, newest first")
TODAY = _read("checklists.getToday", BoardInput, "The caller's active checklists of a board for the current "
              "period, each saying whether it is completed")
COMPLETE = _write("checklists.complete", CompleteInput, "Complete a checklist for the current period",
                  min_role=Role.GUEST)
HISTORY = _read("checklists.getCompletionHistory", HistoryInput, "A checklist's completions, newest first")
MISSED = _read("checklists.getMissed", BoardInput, "A board's active checklists past their deadline hour and not "
               "completed in the current period")
RATE = _read("checklists.getCompletionRate", RateInput, "How many of the expected completions a checklist had "
             "between two dates")
