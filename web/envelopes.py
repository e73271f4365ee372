"""Both wire styles' bodies: the tRPC envelope (`result.data.json`, `error{...,json}`) and the REST one
(`data`/`meta`, `error{code,status,message,details}`). Encoding happens once, with msgspec; a page's items
already encoded (protocol/encoded.py) are copied as bytes."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from protocol.encoded import as_encoded
from protocol.errors import TRPC_NUMBERS, ApiError
from protocol.pagination import Page

_encode = msgspec.json.Encoder().encode
JSON = "application/json"


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=_encode(body), status=status, content_type=JSON)


def rpc_payload(value: Any) -> Any:
    if isinstance(value, Page):
        return {value.key: as_encoded(value.items), "nextCursor": value.next_cursor}
    return value


def rpc_result(value: Any) -> dict[str, Any]:
    return {"result": {"data": {"json": rpc_payload(value)}}}


def rpc_error(error: ApiError, path: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {"code": error.code, "httpStatus": error.status, "path": path}
    if error.details:
        data["details"] = [{"field": d.field, "message": d.message} for d in error.details]
    data.update(error.data)
    shape = {"message": error.message, "code": TRPC_NUMBERS.get(error.code, -32603), "data": data}
    # The same object again under `json`, so tRPC clients using the superjson transformer can read it.
    return {"error": {**shape, "json": shape}}


def rest_body(value: Any) -> dict[str, Any]:
    if isinstance(value, Page):
        return {"data": as_encoded(value.items),
                "meta": {"cursor": value.next_cursor, "has_more": value.next_cursor is not None,
                         "limit": value.limit}}
    return {"data": value}


def rest_status(error: ApiError) -> int:
    return error.rest_status or error.status


def rest_error(error: ApiError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": error.rest_code or error.code, "status": rest_status(error),
                            "message": error.message,
                            "details": [{"field": d.field, "message": d.message} for d in error.details]}
    body.update(error.data)
    return {"error": body}


def error_response(error: ApiError, style: str, path: str | None = None) -> web.Response:
    if style == "rpc":
        return json_response(rpc_error(error, path), error.status)
    return json_response(rest_error(error), rest_status(error))
