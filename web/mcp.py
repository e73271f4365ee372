"""`POST /mcp` on the organization host: the Model Context Protocol over Streamable HTTP (JSON-RPC 2.0,
answered as application/json, no session), for assistants holding an MCP key (actors/identity/mcp_keys.py).

Tools are the registry procedures the key may call, named with `_` for `.`; a call goes through the same
identity, rate limit, idempotency and authorization path as the HTTP routers (web/dispatch.py), and a refusal
is a tool result with `isError`. Resources are `obeya://board/<id>` and `obeya://kpi/<id>`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from aiohttp import web

from actors.identity.mcp_keys import may_be_tool, split_grants, tool_name, tools_of
from protocol.caller import Caller, CredentialKind
from protocol.errors import ApiError, Unauthorized
from protocol.registry import REGISTRY, Procedure
from web.context import MCP_PATH, identify
from web.dispatch import call_procedure
from web.envelopes import json_response, rest_error, rpc_payload
from web.errors import unexpected_error
from web.idempotency import idempotent
from web.idempotency_store import HEADER as IDEMPOTENCY_KEY
from web.keys import CALLER
from web.rate_limit import count, count_refused

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
_encode = msgspec.json.Encoder().encode
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _input_schema(procedure: Procedure) -> dict[str, Any]:
    """The procedure's input Struct as a JSON schema object (its own definition at the top)."""
    schema = msgspec.json.schema(procedure.input)
    ref = schema.get("$ref")
    if ref is None:
        return schema
    defs = schema.get("$defs", {})
    return {**defs[ref.rsplit("/", 1)[-1]], "$defs": defs}


# Made once when the routes are built (about 60 ms for the registry): made on the first `tools/list`, they
# would block the event loop that long.
_SCHEMAS: dict[str, dict[str, Any]] = {}


def input_schema(procedure: Procedure) -> dict[str, Any]:
    schema = _SCHEMAS.get(procedure.name)
    if schema is None:
        schema = _SCHEMAS[procedure.name] = _input_schema(procedure)
    return schema


def _text(value: Any) -> dict[str, Any]:
    return {"type": "text", "text": _encode(rpc_payload(value)).decode()}


async def _call(request: web.Request, procedure: Procedure, arguments: Any) -> dict[str, Any]:
    try:
        value = await call_procedure(request, procedure, arguments)
    except ApiError as error:
        return {"content": [_text(rest_error(error))], "isError": True}
    except Exception as exc:  # logged as the routers log it, answered as a failed tool call
        return {"content": [_text(rest_error(unexpected_error(request, exc)))], "isError": True}
    return {"content": [_text(value)], "isError": False}


def _resource(uri: Any) -> tuple[Procedure, dict[str, Any]]:
    kind, _, ident = (uri[len("obeya://"):] if isinstance(uri, str) and uri.startswith("obeya://") else "") \
        .partition("/")
    if kind not in ("board", "kpi") or not ident:
        raise _RpcError(INVALID_PARAMS, "uri must be obeya://board/<id> or obeya://kpi/<id>")
    return REGISTRY["boards.get" if kind == "board" else "kpis.get"], {"id": ident}


async def _answer(request: web.Request, caller: Caller, method: str, params: dict[str, Any]) -> Any:
    tools, resources = split_grants(caller.scopes)
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[1],
                "capabilities": {"tools": {"listChanged": False},
                                 "resources": {"subscribe": False, "listChanged": False}},
                "serverInfo": {"name": "obeya", "version": "1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [{"name": name, "description": p.summary, "inputSchema": input_schema(p)}
                          for name, p in sorted(tools_of(tools).items())]}
    if method == "tools/call":
        name = params.get("name")
        procedure = tools_of(tools).get(name) if isinstance(name, str) else None
        if procedure is None:
            known = isinstance(name, str) and any(tool_name(p) == name for p in REGISTRY.values())
            if not known:
                raise _RpcError(INVALID_PARAMS, f"unknown tool {name}")
            return {"content": [{"type": "text", "text": f"FORBIDDEN: this key may not call {name}"}],
                    "isError": True}
        arguments = params.get("arguments")
        return await _call(request, procedure, {} if arguments is None else arguments)
    if method == "resources/list":
        listed = []
        for uri in resources:  # the key's own resources, as far as its member can still read them
            procedure, arguments = _resource(uri)
            reply = await _call(request, procedure, arguments)
            if not reply["isError"]:
                name = json.loads(reply["content"][0]["text"]).get("name") or uri
                listed.append({"uri": uri, "name": str(name), "mimeType": "application/json"})
        return {"resources": listed}
    if method == "resources/read":
        wanted = params.get("uri")
        procedure, arguments = _resource(wanted)
        if resources and wanted not in resources:
            raise _RpcError(INVALID_PARAMS, f"this key may not read {wanted}")
        reply = await _call(request, procedure, arguments)
        if reply["isError"]:
            raise _RpcError(INVALID_PARAMS, reply["content"][0]["text"])
        return {"contents": [{"uri": wanted, "mimeType": "application/json", "text": reply["content"][0]["text"]}]}
    raise _RpcError(METHOD_NOT_FOUND, f"method {method} not found")


async def _message(request: web.Request, caller: Caller, message: Any) -> dict[str, Any] | None:
    """The answer to one JSON-RPC message; None for a notification or a response."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "not JSON-RPC 2.0"}}
    if "method" not in message:
        return None  # a response to a request of ours: we send none
    ident = message.get("id")
    if "id" not in message:
        return None  # a notification (notifications/initialized, cancelled): nothing to answer
    method, params = message.get("method"), message.get("params") or {}
    try:
        if not isinstance(method, str) or not isinstance(params, dict):
            raise _RpcError(INVALID_REQUEST, "method must be a string and params an object")
        return {"jsonrpc": "2.0", "id": ident, "result": await _answer(request, caller, method, params)}
    except _RpcError as error:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": error.code, "message": error.message}}


async def _respond(request: web.Request) -> web.StreamResponse:
    caller: Caller = request[CALLER]
    try:
        body = json.loads(await request.read())
    except ValueError:
        return json_response({"jsonrpc": "2.0", "id": None,
                              "error": {"code": PARSE_ERROR, "message": "body is not JSON"}}, 400)
    if isinstance(body, list):
        answers = [a for a in [await _message(request, caller, m) for m in body] if a is not None]
        return json_response(answers) if answers else web.Response(status=202)
    answer = await _message(request, caller, body)
    return json_response(answer) if answer is not None else web.Response(status=202)


async def handle_mcp(request: web.Request) -> web.StreamResponse:
    """Identify the key (401 for a missing, wrong or revoked one), count the request, then answer it, under its
    Idempotency-Key when it names one."""
    try:
        caller = await identify(request)
        if caller.credential is not CredentialKind.MCP_KEY:
            raise Unauthorized("an assistant (MCP) key is required")
        await count(request, caller)
    except ApiError:
        await count_refused(request)
        raise
    if IDEMPOTENCY_KEY in request.headers:
        return await idempotent(request, _respond, caller)
    return await _respond(request)


def add_mcp_routes(app: web.Application) -> None:
    for procedure in REGISTRY.values():
        if may_be_tool(procedure):
            input_schema(procedure)
    app.router.add_post(MCP_PATH, handle_mcp)
