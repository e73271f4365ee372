"""Decoding a caller's input into the procedure's msgspec Struct, naming every bad field.

Two bounds hold for every input, whatever its procedure declares (protocol/json_bounds.py): its JSON nests at
most MAX_DEPTH levels (deeper, a decoder or any recursive walk would exhaust the stack), and every integer
fits in 64 bits (PostgreSQL's bigint; a larger one would fail when sent). Each is refused as bad input naming the
field (400 over RPC, 422 over REST; 400 in both for `limit`, `cursor`, `offset`).

`typed_input` is the fast path of an RPC call's input: its text decoded straight into the procedure's Struct by
one typed decoder, the bounds decided from the text; whatever it cannot take goes the general way (`decode_json`,
web/rpc.py `unwrap_input`, `decode_input`), which names what is wrong."""

from __future__ import annotations

import functools
import re
from typing import Any, Generic, NoReturn, TypeVar

import msgspec

from protocol.errors import BadRequest, FieldError, ValidationFailed
from protocol.json_bounds import INT_MAX, INT_MIN, MAX_DEPTH, depth_exceeds, oversized_ints
from protocol.storable import nul_paths

_AT_PATH = re.compile(r"\s*- at `\$(?P<path>[^`]*)`$")
# Pagination fields are checked with 400 in both styles, not as schema failures.
_PAGINATION_FIELDS = {"limit", "cursor", "offset"}
_decode = msgspec.json.Decoder().decode
# The text of an integer outside 64 bits holds 19 digits in a row (INT_MAX and INT_MIN have 19): found as a run of
# "0" in the text with every digit made "0" and every other byte " " (a third of a regular expression's time).
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_DIGITS = b"0" * 19

# A batch's input, each call's left as its text.
_batch_parts = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
T = TypeVar("T")


class _Wrapped(msgspec.Struct, Generic[T], forbid_unknown_fields=True):
    """tRPC's `{"json": <input>}` without superjson's `meta`."""

    json: T


def _too_deep(field: str) -> ValidationFailed:
    return ValidationFailed.of(field, f"nests more than {MAX_DEPTH} levels deep")


def decode_json(data: bytes | str, what: str) -> Any:
    """A request's JSON (`what`: how the caller knows it, "input" or "body"): BadRequest when it is not JSON,
    ValidationFailed naming `input` when it nests deeper than MAX_DEPTH."""
    try:
        value = _decode(data)
    except msgspec.DecodeError:
        raise BadRequest(f"{what} is not valid JSON") from None
    except RecursionError:  # deeper than the decoder goes: certainly past MAX_DEPTH
        raise _too_deep("input") from None
    if depth_exceeds(value):
        raise _too_deep("input")
    return value


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


@functools.cache
def _decoders(struct_type: type[msgspec.Struct]) -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]]:
    return msgspec.json.Decoder(_Wrapped[struct_type]), msgspec.json.Decoder(struct_type)  # type: ignore[valid-type]


def _nests_within(data: bytes) -> bool:
    """Whether the JSON `data` certainly nests at most MAX_DEPTH levels: it cannot nest deeper than it has
    brackets (those in its strings only make the count safer)."""
    return data.count(b"{") + data.count(b"[") <= MAX_DEPTH


def batch_texts(text: bytes | str) -> dict[str, bytes] | None:
    """A tRPC batch's input (`{"0": <input>, "1": ...}`) as the text of each call's input, for `typed_input`,
    when the batch nests within MAX_DEPTH with its own level; None when not, or when it is no such object."""
    try:
        data = text.encode() if isinstance(text, str) else text
        return {key: bytes(part) for key, part in _batch_parts(data).items()} if _nests_within(data) else None
    except (msgspec.DecodeError, ValueError):  # ValueError: not UTF-8
        return None


def typed_input(struct_type: type[msgspec.Struct], text: bytes | str) -> Any:
    """An RPC call's input text (`{"json": <input>}`, or the bare input) decoded straight into `struct_type`, when
    it certainly passes every check of the general way and decodes alike; None when not (the caller takes the
    general way then). The bounds are read off the text: it nests no deeper than it has brackets, holds U+0000
    only as the escape `\\u0000` (JSON refuses the raw character), and an integer outside 64 bits only as a run of
    19 digits (msgspec decodes any integer, however long, into an `int` field). The bare form is taken only when
    no key can be `json` or `meta` (no such text, no `\\u` escape), as `unwrap_input` would unwrap one."""
    try:
        data = text.encode() if isinstance(text, str) else text
        if (not _nests_within(data) or b"\\u0000" in data
                or _LONG_DIGITS in data.translate(_DIGITS_AS_ZEROS)):
            return None
        wrapped, bare = _decoders(struct_type)
        if b'"json"' in data:
            return wrapped.decode(data).json
        if b'"meta"' in data or b"\\u" in data:
            return None
        return bare.decode(data)
    except (msgspec.DecodeError, ValueError):  # ValueError: not UTF-8
        return None


def decode_input(struct_type: type[msgspec.Struct], raw: Any, *, from_query: bool = False) -> Any:
    """Convert `raw` (a JSON value, or query strings when `from_query`) into `struct_type`; an instance of
    `struct_type` (from `typed_input`) is taken as it is."""
    if isinstance(raw, struct_type):
        return raw
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ValidationFailed("input must be a JSON object", details=[FieldError("input", "must be an object")])
    if depth_exceeds(raw):  # a Socket.IO event's payload comes here without decode_json
        raise _too_deep("input")
    unstorable = nul_paths(raw)
    if unstorable:
        details = [FieldError(path, "must not contain the character U+0000") for path in unstorable]
        raise ValidationFailed.naming(details)
    _refuse_oversized(oversized_ints(raw))
    strict = not from_query
    try:
        value = msgspec.convert(raw, struct_type, strict=strict)
    except msgspec.ValidationError as exc:
        _refuse(field_errors(struct_type, raw, strict) or [FieldError(_path_field(str(exc)), _clean(str(exc)))])
    if from_query:  # query texts became numbers just now; a query's fields are flat
        _refuse_oversized(sorted(info.encode_name for info in msgspec.structs.fields(struct_type)
                                 if info.encode_name in raw and oversized_ints(getattr(value, info.name))))
    return value


def _refuse_oversized(paths: list[str]) -> None:
    if paths:
        _refuse([FieldError(path, f"must be an integer from {INT_MIN} to {INT_MAX}") for path in paths])


def _refuse(details: list[FieldError]) -> NoReturn:
    message = "; ".join(f"{d.field}: {d.message}" for d in details)
    if all(d.field.split(".")[0] in _PAGINATION_FIELDS for d in details):
        raise BadRequest(message, details=details) from None
    raise ValidationFailed(message, details=details) from None
