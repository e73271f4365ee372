"""The RPC router in the tRPC wire format: `/api/trpc/<procedure>[,<procedure>...]`.

Reads by GET with `input` = URL-encoded `{"json": ...}`, writes by POST with body `{"json": ...}`;
`?batch=1` runs several calls, input keyed "0", "1", ..., and answers an array, one entry per call,
each succeeding or failing on its own.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from protocol.errors import ApiError, BadRequest, MethodNotSupported, NotFound
from protocol.registry import REGISTRY
from web.context import note_retry_after
from web.dispatch import call_procedure
from web.envelopes import json_response, rpc_error, rpc_result
from web.errors import unexpected_error
from web.inputs import batch_texts, decode_json, typed_input

# A batch may name at most this many procedures: tRPC's default `maxItems` is unlimited, but one
# request must not fan out into an unbounded amount of work.
MAX_BATCH = 50


_UNDEFINED = object()


def _path(text: str) -> list[str]:
    """A superjson meta path: keys joined by `.`, with `.` and `\\` in a key escaped by `\\`."""
    keys: list[str] = []
    key, escaped = "", False
    for char in text:
        if escaped or char not in ".\\":
            key, escaped = key + char, False
        elif char == "\\":
            escaped = True
        else:
            keys.append(key)
            key = ""
    keys.append(key)
    return keys


def _child(container: Any, key: str) -> Any:
    if isinstance(container, dict):
        return container.get(key)
    if isinstance(container, list) and key.isdigit() and int(key) < len(container):
        return container[int(key)]
    return None


def _drop_undefined(value: Any, tree: Any) -> Any:
    """`value` without the object keys superjson marks `undefined` in its meta tree.

    superjson sends a JS `undefined` as JSON null plus a meta mark; tRPC servers restore the undefined,
    so `{cursor: undefined}` means "no cursor" and must not reach a non-nullable field as null.
    """
    if isinstance(tree, list):  # [annotation] or [annotation, {path: subtree}]
        if tree[:1] == ["undefined"]:
            return _UNDEFINED
        tree = tree[1] if len(tree) > 1 else {}
    for path, subtree in (tree.items() if isinstance(tree, dict) else ()):
        *parents, last = _path(path)
        container = value
        for key in parents:
            container = _child(container, key)
        if _drop_undefined(_child(container, last), subtree) is _UNDEFINED and isinstance(container, dict):
            container.pop(last, None)
    return value


def unwrap_input(value: Any) -> Any:
    """The call's input: tRPC sends `{"json": x}` (superjson may add `meta`); a bare value is taken as is."""
    if isinstance(value, dict) and "json" in value and set(value) <= {"json", "meta"}:
        meta = value.get("meta")
        if not isinstance(meta, dict) or "values" not in meta:
            return value["json"]
        result = _drop_undefined(value["json"], meta["values"])
        return None if result is _UNDEFINED else result
    if isinstance(value, dict) and not value:
        return None
    return value


async def _input_text(request: web.Request) -> bytes | str | None:
    if request.method == "GET":
        return request.query.get("input")
    return await request.read() or None


def _decoded(text: bytes | str | None) -> Any:
    if text is None:
        return None
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return decode_json(text, "input")  # before unwrap_input, which walks superjson's meta recursively


def _typed(request: web.Request, name: str, text: bytes | str | None) -> Any:
    """The call's input decoded by its procedure's typed decoder (web/inputs.py `typed_input`), or None where
    the general way decides: no input, an unknown procedure, the wrong method, or input it does not take."""
    procedure = REGISTRY.get(name)
    if text is None or procedure is None or request.method != ("GET" if procedure.is_query else "POST"):
        return None
    return typed_input(procedure.input, text)


def _typed_batch(request: web.Request, names: list[str], text: bytes | str | None) -> list[Any] | None:
    """Every call's input of a batch by `_typed`, or None when any one goes the general way (then all do, so
    that a batch is refused as a whole where it was)."""
    parts = batch_texts(text) if text is not None else None
    if parts is None:
        return None
    typed = [_typed(request, name, parts.get(str(index))) for index, name in enumerate(names)]
    return None if any(data is None for data in typed) else typed


def _batch_inputs(text: bytes | str | None, calls: int) -> list[Any]:
    """Each call's input of a batch, decoded the general way."""
    inputs = _decoded(text) or {}
    if not isinstance(inputs, dict):
        raise BadRequest('batch input must be an object keyed "0", "1", ...')
    return [inputs.get(str(index)) for index in range(calls)]


async def _one(request: web.Request, name: str, raw: Any) -> tuple[int, dict[str, Any]]:
    """One call; `raw` is its decoded JSON, or its input Struct already (`_typed`)."""
    try:
        procedure = REGISTRY.get(name)
        if procedure is None:
            raise NotFound(f'No procedure found on path "{name}"')
        expected = "GET" if procedure.is_query else "POST"
        if request.method != expected:
            raise MethodNotSupported(f"{name} is a {procedure.kind}: call it with {expected}")
        result = await call_procedure(request, procedure, unwrap_input(raw))
        return 200, rpc_result(result)
    except ApiError as error:
        note_retry_after(request, error)
        return error.status, rpc_error(error, name)
    except Exception as error:  # one failing call must not take the batch down
        failure = unexpected_error(request, error)
        note_retry_after(request, failure)  # a dependency away (503) says when to retry
        return failure.status, rpc_error(failure, name)


async def handle_rpc(request: web.Request) -> web.Response:
    names = request.match_info["path"].split(",")
    batch = request.query.get("batch") in ("1", "true")
    if not batch:
        if len(names) != 1:
            raise BadRequest("several procedures need ?batch=1")
        text = await _input_text(request)
        typed = _typed(request, names[0], text)
        status, body = await _one(request, names[0], typed if typed is not None else _decoded(text))
        return json_response(body, status)
    if len(names) > MAX_BATCH:
        raise BadRequest(f"a batch holds at most {MAX_BATCH} calls")
    text = await _input_text(request)
    inputs = _typed_batch(request, names, text) or _batch_inputs(text, len(names))
    results = [await _one(request, name, raw) for name, raw in zip(names, inputs, strict=True)]
    statuses = {status for status, _ in results}
    status = statuses.pop() if len(statuses) == 1 else 207
    return json_response([body for _, body in results], status)
