"""The board column types (docs/column-types.md) and the shape of each type's `config`.

Each writable config is a msgspec Struct carrying its limits; the rules that need more than a shape
(unique label names, `min` <= `max`, a formula that parses) and every value rule live in
actors/board/values.py. docs/column-types.md describes both for callers.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import msgspec

from protocol.fields import Id

ColumnType = Literal[
    "text", "long_text", "number", "currency", "percentage", "rating", "progress", "date", "date_range",
    "timeline", "time_tracking", "status", "label", "dropdown", "checkbox", "priority", "people", "link",
    "dependency", "formula", "lookup", "auto_number", "created_date", "last_updated", "file", "email", "phone",
    "url", "color",
]
COLUMN_TYPES: tuple[str, ...] = get_args(ColumnType)
# Columns whose value the server computes from the item (and, for lookup, its dependencies): never written.
COMPUTED_TYPES: frozenset[str] = frozenset({"formula", "lookup", "auto_number", "created_date", "last_updated"})

TEXT_MAX = 2000
LONG_TEXT_MAX = 20000
# Numbers stay integers-exact in JavaScript clients up to 2**53 (about 9e15); 1e15 leaves room for sums.
NUMBER_LIMIT = 1e15
# A list value (people, labels, dependencies, files) longer than this is a mistake, not a board.
LIST_MAX = 100
FORMULA_MAX = 1000

HexColor = Annotated[str, msgspec.Meta(pattern=r"^#[0-9A-Fa-f]{6}$")]
LabelName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Decimals = Annotated[int, msgspec.Meta(ge=0, le=10)]
Suffix = Annotated[str, msgspec.Meta(max_length=20)]


class Label(msgspec.Struct, kw_only=True):
    """A choice of a label or priority column; `id` is given by the server when left out."""

    id: Id | None = None
    name: LabelName
    color: HexColor


class StatusLabel(Label, kw_only=True):
    isDone: bool = False


class EmptyConfig(msgspec.Struct):
    """Types with nothing to configure; unknown keys are dropped."""


class StatusConfig(msgspec.Struct, kw_only=True):
    # None (left out) means the default labels: Working on it, Done, Stuck.
    labels: Annotated[list[StatusLabel], msgspec.Meta(min_length=1, max_length=50)] | None = None
    defaultLabelId: Id | None = None


class LabelConfig(msgspec.Struct, kw_only=True):
    labels: Annotated[list[Label], msgspec.Meta(max_length=LIST_MAX)] = msgspec.field(default_factory=list)


class PriorityConfig(msgspec.Struct, kw_only=True):
    # Ordered from the lowest priority to the highest; None means low, medium, high, critical.
    labels: Annotated[list[Label], msgspec.Meta(min_length=1, max_length=10)] | None = None


class NumberConfig(msgspec.Struct, kw_only=True):
    decimals: Decimals | None = None
    suffix: Suffix = ""
    min: float | None = None
    max: float | None = None


class CurrencyConfig(msgspec.Struct, kw_only=True):
    currency: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{3}$")] = "USD"
    decimals: Annotated[int, msgspec.Meta(ge=0, le=4)] = 2
    min: float | None = None
    max: float | None = None


class PercentageConfig(msgspec.Struct, kw_only=True):
    decimals: Decimals | None = None
    min: float = 0
    max: float = 100


class RatingConfig(msgspec.Struct, kw_only=True):
    max: Annotated[int, msgspec.Meta(ge=1, le=10)] = 5


class DropdownConfig(msgspec.Struct, kw_only=True):
    options: Annotated[list[LabelName], msgspec.Meta(max_length=200)] = msgspec.field(default_factory=list)
    multiple: bool = False


class PeopleConfig(msgspec.Struct, kw_only=True):
    multiple: bool = True


class FormulaConfig(msgspec.Struct, kw_only=True):
    # Empty means "not written yet": every item's value is null.
    expression: Annotated[str, msgspec.Meta(max_length=FORMULA_MAX)] = ""
    # The result is rounded to this many places; None rounds to 10, which hides float noise (0.1 + 0.2).
    decimals: Decimals | None = None


LookupAggregate = Literal["list", "count", "sum", "avg", "min", "max"]


class LookupConfig(msgspec.Struct, kw_only=True):
    dependencyColumnId: Id | None = None
    targetColumnId: Id | None = None
    aggregate: LookupAggregate = "list"


CONFIGS: dict[str, type[msgspec.Struct]] = {
    **{name: EmptyConfig for name in COLUMN_TYPES},
    "status": StatusConfig,
    "label": LabelConfig,
    "priority": PriorityConfig,
    "number": NumberConfig,
    "currency": CurrencyConfig,
    "percentage": PercentageConfig,
    "rating": RatingConfig,
    "dropdown": DropdownConfig,
    "people": PeopleConfig,
    "formula": FormulaConfig,
    "lookup": LookupConfig,
}
