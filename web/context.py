"""Per-request context: request id, wire style, error rendering, and the caller (organization from the
Host header, user from the session cookie or bearer credential, CSRF checks). web/edge.py runs them."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import partial
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
    ServiceUnavailable,
    TooManyRequests,
)
from protocol.ids import Prefix, new_id
from protocol.slugs import ROUTED_HOST_LABELS
from web.envelopes import error_response
from web.errors import unexpected_error
from web.keys import CALLER, FORM_SESSION, NODE, PROCEDURE, REQUEST_ID, RETRY_AFTER

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
    return None if slug == "" or slug in ROUTED_HOST_LABELS else slug


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else "invalid"


FORM_SESSION_PREFIX = "svc_fst_"
MCP_PATH = "/mcp"  # the assistants' endpoint (web/mcp.py), the one place an MCP key is valid
FORM_PATHS = "/api/forms/"


# Writes that open a session (no cookie yet), checked like every cookie-authenticated write.
SESSION_OPENING = frozenset({"/api/v1/auth/signup", "/api/v1/auth/login", "/api/v1/invitations/accept"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_of(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an Origin or Referer value; None when it names no http(s) origin."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[parts.scheme]


def own_origin(request: web.Request, production: bool) -> tuple[str, str, int | None] | None:
    """The origin a page of this organization is served from: the request's scheme and Host (in production
    https, the scheme of the TLS front even when the proxy speaks http to us)."""
    scheme = "https" if production else request.scheme
    return _origin_of(f"{scheme}://{request.host}") if request.host else None


def is_own_origin(request: web.Request, claimed: str, production: bool) -> bool:
    """Whether an Origin or Referer value names exactly this organization's scheme, host and port."""
    origin = _origin_of(claimed)
    return origin is not None and origin == own_origin(request, production)


def is_json(request: web.Request) -> bool:
    return (request.headers.get("Content-Type") or "").split(";")[0].strip().lower() == "application/json"


def check_csrf(request: web.Request, production: bool) -> None:
    """A write a browser could send on its own (session cookie, or opening a session) must come from the
    organization's own origin: `Origin`, else `Referer`, naming exactly this scheme, host and port. With
    neither header, only JSON is accepted (a browser cannot send it cross-site without a preflight), and a
    body-less PUT, PATCH or DELETE (those always need a preflight cross-site)."""
    claimed = request.headers.get("Origin") or request.headers.get("Referer")
    if claimed is not None:
        if not is_own_origin(request, claimed, production):
            raise Forbidden("cross-site request refused: the origin is not this organization's")
        return
    if is_json(request):
        return
    if request.method != "POST" and not request.can_read_body and "Content-Type" not in request.headers:
        return
    raise Forbidden("cross-site request refused: no Origin or Referer, and not JSON")


def note_retry_after(request: web.Request, error: ApiError) -> None:
    """Keep how long a refused caller should wait, for the `Retry-After` header (the longest, in a batch)."""
    if isinstance(error, TooManyRequests | ServiceUnavailable) and error.retry_after is not None:
        request[RETRY_AFTER] = max(request.get(RETRY_AFTER, 0), error.retry_after)


def request_id_of(request: web.Request) -> str:
    """The client's `X-Request-Id` when it is a sane one, else a new id."""
    incoming = request.headers.get("X-Request-Id", "")
    return incoming if _REQUEST_ID.match(incoming) else new_id(Prefix.HTTP_REQUEST)


def render_error(request: web.Request, exc: Exception, style: str) -> web.StreamResponse:
    """The response for whatever a request raised: an ApiError as itself, aiohttp's refusals in our error
    tree, anything else a logged 500 (or 503/409 as web/errors.py maps it). A 503 says when to retry."""
    if isinstance(exc, ApiError):
        error = exc
    elif isinstance(exc, web.HTTPException):
        error = http_error(exc)
    else:
        error = unexpected_error(request, exc)
    note_retry_after(request, error)
    return error_response(error, style, request.get(PROCEDURE))


async def identify(request: web.Request,
                   before_lookup: Callable[[web.Request], Awaitable[None]] | None = None) -> Caller:
    """The caller of an `/api/` request, kept under `CALLER` and in the log context; a cookie-authenticated
    write (or one opening a session) is checked against cross-site requests. `before_lookup(request)` runs
    before a bearer credential this node has not verified yet is looked up."""
    node = request.app[NODE]
    bearer, session_token = _bearer(request), request.cookies.get(SESSION_COOKIE)
    if bearer is not None and bearer.startswith(FORM_SESSION_PREFIX) and request.path.startswith(FORM_PATHS):
        # A respondent's form session is no credential of a user: it is the form paths' to check.
        request[FORM_SESSION] = bearer
        bearer = session_token = None
    caller = await resolve_caller(node, request_id=request[REQUEST_ID], org_slug=org_slug(host_name(request),
                                  node.settings.service_host), bearer=bearer, session_token=session_token,
                                  mcp=request.path == MCP_PATH,
                                  before_lookup=partial(before_lookup, request) if before_lookup else None)
    request[CALLER] = caller
    structlog.contextvars.bind_contextvars(
        organization=caller.organization.slug if caller.organization else None, user=caller.user_id)
    if request.method in _WRITES and (caller.credential is CredentialKind.SESSION
                                      or request.path in SESSION_OPENING):
        check_csrf(request, node.settings.production)
    return caller
