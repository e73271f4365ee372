"""From a CSV record to an item: each mapped cell read as its board column's type (people by e-mail or name,
dates in the mapping's `dateFormat`, numbers, status and dropdown labels, checkboxes), then checked by the
column's own rules (actors/board/values.py `validate_value`), so a row the preview calls valid is one the board
takes. Pure: the board's columns and groups and the organization's members are read once, before the rows."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from actors.board.values import validate_value
from protocol.columns import COMPUTED_TYPES
from protocol.errors import ValidationFailed
from protocol.imports import ColumnMapping, StoredMapping

# What a CSV cell can carry. Files, dependencies, time tracking and ranges are values a spreadsheet has no
# one-cell form for; computed columns are never written.
IMPORTABLE = frozenset({"text", "long_text", "number", "currency", "percentage", "rating", "progress", "date",
                        "status", "priority", "dropdown", "label", "checkbox", "people", "email", "phone", "url",
                        "link", "color"})
# Cells read per column and kept by their text: values that repeat are read once. Past this many distinct texts a
# column (names, notes, amounts) is read cell by cell, so memory stays bounded.
SEEN_PER_COLUMN = 2000
NUMERIC = frozenset({"number", "currency", "percentage", "rating", "progress"})
ITEM_NAME_MAX = 500  # items.create's limit (protocol/items.py ItemName)
TRUE = frozenset({"true", "yes", "y", "1", "x", "✓", "✔", "checked", "on"})
FALSE = frozenset({"false", "no", "n", "0", "unchecked", "off"})
# Inside one cell, several people, labels or dropdown options are separated by commas.
LIST_SEPARATOR = ","
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_CURRENCY_SIGNS = "$€£¥₹"
# dateFormat -> (separator, order of year, month, day in the text).
_DATE_ORDERS = {"YYYY-MM-DD": ("-", "ymd"), "DD/MM/YYYY": ("/", "dmy"), "MM/DD/YYYY": ("/", "mdy"),
                "DD.MM.YYYY": (".", "dmy"), "DD-MM-YYYY": ("-", "dmy"), "MM-DD-YYYY": ("-", "mdy"),
                "YYYY/MM/DD": ("/", "ymd")}
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class CellError(Exception):
    """A cell that cannot be read as its column's type; the message is the user's."""


@dataclass(frozen=True)
class BoardColumn:
    id: str
    name: str
    type: str
    config: dict[str, Any]
    required: bool
    has_default: bool


@dataclass(frozen=True)
class Member:
    id: str
    email: str
    name: str


@dataclass
class ParsedRow:
    row: int
    name: str
    group_id: str
    values: dict[str, Any] = field(default_factory=dict)
    cells: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors


class RowReader:
    """Reads records into items by a stored mapping."""

    def __init__(self, mapping: StoredMapping, headers: Sequence[str], columns: Sequence[BoardColumn],
                 groups: Mapping[str, str], members: Sequence[Member], delimiter: str) -> None:
        self.mapping = mapping
        self._headers = headers
        self._columns = {column.id: column for column in columns}
        self._groups = {name.casefold(): group_id for group_id, name in groups.items()}
        self._member_ids = frozenset(member.id for member in members)
        self._by_email = {member.email.casefold(): member.id for member in members}
        self._by_name: dict[str, list[str]] = {}
        for member in members:
            self._by_name.setdefault(member.name.strip().casefold(), []).append(member.id)
        self._decimal_comma = delimiter != ","
        self._name_index = next(m.csvIndex for m in mapping.mappings if m.target == "item_name")
        self._group_index = next((m.csvIndex for m in mapping.mappings if m.target == "group"), None)
        self._cells = [m for m in mapping.mappings if m.target == "column"]
        self._seen: dict[str, dict[str, tuple[Any, str | None]]] = {}
        mapped = {m.columnId for m in self._cells}
        # Required columns no CSV column fills and no default fills: every row misses them.
        self._unfilled = [c for c in columns if c.required and not c.has_default and c.id not in mapped
                          and c.type not in COMPUTED_TYPES]

    @property
    def columns(self) -> list[BoardColumn]:
        """The board columns the mapping fills."""
        return [self._columns[m.columnId] for m in self._cells if m.columnId is not None]

    def header(self, index: int) -> str:
        return self._headers[index] if index < len(self._headers) and self._headers[index] else f"#{index}"

    def read(self, number: int, fields: Sequence[str]) -> ParsedRow:
        def cell(index: int) -> str:
            return fields[index].strip() if index < len(fields) else ""

        name = cell(self._name_index)
        parsed = ParsedRow(number, name, self.mapping.groupId)
        if not name:
            parsed.errors.append(self._error(number, self._name_index, name, "the item name is empty"))
        elif len(name) > ITEM_NAME_MAX:
            parsed.errors.append(self._error(number, self._name_index, name[:100],
                                             f"an item name has at most {ITEM_NAME_MAX} characters"))
        if self._group_index is not None and (group := cell(self._group_index)):
            group_id = self._groups.get(group.casefold())
            if group_id is None:
                parsed.errors.append(self._error(number, self._group_index, group,
                                                 "no group of this name on the board"))
            else:
                parsed.group_id = group_id
        for mapping in self._cells:
            self._read_cell(parsed, mapping, cell(mapping.csvIndex))
        for column in self._unfilled:
            parsed.errors.append({"row": number, "column": column.name, "csvIndex": None, "value": "",
                                  "error": "the board requires this column and no CSV column is mapped onto it"})
        return parsed

    def _value(self, column: BoardColumn, text: str) -> tuple[Any, str | None]:
        """The cell's value for the column, or why it has none; the same text in the same column is read once
        (status labels, people, dates and checkboxes repeat down a sheet)."""
        seen = self._seen.setdefault(column.id, {})
        known = seen.get(text)
        if known is not None:
            return known
        try:
            raw = self._typed(column, text)
            value = None if raw is None else validate_value(column.type, column.config, raw,
                                                            members=self._member_ids, field="value")
        except CellError as error:
            outcome: tuple[Any, str | None] = (None, str(error))
        except ValidationFailed as refused:
            outcome = (None, refused.details[0].message if refused.details else refused.message)
        else:
            outcome = (value, None)
        if len(seen) < SEEN_PER_COLUMN:
            seen[text] = outcome
        return outcome

    def _read_cell(self, parsed: ParsedRow, mapping: ColumnMapping, text: str) -> None:
        assert mapping.columnId is not None
        column = self._columns[mapping.columnId]
        entry: dict[str, Any] = {"csvIndex": mapping.csvIndex, "columnId": column.id, "value": text}
        value, message = self._value(column, text)
        if message is None and value is None and column.required and not column.has_default:
            message = "the board requires a value in this column"
        if message is not None:
            entry.update(parsed=None, valid=False, error=message)
            parsed.errors.append(self._error(parsed.row, mapping.csvIndex, text, message))
        else:
            entry.update(parsed=value, valid=True)
            if column.type == "people" and value:
                entry["resolvedUserId"] = value[0]
                entry["resolvedUserIds"] = value
            if value is not None:
                parsed.values[column.id] = value
        parsed.cells.append(entry)

    def _error(self, number: int, index: int, value: str, message: str) -> dict[str, Any]:
        return {"row": number, "column": self.header(index), "csvIndex": index, "value": value, "error": message}

    def _typed(self, column: BoardColumn, text: str) -> Any:
        """The cell as the value a caller of `items.create` would send for this column (None: empty)."""
        if not text:
            return None
        kind = column.type
        if kind in NUMERIC:
            return self._number(text, percent=kind in ("percentage", "progress"))
        if kind == "date":
            return read_date(text, self.mapping.dateFormat)
        if kind == "checkbox":
            folded = text.casefold()
            if folded in TRUE:
                return True
            if folded in FALSE:
                return False
            raise CellError("is not a checkbox value (true/false, yes/no, 1/0, x)")
        if kind == "people":
            return [self._person(part) for part in _parts(text)]
        if kind == "label" or (kind == "dropdown" and column.config.get("multiple")):
            return _parts(text)
        return text

    def _number(self, text: str, *, percent: bool) -> float:
        compact = text.replace(" ", "").replace("\u00a0", "").replace("'", "").strip(_CURRENCY_SIGNS)
        if percent:
            compact = compact.removesuffix("%")
        if "," in compact and "." in compact:
            # Both: the later one is the decimal mark, the other groups thousands.
            thousands = "." if compact.rfind(",") > compact.rfind(".") else ","
            compact = compact.replace(thousands, "").replace(",", ".")
        elif "," in compact:
            compact = compact.replace(",", "." if self._decimal_comma and compact.count(",") == 1 else "")
        if not _NUMBER.match(compact):
            raise CellError("is not a number")
        number = float(compact)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number

    def _person(self, text: str) -> str:
        if "@" in text:
            found = self._by_email.get(text.casefold())
            if found is None:
                raise CellError(f"no member of the organization has the e-mail {text}")
            return found
        named = self._by_name.get(text.casefold(), [])
        if not named:
            raise CellError(f"no member of the organization is named {text}")
        if len(named) > 1:
            raise CellError(f"{len(named)} members are named {text}: use their e-mail")
        return named[0]


def _parts(text: str) -> list[str]:
    return [part.strip() for part in text.split(LIST_SEPARATOR) if part.strip()]


def read_date(text: str, date_format: str) -> str:
    """A date written in `date_format` (or in ISO 8601, which is never ambiguous) as YYYY-MM-DD."""
    if _ISO_DATE.match(text):
        return text
    separator, order = _DATE_ORDERS[date_format]
    parts = text.split(separator)
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise CellError(f"is not a date in the format {date_format}")
    fields = dict(zip(order, parts, strict=True))
    if len(fields["y"]) != 4 or len(fields["m"]) > 2 or len(fields["d"]) > 2:
        raise CellError(f"is not a date in the format {date_format}")
    try:
        return date(int(fields["y"]), int(fields["m"]), int(fields["d"])).isoformat()
    except ValueError:
        raise CellError("is not a calendar date") from None
