"""The OpenAPI description of `/mcp` (web/mcp.py): JSON-RPC 2.0 messages of the Model Context Protocol over
Streamable HTTP, answered as application/json; GET and DELETE are 405 (no server stream, no session)."""

from __future__ import annotations

from typing import Any

from web.mcp import VERSIONS

JSON = "application/json"
_ID = {"type": ["string", "integer", "null"]}
_MESSAGE: dict[str, Any] = {
    "type": "object", "required": ["jsonrpc"],
    "properties": {
        "jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
        "method": {"type": "string", "examples": ["initialize", "tools/list", "tools/call", "resources/list",
                                                  "resources/templates/list", "resources/read", "ping"]},
        "params": {"type": "object"}},
    "description": "A request (with `id`), a notification (without) or a response to the server (none is sent)"}
_ERROR: dict[str, Any] = {
    "type": "object", "required": ["jsonrpc", "id", "error"],
    "properties": {"jsonrpc": {"const": "2.0"}, "id": _ID,
                   "error": {"type": "object", "required": ["code", "message"],
                             "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}}}
_ANSWER: dict[str, Any] = {
    "oneOf": [{"type": "object", "required": ["jsonrpc", "id", "result"],
               "properties": {"jsonrpc": {"const": "2.0"}, "id": _ID, "result": {"type": "object"}}}, _ERROR]}


def _refusal(text: str) -> dict[str, Any]:
    return {"description": text, "content": {JSON: {"schema": _ERROR}}}


def mcp_path_item() -> dict[str, Any]:
    """The `/mcp` path item."""
    no_stream = {"summary": "Not offered: no server-sent event stream and no session to end",
                 "tags": ["mcp"], "security": [],
                 "responses": {"405": {"description": "method not allowed",
                                       "headers": {"Allow": {"schema": {"const": "POST"}}}}}}
    return {
        "post": {
            "operationId": "post_mcp", "tags": ["mcp"],
            "summary": "Model Context Protocol (Streamable HTTP) for assistants holding an MCP key",
            "description": "One JSON-RPC 2.0 message or a batch of 1 to 50. Tools are the procedures the key allows "
                           "(`items.create` is the tool `items_create`); resources are `obeya://board/{id}` and "
                           "`obeya://kpi/{id}`. Only an MCP key (`svc_mcp_live_...`) is accepted here.",
            "security": [{"bearerAuth": []}],
            "parameters": [
                {"name": "MCP-Protocol-Version", "in": "header", "required": False,
                 "schema": {"enum": list(VERSIONS)}, "description": "the negotiated version; another is 400"},
                {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"},
                 "description": "a repeated request with the same key is answered as the first, applied once"},
                {"name": "Origin", "in": "header", "required": False, "schema": {"type": "string"},
                 "description": "when sent, must be the organization's own host (else 403)"}],
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "oneOf": [_MESSAGE, {"type": "array", "items": _MESSAGE}]}}}},
            "responses": {
                "200": {"description": "the answers to the requests", "content": {JSON: {"schema": {
                    "oneOf": [_ANSWER, {"type": "array", "items": _ANSWER}]}}}},
                "202": {"description": "only notifications or responses were sent: nothing to answer"},
                "400": _refusal("not JSON (-32700), too deep, a batch of none or more than 50 messages, or an "
                                "unsupported MCP-Protocol-Version"),
                "401": {"description": "no MCP key, or a wrong, revoked or expired one"},
                "403": _refusal("a foreign Origin, or a plan without API access"),
                "406": _refusal("Accept names no JSON"),
                "429": {"description": "over the organization's rate limit; see Retry-After"}}},
        "get": {**no_stream, "operationId": "get_mcp"},
        "delete": {**no_stream, "operationId": "delete_mcp"},
    }
