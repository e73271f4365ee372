"""Problem-solving sheets: the three methodologies' data shapes, the inputs with their
limits and the procedure declarations. The spec names no sheet scope: reading needs the `read:items` key
scope, changing `write:items`; changing is for members and up (docs/decisions.md "Problem-solving sheets")."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

from protocol.errors import ValidationFailed
from protocol.fields import Id
from protocol.registry import Procedure, Role, declare

SheetType = Literal["five_whys", "ishikawa", "wwwhwwh"]
SheetStatus = Literal["draft", "in_progress", "completed", "reviewed"]

# Submit moves these to completed (any other state is a 400); review moves completed to reviewed.
SUBMITTABLE = ("draft", "in_progress")
REVIEWABLE = ("completed",)

Title = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
# One answer, cause or 5W2H field: a paragraph, not a document.
Text = Annotated[str, msgspec.Meta(max_length=2000)]
Comment = Annotated[str, msgspec.Meta(max_length=2000)]
# Five whys rarely need more than five; twenty leaves room without inviting unbounded payloads.
MAX_WHYS = 20
# Causes per Ishikawa category: a diagram with more than fifty bones in one branch is no longer readable.
MAX_CAUSES = 50
Cause = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
Causes = Annotated[list[Cause], msgspec.Meta(max_length=MAX_CAUSES)]


class Why(msgspec.Struct):
    question: Text
    answer: Text | None = None


class FiveWhys(msgspec.Struct):
    """`whys[]` of `{question, answer}` as the spec shows it, the problem they start from and the root
    cause they end at."""

    whys: Annotated[list[Why], msgspec.Meta(max_length=MAX_WHYS)] = []
    problem: Text | None = None
    rootCause: Text | None = None


class Categories(msgspec.Struct, forbid_unknown_fields=True):
    """The 6M categories of a fishbone diagram; `environment` is Mother Nature. Another key is refused so
    that a misspelt category never drops causes silently."""

    man: Causes = []
    machine: Causes = []
    method: Causes = []
    material: Causes = []
    measurement: Causes = []
    environment: Causes = []


class Ishikawa(msgspec.Struct):
    problem: Text | None = None
    effect: Text | None = None
    categories: Categories = msgspec.field(default_factory=Categories)
    rootCause: Text | None = None


class FiveWTwoH(msgspec.Struct):
    """5W2H: what, why, where, when, who, how, how much."""

    what: Text | None = None
    why: Text | None = None
    where: Text | None = None
    when: Text | None = None
    who: Text | None = None
    how: Text | None = None
    howMuch: Text | None = None


DATA_SHAPES: dict[str, type[msgspec.Struct]] = {"five_whys": FiveWhys, "ishikawa": Ishikawa, "wwwhwwh": FiveWTwoH}

_AT = re.compile(r"\s*- at `\$(?P<path>[^`]*)`$")
_NAMED = re.compile(r"(?:missing required|unknown) field `(?P<name>[^`]+)`")


def _field(message: str) -> str:
    """`data.<path>` of a msgspec error, down to the missing or unknown key when it names one."""
    match = _AT.search(message)
    path = match.group("path").replace("[", ".").replace("]", "") if match else ""
    named = _NAMED.search(message)
    if named:
        path += "." + named.group("name")
    return "data" + path


def check_data(sheet_type: str, data: Any) -> dict[str, Any]:
    """The sheet's data in its type's shape (absent optional parts filled in, unknown top-level keys dropped);
    ValidationFailed naming the field (e.g. `data.whys.0.answer`) when it does not fit."""
    try:
        shaped = msgspec.convert({} if data is None else data, DATA_SHAPES[sheet_type], strict=True)
    except msgspec.ValidationError as exc:
        field = _field(str(exc))
        message = _AT.sub("", str(exc))
        raise ValidationFailed.of(field, message) from None
    result: dict[str, Any] = msgspec.to_builtins(shaped)
    return result


class CreateInput(msgspec.Struct):
    boardId: Id
    title: Title
    type: SheetType
    data: dict[str, Any] | None = None


class UpdateInput(msgspec.Struct):
    id: Id
    title: Title | None = None
    data: dict[str, Any] | None = None


class IdInput(msgspec.Struct):
    id: Id


class ListInput(msgspec.Struct):
    boardId: Id
    actionId: Id | None = None
    type: SheetType | None = None
    status: SheetStatus | None = None
    limit: int | None = None
    offset: int | None = None


class ByActionInput(msgspec.Struct):
    actionId: Id


class StatusInput(msgspec.Struct):
    id: Id
    status: SheetStatus


class ReviewInput(msgspec.Struct):
    id: Id
    comment: Comment | None = None


class LinkInput(msgspec.Struct):
    sheetId: Id
    actionId: Id


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=Role.MEMBER,
                   summary=summary)


CREATE = _write("problemSolving.create", CreateInput, "Start a problem-solving sheet (five whys, Ishikawa or 5W2H) "
                "on a board, in draft")
UPDATE = _write("problemSolving.update", UpdateInput, "Change a sheet's title, or replace its whole data")
DELETE = _write("problemSolving.delete", IdInput, "Delete a sheet for good", token_scope="delete")
GET = _read("problemSolving.getById", IdInput, "One sheet")
LIST = _read("problemSolving.list", ListInput, "A board's sheets, newest first, by offset")
BY_ACTION = _read("problemSolving.getByAction", ByActionInput, "The sheets linked to an action, newest first")
UPDATE_STATUS = _write("problemSolving.updateStatus", StatusInput, "Set a sheet's status")
SUBMIT = _write("problemSolving.submit", IdInput, "Complete a draft or in-progress sheet")
REVIEW = _write("problemSolving.review", ReviewInput, "Review a completed sheet, with an optional comment")
LINK = _write("problemSolving.linkToRootCause", LinkInput, "Link a sheet to an action as its root-cause analysis: "
              "the sheet names the action and the action's rootCauseId names the sheet")
