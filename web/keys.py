"""Typed application and request keys."""

from __future__ import annotations

from aiohttp import web

from actors.kernel.handlers import HandlerTable
from actors.kernel.node import Node
from protocol.caller import Caller

NODE = web.AppKey("node", Node)
# Every procedure's implementation, given by the server (server/domains.py) to `build_web_app`.
HANDLER_TABLE = web.AppKey("handler_table", HandlerTable)
CALLER = web.RequestKey("caller", Caller)
STYLE = web.RequestKey("style", str)            # "rpc" or "rest": how errors are rendered
PROCEDURE = web.RequestKey("procedure", str)
CALLS = web.RequestKey("calls", int)              # procedure calls run so far (a batch makes several)
# Set when a procedure whose reply holds a shown-once secret ran (protocol/registry.py `returns_secret`).
RETURNS_SECRET = web.RequestKey("returns_secret", bool)
REQUEST_ID = web.RequestKey("request_id", str)
# Set when a 2xx answer reports only refused or failed calls (MCP tool results with `isError`, web/mcp.py): its
# Idempotency-Key is released as a 4xx/5xx's is (web/idempotency.py), so that the retry runs again.
NOTHING_DONE = web.RequestKey("nothing_done", bool)
# Seconds a refused caller should wait (a TooManyRequests that says so, any ServiceUnavailable), sent as
# `Retry-After` by the edge (web/edge.py); an RPC batch keeps the longest of its calls'.
RETRY_AFTER = web.RequestKey("retry_after", int)
# A form-session bearer token (`svc_fst_…`, from forms.verifyOtp) sent to a public form path under /api/forms/;
# the caller stays anonymous and the form paths check it against the form (actors/forms/respondents.py).
FORM_SESSION = web.RequestKey("form_session", str)
