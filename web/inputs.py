"""Decoding a caller's input into the procedure's msgspec Struct, naming every bad field."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from protocol.errors import BadRequest, FieldError, ValidationFailed
from protocol.storable import nul_paths

_AT_PATH = re.compile(r"\s*- at `\$(?P<path>[^`]*)`$")
# Pagination fields are checked with 400 in both styles (spec 7.3), not as schema failures.
_PAGINATION_FIELDS = {"limit", "cursor", "offset"}


def _clean(message: str) -> str:
    return _AT_PATH.sub("", message)


def _path_field(message: str) -> str:
    match = _AT_PATH.search(message)
    if not match or not match.group("path"):
        return "input"
    return match.group("path").replace("[", ".").replace("]", "").lstrip(".")


def field_errors(struct_type: type[msgspec.Struct], raw: dict[str, Any], strict: bool) -> list[FieldError]:
    """One error per bad field: each present value is converted alone, each missing required field named."""
    errors: list[FieldError] = []
    for info in msgspec.structs.fields(struct_type):
        if info.encode_name not in raw:
            if info.required:
                errors.append(FieldError(info.encode_name, "is required"))
            continue
        try:
            msgspec.convert(raw[info.encode_name], info.type, strict=strict)
        except msgspec.ValidationError as exc:
            field = _path_field(str(exc))
            name = info.encode_name if field == "input" else f"{info.encode_name}.{field}"
            errors.append(FieldError(name, _clean(str(exc))))
    return errors


def decode_input(struct_type: type[msgspec.Struct], raw: Any, *, from_query: bool = False) -> Any:
    """Convert `raw` (a JSON value, or query strings when `from_query`) into `struct_type`."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ValidationFailed("input must be a JSON object", details=[FieldError("input", "must be an object")])
    unstorable = nul_paths(raw)
    if unstorable:
        details = [FieldError(path, "must not contain the character U+0000") for path in unstorable]
        raise ValidationFailed.naming(details)
    strict = not from_query
    try:
        return msgspec.convert(raw, struct_type, strict=strict)
    except msgspec.ValidationError as exc:
        details = field_errors(struct_type, raw, strict) or [
            FieldError(_path_field(str(exc)), _clean(str(exc)))]
        message = "; ".join(f"{d.field}: {d.message}" for d in details)
        if all(d.field.split(".")[0] in _PAGINATION_FIELDS for d in details):
            raise BadRequest(message, details=details) from None
        raise ValidationFailed(message, details=details) from None
