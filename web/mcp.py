"""`POST /mcp` on the organization host: the Model Context Protocol over Streamable HTTP (JSON-RPC 2.0,
answered as application/json, no session), for assistants holding an MCP key (actors/identity/mcp_keys.py).

The transport rules of the MCP specification (2025-03-26 .. 2025-11-25): `GET` and `DELETE` are 405 with
`Allow: POST` (no server stream, no session to end); a foreign `Origin` is 403 (DNS rebinding); an
`MCP-Protocol-Version` this server does not speak is 400; an `Accept` that takes no JSON is 406; notifications
and responses are 202. A key of an organization whose plan has no API access is 403 (a bearer credential).

Tools are the registry procedures the key may call, named with `_` for `.`; a call goes through the same
identity, rate limit, idempotency and authorization path as the HTTP routers (web/dispatch.py), and a refusal
is a tool result with `isError`. Resources are `obeya://board/<id>` and `obeya://kpi/<id>`.
"""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from actors.identity.mcp_keys import may_be_tool, split_grants, tool_name, tools_of
from protocol.caller import Caller, CredentialKind
from protocol.errors import ApiError, BadRequest, Unauthorized, ValidationFailed
from protocol.plans import plan
from protocol.registry import REGISTRY, Procedure
from web.context import MCP_PATH, identify, is_own_origin, note_retry_after
from web.dispatch import call_procedure
from web.envelopes import json_response, rest_error, rpc_payload
from web.errors import unexpected_error
from web.idempotency import idempotent
from web.idempotency_store import HEADER as IDEMPOTENCY_KEY
from web.inputs import decode_json
from web.keys import CALLER, NODE, NOTHING_DONE
from web.mcp_resources import TEMPLATES, BadResource, list_resources, plain, reader
from web.rate_limit import count, count_refused
from web.rpc import MAX_BATCH

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


# How many tool calls of this request ran through and how many were refused or failed.
_CALLS_DONE = web.RequestKey("mcp_calls_done", int)
_CALLS_FAILED = web.RequestKey("mcp_calls_failed", int)


async def _call(request: web.Request, procedure: Procedure, arguments: Any) -> dict[str, Any]:
    try:
        value = await call_procedure(request, procedure, arguments)
    except Exception as exc:  # an unexpected one logged as the routers log it; each answered as a failed call
        error = exc if isinstance(exc, ApiError) else unexpected_error(request, exc)
        note_retry_after(request, error)
        request[_CALLS_FAILED] = request.get(_CALLS_FAILED, 0) + 1
        return {"content": [_text(rest_error(error))], "isError": True}
    request[_CALLS_DONE] = request.get(_CALLS_DONE, 0) + 1
    return {"content": [_text(value)], "isError": False}


async def _answer(request: web.Request, caller: Caller, method: str, params: dict[str, Any]) -> Any:
    tools, resources = split_grants(caller.scopes)
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[0],  # else the latest (spec)
                "capabilities": {"tools": {"listChanged": False},
                                 "resources": {"subscribe": False, "listChanged": False}},
                "serverInfo": {"name": "obeya", "version": "1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [{"name": name, "description": p.summary, "inputSchema": input_schema(p)}
                          for name, p in sorted(tools_of(tools, resources).items())]}
    if method == "tools/call":
        name = params.get("name")
        procedure = tools_of(tools, resources).get(name) if isinstance(name, str) else None
        if procedure is None:
            known = isinstance(name, str) and any(tool_name(p) == name for p in REGISTRY.values())
            if not known:
                raise _RpcError(INVALID_PARAMS, f"unknown tool {name}")
            return {"content": [{"type": "text", "text": f"FORBIDDEN: this key may not call {name}"}],
                    "isError": True}
        arguments = params.get("arguments")
        return await _call(request, procedure, {} if arguments is None else arguments)
    try:
        if method == "resources/list":
            return await list_resources(request, resources, params.get("cursor"))
        if method == "resources/templates/list":
            return {"resourceTemplates": TEMPLATES}
        if method == "resources/read":
            wanted = params.get("uri")
            procedure, arguments = reader(wanted)
            if resources and wanted not in resources:
                raise _RpcError(INVALID_PARAMS, f"this key may not read {wanted}")
            try:
                value = await plain(request, procedure, arguments)
            except ApiError as error:
                raise _RpcError(INVALID_PARAMS, _encode(rest_error(error)).decode()) from None
            return {"contents": [{"uri": wanted, "mimeType": "application/json", "text": _encode(value).decode()}]}
    except BadResource as error:
        raise _RpcError(INVALID_PARAMS, str(error)) from None
    raise _RpcError(METHOD_NOT_FOUND, f"method {method} not found")


async def _message(request: web.Request, caller: Caller, message: Any) -> dict[str, Any] | None:
    """The answer to one JSON-RPC message; None for a notification or a response."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "not JSON-RPC 2.0"}}
    if "method" not in message:
        if "id" in message and ("result" in message) != ("error" in message):
            return None  # a response to a request of ours: we send none
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "neither a request, "
                                                        "a notification nor a response"}}
    ident = message.get("id")
    if "id" not in message:
        return None  # a notification (notifications/initialized, cancelled): nothing to answer
    if isinstance(ident, bool) or not isinstance(ident, str | int):  # MCP: a string or an integer, never null
        return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST,
                                                        "message": "id must be a string or an integer"}}
    method, params = message.get("method"), message.get("params")
    params = {} if params is None else params
    try:
        if not isinstance(method, str) or not isinstance(params, dict):
            raise _RpcError(INVALID_REQUEST, "method must be a string and params an object")
        return {"jsonrpc": "2.0", "id": ident, "result": await _answer(request, caller, method, params)}
    except _RpcError as error:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": error.code, "message": error.message}}


async def _respond(request: web.Request) -> web.StreamResponse:
    caller: Caller = request[CALLER]
    try:
        body = decode_json(await request.read(), "body")
    except ValidationFailed as error:
        return _refusal(400, INVALID_REQUEST, error.message)
    except BadRequest:
        return _refusal(400, PARSE_ERROR, "body is not JSON")
    if isinstance(body, list):
        if not 0 < len(body) <= MAX_BATCH:  # one request, counted once, must not fan out without bound
            return _refusal(400, INVALID_REQUEST, f"a batch holds 1 to {MAX_BATCH} messages")
        answers = [a for a in [await _message(request, caller, m) for m in body] if a is not None]
        return _answered(request, answers or None)
    answer = await _message(request, caller, body)
    return _answered(request, answer)


def _answered(request: web.Request, answer: Any) -> web.Response:
    """The HTTP answer; a request whose tool calls were all refused changed nothing, and says so to the
    idempotency key (a refused HTTP call is a 4xx, a refused tool call a 200 with `isError`)."""
    if request.get(_CALLS_FAILED) and not request.get(_CALLS_DONE):
        request[NOTHING_DONE] = True
    return json_response(answer) if answer is not None else web.Response(status=202)


def _refusal(status: int, code: int, message: str) -> web.Response:
    """A refusal of the whole HTTP request, its body a JSON-RPC error without an id."""
    return json_response({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}, status)


def _accepts_json(accept: str) -> bool:
    kinds = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    return bool(kinds & {"application/json", "application/*", "*/*"})


def _transport_refusal(request: web.Request) -> web.Response | None:
    """The spec's header rules, checked before the key: a foreign Origin, an unknown protocol version, and for
    a POST an Accept without JSON."""
    origin = request.headers.get("Origin")
    if origin is not None and not is_own_origin(request, origin, request.app[NODE].settings.production):
        return _refusal(403, INVALID_REQUEST, "Origin is not this organization's host")
    version = request.headers.get("MCP-Protocol-Version")
    if version is not None and version not in VERSIONS:
        return _refusal(400, INVALID_REQUEST, f"unsupported MCP-Protocol-Version {version}; "
                                              f"supported: {', '.join(VERSIONS)}")
    accept = request.headers.get("Accept")
    if request.method == "POST" and accept is not None and not _accepts_json(accept):
        return _refusal(406, INVALID_REQUEST, "Accept must include application/json")
    return None


async def handle_mcp(request: web.Request) -> web.StreamResponse:
    """Check the transport headers, identify the key (401 for a missing, wrong or revoked one), count the
    request, refuse a plan without API access (403), then answer it, under its Idempotency-Key when it names
    one."""
    refused = _transport_refusal(request)
    if refused is not None:
        return refused
    try:
        caller = await identify(request)
        if caller.credential is not CredentialKind.MCP_KEY:
            raise Unauthorized("an assistant (MCP) key is required")
        await count(request, caller)
    except ApiError:
        await count_refused(request)
        raise
    if caller.organization is not None and not plan(caller.organization.plan).api_access:
        return _refusal(403, INVALID_REQUEST, "the organization's plan does not include API access")
    if IDEMPOTENCY_KEY in request.headers:
        return await idempotent(request, _respond, caller)
    return await _respond(request)


def make_tool_schemas() -> None:
    """Every tool's input schema, made once per process (a no-op after the first call)."""
    for procedure in REGISTRY.values():
        if may_be_tool(procedure):
            input_schema(procedure)


def add_mcp_routes(app: web.Application) -> None:
    make_tool_schemas()
    app.router.add_post(MCP_PATH, handle_mcp)
    app.router.add_get(MCP_PATH, no_stream)
    app.router.add_delete(MCP_PATH, no_stream)


async def no_stream(request: web.Request) -> web.StreamResponse:
    """GET (a server-sent event stream) and DELETE (ending a session): this server offers neither, which the
    spec answers with 405."""
    refused = _transport_refusal(request)
    if refused is not None:
        return refused
    return web.Response(status=405, headers={"Allow": "POST"})
