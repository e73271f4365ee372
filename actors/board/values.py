"""Column configs and column values (docs/column-types.md): validation, defaults and computed values.

Pure functions used by the board actor's decide step: no I/O, no clock. Bad input raises
ValidationFailed naming the exact field; nothing else is raised for what a caller sent.
docs/column-types.md is the caller's view of these rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, NoReturn
from urllib.parse import urlsplit

import msgspec

from actors.board.formula import FormulaError, apply_operator, compile_formula
from protocol import columns as kinds
from protocol.errors import ValidationFailed
from protocol.fields import EMAIL_PATTERN
from protocol.ids import Prefix, iso, new_id, parse_iso

Config = dict[str, Any]

DEFAULT_STATUS_LABELS = (("Working on it", "#FDAB3D", False), ("Done", "#00C875", True), ("Stuck", "#E2445C", False))
DEFAULT_PRIORITIES = (("Low", "#579BFC"), ("Medium", "#FDAB3D"), ("High", "#E2445C"), ("Critical", "#333333"))

_AT_PATH = re.compile(r"\s*- at `\$(?P<path>[^`]*)`$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EMAIL = re.compile(EMAIL_PATTERN)
_PHONE = re.compile(r"^\+\d{7,15}$")
_PHONE_SEPARATORS = re.compile(r"[\s\-.()]")
_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")


def _fail(field: str, message: str) -> NoReturn:
    raise ValidationFailed.of(field, message)


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


# ---------------------------------------------------------------------------------------------- config

def default_config(column_type: str) -> Config:
    """The config a column of this type gets when created without one (fresh label ids each call)."""
    return normalize_config(column_type, None)


def normalize_config(column_type: str, config: Config | None, *, field: str = "config") -> Config:
    """Validate a column's config for its type and fill its defaults; errors name `field.<key>`."""
    shape = kinds.CONFIGS.get(column_type)
    if shape is None:
        _fail("type", f"unknown column type {column_type!r}")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        _fail(field, "must be an object")
    try:
        settings = msgspec.convert(config, shape, strict=True)
    except msgspec.ValidationError as exc:
        match = _AT_PATH.search(str(exc))
        path = match.group("path").replace("[", ".").replace("]", "") if match else ""
        _fail(field + path, _AT_PATH.sub("", str(exc)))
    result: Config = msgspec.to_builtins(settings)
    if "labels" in result:
        result["labels"] = _labels(column_type, result["labels"], f"{field}.labels")
    _check_config(column_type, result, field)
    return result


def _labels(column_type: str, labels: list[dict[str, Any]] | None, field: str) -> list[dict[str, Any]]:
    if labels is None:
        if column_type == "status":
            labels = [{"name": n, "color": c, "isDone": d} for n, c, d in DEFAULT_STATUS_LABELS]
        else:
            labels = [{"name": n, "color": c} for n, c in DEFAULT_PRIORITIES]
    ids: set[str] = set()
    names: set[str] = set()
    out = []
    for index, label in enumerate(labels):
        label = {"id": label.get("id") or new_id(Prefix.LABEL), **{k: v for k, v in label.items() if k != "id"}}
        if label["id"] in ids:
            _fail(f"{field}.{index}.id", "duplicate label id")
        if label["name"].casefold() in names:
            _fail(f"{field}.{index}.name", "duplicate label name")
        ids.add(label["id"])
        names.add(label["name"].casefold())
        out.append(label)
    return out


def _check_config(column_type: str, config: Config, field: str) -> None:
    if column_type == "status" and config["defaultLabelId"] is not None:
        if config["defaultLabelId"] not in {label["id"] for label in config["labels"]}:
            _fail(f"{field}.defaultLabelId", "is not one of the labels' ids")
    if column_type == "dropdown":
        seen: set[str] = set()
        for index, option in enumerate(config["options"]):
            if option.casefold() in seen:
                _fail(f"{field}.options.{index}", "duplicate option")
            seen.add(option.casefold())
    low, high = config.get("min"), config.get("max")
    if low is not None and high is not None and low > high:
        _fail(f"{field}.max", "must not be less than min")
    if column_type == "formula":
        try:
            compile_formula(config["expression"])
        except FormulaError as exc:
            _fail(f"{field}.expression", str(exc))


# ---------------------------------------------------------------------------------------------- values

Validator = Callable[[Any, Any, frozenset[str], str], Any]


def validate_value(column_type: str, config: Config, value: Any, *, members: frozenset[str],
                   field: str = "value") -> Any:
    """The normalized value to store for a write (None clears it); computed types refuse every write."""
    if column_type in kinds.COMPUTED_TYPES:
        _fail(field, f"a {column_type} column is computed and cannot be written")
    validator = _VALIDATORS.get(column_type)
    if validator is None:
        _fail(field, f"unknown column type {column_type!r}")
    if value is None:
        return None
    settings = msgspec.convert(config, kinds.CONFIGS[column_type], strict=False)
    return validator(settings, value, members, field)


def is_done(column_config: Config, value: Any) -> bool:
    """Whether a status value names a label marked `isDone` in the column's config."""
    if not isinstance(value, dict):
        return False
    for label in column_config.get("labels") or ():
        if label.get("id") == value.get("id") or (value.get("id") is None and label.get("name") == value.get("label")):
            return bool(label.get("isDone"))
    return False


def _string(value: Any, field: str, limit: int) -> str | None:
    if not isinstance(value, str):
        _fail(field, "must be a string")
    if len(value) > limit:
        _fail(field, f"must be at most {limit} characters")
    return value or None


def _text(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    return _string(value, field, kinds.TEXT_MAX)


def _long_text(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    return _string(value, field, kinds.LONG_TEXT_MAX)


def _decimal_places(number: float) -> int:
    exponent = Decimal(repr(number)).normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _number_in(value: Any, field: str, *, decimals: int | None, low: float | None, high: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(field, "must be a number")
    if not abs(value) <= kinds.NUMBER_LIMIT:  # also refuses NaN and infinities
        _fail(field, f"must be a finite number of at most {_fmt(kinds.NUMBER_LIMIT)} in size")
    if decimals is not None and _decimal_places(value) > decimals:
        _fail(field, f"must have at most {decimals} decimal places")
    if low is not None and value < low:
        _fail(field, f"must be at least {_fmt(low)}")
    if high is not None and value > high:
        _fail(field, f"must be at most {_fmt(high)}")
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _number(settings: kinds.NumberConfig | kinds.CurrencyConfig | kinds.PercentageConfig, value: Any,
            members: frozenset[str], field: str) -> float:
    return _number_in(value, field, decimals=settings.decimals, low=settings.min, high=settings.max)


def _rating(settings: kinds.RatingConfig, value: Any, members: frozenset[str], field: str) -> int:
    number = _number_in(value, field, decimals=0, low=0, high=settings.max)
    return int(number)


def _progress(settings: Any, value: Any, members: frozenset[str], field: str) -> float:
    return _number_in(value, field, decimals=None, low=0, high=100)


def _moment(value: Any, field: str) -> tuple[str, datetime]:
    """A `YYYY-MM-DD` date (kept as written) or a timestamp (stored as UTC with milliseconds)."""
    wrong = "must be an ISO 8601 date (YYYY-MM-DD) or timestamp"
    if not isinstance(value, str) or len(value) > 40:
        _fail(field, wrong)
    try:
        if _DATE.match(value):
            day = date.fromisoformat(value)
            return value, datetime(day.year, day.month, day.day, tzinfo=UTC)
        if "T" not in value:
            _fail(field, wrong)
        moment = parse_iso(value)
    except (ValueError, OverflowError):
        _fail(field, wrong)
    if moment.year < 1000:
        _fail(field, wrong)
    return str(iso(moment)), moment


def _date(settings: Any, value: Any, members: frozenset[str], field: str) -> str:
    return _moment(value, field)[0]


def _object(value: Any, field: str, shape: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(field, f"must be an object {shape}")
    return value


def _range(settings: Any, value: Any, members: frozenset[str], field: str) -> dict[str, str]:
    span = _object(value, field, "{from, to}")
    start, start_at = _moment(span.get("from"), f"{field}.from")
    end, end_at = _moment(span.get("to"), f"{field}.to")
    if end_at < start_at:
        _fail(f"{field}.to", "must not be before from")
    return {"from": start, "to": end}


def _time_tracking(settings: Any, value: Any, members: frozenset[str], field: str) -> dict[str, Any]:
    tracked = _object(value, field, "{totalSeconds, running, startedAt}")
    total = tracked.get("totalSeconds", 0)
    if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= kinds.NUMBER_LIMIT:
        _fail(f"{field}.totalSeconds", "must be a whole number of seconds, 0 or more")
    running = tracked.get("running", False)
    if not isinstance(running, bool):
        _fail(f"{field}.running", "must be a boolean")
    started = None
    if running:
        if not isinstance(tracked.get("startedAt"), str) or _DATE.match(tracked["startedAt"]):
            _fail(f"{field}.startedAt", "a running timer needs its start as an ISO 8601 timestamp")
        started = _moment(tracked["startedAt"], f"{field}.startedAt")[0]
    return {"totalSeconds": total, "running": running, "startedAt": started}


def _label_of(labels: Sequence[kinds.Label], value: Any, field: str) -> dict[str, Any]:
    """One label named by its name, `{label}`, `{label, color}` or `{id}`; stored as the config defines it."""
    found = None
    if isinstance(value, str):
        found = _by_name(labels, value, field)
    elif isinstance(value, dict) and value.get("id") is not None:
        found = next((label for label in labels if label.id == value["id"]), None)
        if found is None:
            _fail(f"{field}.id", "is not one of the column's label ids")
        if value.get("label") is not None and str(value["label"]).casefold() != found.name.casefold():
            _fail(f"{field}.label", "does not match the label with this id")
    elif isinstance(value, dict) and value.get("label") is not None:
        found = _by_name(labels, value["label"], f"{field}.label")
    else:
        _fail(field, "must be a label name, {label} or {id}")
    return {"id": found.id, "label": found.name, "color": found.color}


def _by_name(labels: Sequence[kinds.Label], name: Any, field: str) -> kinds.Label:
    if not isinstance(name, str):
        _fail(field, "must be a string")
    wanted = name.casefold()
    found = next((label for label in labels if label.name.casefold() == wanted), None)
    if found is None:
        _fail(field, f"{name!r} is not one of the column's labels")
    return found


def _choice(settings: kinds.StatusConfig | kinds.PriorityConfig, value: Any, members: frozenset[str],
            field: str) -> dict[str, Any]:
    return _label_of(settings.labels or [], value, field)


def _distinct(values: Any, field: str, check: Callable[[Any, str], Any], key: Callable[[Any], Any] = lambda v: v,
              limit: int = kinds.LIST_MAX) -> list[Any] | None:
    """A list whose entries each pass `check`, without duplicates; empty clears the value."""
    if not isinstance(values, list):
        _fail(field, "must be a list")
    if len(values) > limit:
        _fail(field, f"must have at most {limit} entries")
    out: list[Any] = []
    seen: set[Any] = set()
    for index, entry in enumerate(values):
        checked = check(entry, f"{field}.{index}")
        if key(checked) in seen:
            _fail(f"{field}.{index}", "is listed twice")
        seen.add(key(checked))
        out.append(checked)
    return out or None


def _tags(settings: kinds.LabelConfig, value: Any, members: frozenset[str], field: str) -> list[dict[str, Any]] | None:
    return _distinct(value, field, lambda entry, at: _label_of(settings.labels, entry, at), lambda v: v["id"])


def _dropdown(settings: kinds.DropdownConfig, value: Any, members: frozenset[str],
              field: str) -> str | list[str] | None:
    def option(entry: Any, at: str) -> str:
        if not isinstance(entry, str):
            _fail(at, "must be a string")
        found = next((o for o in settings.options if o.casefold() == entry.casefold()), None)
        if found is None:
            _fail(at, f"{entry!r} is not one of the column's options")
        return found
    if settings.multiple:
        return _distinct(value, field, option)
    return option(value, field)


def _checkbox(settings: Any, value: Any, members: frozenset[str], field: str) -> bool:
    if not isinstance(value, bool):
        _fail(field, "must be true or false")
    return value


def _people(settings: kinds.PeopleConfig, value: Any, members: frozenset[str], field: str) -> list[str] | None:
    def member(entry: Any, at: str) -> str:
        if not isinstance(entry, str):
            _fail(at, "must be a user id")
        if entry not in members:
            _fail(at, "is not a member of the organization")
        return entry
    people = _distinct(value, field, member)
    if people and not settings.multiple and len(people) > 1:
        _fail(field, "this column holds at most one person")
    return people


def _http_url(value: Any, field: str) -> str:
    wrong = "must be an http or https URL with a host"
    if not isinstance(value, str) or len(value) > 2048 or any(c.isspace() or ord(c) < 32 for c in value):
        _fail(field, wrong)
    try:
        parts = urlsplit(value)
        _ = parts.port  # a port outside 0-65535 raises here
    except ValueError:
        _fail(field, wrong)
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        _fail(field, wrong)
    return value


def _url(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    return None if value == "" else _http_url(value, field)


def _link(settings: Any, value: Any, members: frozenset[str], field: str) -> dict[str, str]:
    if isinstance(value, str):
        value = {"url": value}
    link = _object(value, field, "{url, text}")
    url = _http_url(link.get("url"), f"{field}.url")
    text = link.get("text")
    if text is not None and (not isinstance(text, str) or len(text) > 200):
        _fail(f"{field}.text", "must be a string of at most 200 characters")
    return {"url": url, "text": text or url}


def _dependency(settings: Any, value: Any, members: frozenset[str], field: str) -> list[str] | None:
    def item_id(entry: Any, at: str) -> str:
        if not isinstance(entry, str) or not entry.startswith(f"{Prefix.ITEM}_") or len(entry) > 64:
            _fail(at, "must be an item id")
        return entry
    return _distinct(value, field, item_id)


def _file_entry(entry: Any, at: str) -> dict[str, Any]:
    if isinstance(entry, str):
        entry = {"id": entry}
    described = _object(entry, at, "{id, name?, url?, size?, mimeType?}")
    file_id = described.get("id")
    if not isinstance(file_id, str) or not 1 <= len(file_id) <= 64:
        _fail(f"{at}.id", "must be a file id")
    out: dict[str, Any] = {"id": file_id}
    for key in ("name", "mimeType"):
        text = described.get(key)
        if text is not None:
            if not isinstance(text, str) or not 1 <= len(text) <= 255:
                _fail(f"{at}.{key}", "must be a string of 1 to 255 characters")
            out[key] = text
    if described.get("url") is not None:
        out["url"] = _http_url(described["url"], f"{at}.url")
    size = described.get("size")
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            _fail(f"{at}.size", "must be a byte count, 0 or more")
        out["size"] = size
    return out


def _file(settings: Any, value: Any, members: frozenset[str], field: str) -> list[dict[str, Any]] | None:
    return _distinct(value, field, _file_entry, lambda v: v["id"], limit=50)


def _email(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    text = _string(value, field, 254)
    if text is not None and not _EMAIL.match(text):
        _fail(field, "must be an e-mail address")
    return text


def _phone(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    text = _string(value, field, 40)
    if text is None:
        return None
    compact = _PHONE_SEPARATORS.sub("", text)
    if not _PHONE.match(compact):
        _fail(field, "must be an international number: + then 7 to 15 digits")
    return compact


def _color(settings: Any, value: Any, members: frozenset[str], field: str) -> str | None:
    if value == "":
        return None
    if not isinstance(value, str) or not _COLOR.match(value):
        _fail(field, "must be a hex colour #RRGGBB")
    return value


_VALIDATORS: dict[str, Validator] = {
    "text": _text, "long_text": _long_text, "number": _number, "currency": _number, "percentage": _number,
    "rating": _rating, "progress": _progress, "date": _date, "date_range": _range, "timeline": _range,
    "time_tracking": _time_tracking, "status": _choice, "label": _tags, "dropdown": _dropdown,
    "checkbox": _checkbox, "priority": _choice, "people": _people, "link": _link, "dependency": _dependency,
    "file": _file, "email": _email, "phone": _phone, "url": _url, "color": _color,
}

# ------------------------------------------------------------------------------------ computed values


def compute_value(column_type: str, config: Config, item: Mapping[str, Any],
                  board_items: Mapping[str, Mapping[str, Any]]) -> Any:
    """The value of a computed column for `item`; `board_items` (id -> item of the board) serves lookups."""
    if column_type == "formula":
        return _formula_value(config, item.get("values") or {})
    if column_type == "lookup":
        return _lookup_value(config, item.get("values") or {}, board_items)
    if column_type == "auto_number":
        return item.get("number")
    if column_type in ("created_date", "last_updated"):
        moment = item.get("createdAt" if column_type == "created_date" else "updatedAt")
        return iso(moment) if isinstance(moment, datetime) else moment
    raise ValueError(f"{column_type} is not a computed column type")


def _as_number(value: Any) -> float | None:
    return None if isinstance(value, bool) or not isinstance(value, int | float) else float(value)


def _tidy(number: float, places: int) -> float:
    """Rounded to `places`; a whole number within JavaScript's exact range is rendered as an integer."""
    rounded = round(number, places)
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def _lookup_value(config: Config, values: Mapping[str, Any], board_items: Mapping[str, Mapping[str, Any]]) -> Any:
    linked = values.get(config.get("dependencyColumnId") or "")
    target = config.get("targetColumnId")
    if not isinstance(linked, list) or target is None:
        return None
    found = [board_items[i].get("values", {}).get(target) for i in linked if isinstance(i, str) and i in board_items]
    found = [v for v in found if v is not None]
    aggregate = config.get("aggregate", "list")
    if aggregate == "list":
        return found or None
    if aggregate == "count":
        return len(found)
    numbers = [n for n in map(_as_number, found) if n is not None]
    if not numbers:
        return None
    total = {"sum": math.fsum(numbers), "avg": math.fsum(numbers) / len(numbers), "min": min(numbers),
             "max": max(numbers)}[aggregate]
    return _tidy(total, 10)


def _formula_value(config: Config, values: Mapping[str, Any]) -> float | None:
    try:
        program = compile_formula(config.get("expression") or "")
    except FormulaError:
        return None
    stack: list[float | None] = []
    for step in program:
        if isinstance(step, float):
            stack.append(step)
        elif isinstance(step, tuple):
            stack.append(_as_number(values.get(step[1])))
        elif step == "neg":
            operand = stack.pop()
            stack.append(None if operand is None else -operand)
        else:
            right, left = stack.pop(), stack.pop()
            stack.append(None if left is None or right is None else apply_operator(step, left, right))
    result = stack[0] if stack else None
    if result is None or not math.isfinite(result):
        return None
    places = config.get("decimals")
    return _tidy(result, 10 if places is None else places)
