"""Per-request context: request id, wire style, structured log line, error rendering, and the caller
(organization from the Host header, user from the session cookie or bearer credential, CSRF checks)."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import structlog
from aiohttp import web

from actors.identity.callers import resolve_caller
from protocol.caller import Caller, CredentialKind
from protocol.errors import (
    ApiError,
    Forbidden,
    MethodNotSupported,
    NotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from protocol.ids import new_id
from web.envelopes import error_response
from web.errors import unexpected_error
from web.keys import CALLER, NODE, PROCEDURE, REQUEST_ID, STYLE
from web.rate_limit import RATE_LIMIT_HEADERS

log = structlog.get_logger("obeya.request")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SESSION_COOKIE = "authjs.session-token"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_WRITES = {"POST", "PUT", "PATCH", "DELETE"}


def http_error(exc: web.HTTPException) -> ApiError:
    """aiohttp's own refusals (no route, wrong method, body too large) in our error tree."""
    if exc.status == 404:
        return NotFound("no such endpoint")
    if exc.status == 405:
        return MethodNotSupported("method not allowed on this endpoint")
    if exc.status == 413:
        return PayloadTooLarge("request body too large")
    error = ApiError(exc.reason or "request refused")
    error.status, error.code = exc.status, (exc.reason or "ERROR").upper().replace(" ", "_")
    return error


def style_of(path: str) -> str:
    return "rpc" if path.startswith(("/api/trpc/", "/api/auth/tokens")) else "rest"


def host_name(request: web.Request) -> str:
    return (request.host or "").rsplit(":", 1)[0].strip("[]").lower() if request.host else ""


def org_slug(host: str, service_host: str) -> str | None:
    """The organization slug named by the host, `<slug>.<service_host>`; None for any other host."""
    suffix = "." + service_host
    if not host.endswith(suffix):
        return None
    slug = host[: -len(suffix)].rsplit(".", 1)[-1]
    return None if slug in ("", "auth", "www") else slug


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else "invalid"


def _check_csrf(request: web.Request, service_host: str) -> None:
    """A cookie-authenticated write must be JSON and, when the browser names an origin, same-site."""
    # Browsers send POST cross-site without a preflight; PUT, PATCH and DELETE always need one, so a
    # body-less DELETE (no Content-Type) is safe, but any body must be JSON and a POST must say so.
    content_type = request.headers.get("Content-Type")
    needs_json = content_type is not None or request.method == "POST"
    if needs_json and (content_type or "").split(";")[0].strip().lower() != "application/json":
        raise UnsupportedMediaType("cookie-authenticated writes need Content-Type: application/json")
    origin = request.headers.get("Origin")
    if origin is None:
        return
    origin_host = (urlsplit(origin).hostname or "").lower()
    if origin_host != host_name(request) and origin_host != service_host \
            and not origin_host.endswith("." + service_host):
        raise Forbidden("cross-site request refused")


@web.middleware
async def request_context(request: web.Request, handler: Handler) -> web.StreamResponse:
    incoming = request.headers.get("X-Request-Id", "")
    request_id = incoming if _REQUEST_ID.match(incoming) else new_id("req")
    style = style_of(request.path)
    request[STYLE] = style
    request[REQUEST_ID] = request_id
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=request_id)
    started = time.perf_counter()
    try:
        response = await handler(request)
    except ApiError as error:
        response = error_response(error, style, request.get(PROCEDURE))
    except web.HTTPException as exc:
        if exc.status < 400:
            exc.headers["X-Request-Id"] = request_id
            raise
        response = error_response(http_error(exc), style, request.get(PROCEDURE))
    except Exception as exc:
        response = error_response(unexpected_error(request, exc), style, request.get(PROCEDURE))
    response.headers.update(request.get(RATE_LIMIT_HEADERS, {}))  # on errors too (web/rate_limit.py)
    response.headers["X-Request-Id"] = request_id
    caller: Caller | None = request.get(CALLER)
    log.info("request", method=request.method, path=request.path, status=response.status,
             duration_ms=round((time.perf_counter() - started) * 1000, 2),
             organization=caller.organization.slug if caller and caller.organization else None,
             user=caller.user_id if caller else None, procedure=request.get(PROCEDURE))
    return response


@web.middleware
async def resolve_identity(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not request.path.startswith("/api/"):
        return await handler(request)
    node = request.app[NODE]
    caller = await resolve_caller(node, request_id=request[REQUEST_ID], org_slug=org_slug(host_name(request),
                                  node.service_host), bearer=_bearer(request),
                                  session_token=request.cookies.get(SESSION_COOKIE))
    request[CALLER] = caller
    structlog.contextvars.bind_contextvars(
        organization=caller.organization.slug if caller.organization else None, user=caller.user_id)
    if caller.credential is CredentialKind.SESSION and request.method in _WRITES:
        _check_csrf(request, node.service_host)
    return await handler(request)
