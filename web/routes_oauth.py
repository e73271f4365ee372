"""The OAuth 2.0 endpoints and pages on the auth host `auth.<service_host>` (docs/sign-in.md); a
request for /oauth/* on any other host is 404.

`GET /oauth/authorize` checks the client and redirect URI (an unknown one is an error page: nothing is ever
redirected to an unregistered URI), then the rest of the request (errors go back to the redirect URI per RFC 6749
4.1.2.1), then shows a plain HTML sign-in form (the login's password check and guessing throttle,
actors/identity/accounts.py) or the consent page: the app, the scopes asked for, the organization to act in,
Approve and Deny. Its forms post back to the same URL with a CSRF value that must equal a cookie set for the auth
host (double submit: another site can neither read nor set it). `POST /oauth/token` and `POST /oauth/revoke`
take urlencoded forms only and answer RFC 6749 5.1/5.2 JSON (actors/identity/oauth_grants.py).
"""

from __future__ import annotations

import hmac
import html
import secrets
from collections.abc import Mapping
from typing import Any, NoReturn
from urllib.parse import parse_qsl

import msgspec
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.base import OAuth2Error
from authlib.oauth2.rfc6749.errors import (
    AccessDeniedError,
    InvalidRequestError,
    InvalidScopeError,
    UnsupportedGrantTypeError,
    UnsupportedResponseTypeError,
)
from authlib.oauth2.rfc6749.util import extract_basic_authorization

from actors.identity import accounts, oauth_grants, sso
from actors.identity.callers import resolve_caller
from actors.identity.device_cookies import DEVICE_COOKIE
from actors.kernel.membership_cache import member_role
from protocol.auth import LoginInput
from protocol.errors import TooManyRequests, Unauthorized
from web.auth_routes import set_device_cookie, set_session_cookie
from web.context import SESSION_COOKIE, host_name, request_id_of
from web.keys import NODE
from web.plain_pages import plain_page

AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"
REVOKE_PATH = "/oauth/revoke"
CSRF_COOKIE = "obeya-oauth-csrf"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
MAX_FORM_FIELDS = 20  # the largest form here (a token request) has 7 fields


def _on_auth_host(request: web.Request) -> None:
    if host_name(request) != "auth." + request.app[NODE].settings.service_host:
        raise web.HTTPNotFound()


class _Refused(Exception):
    """The authorize request cannot go back to the client: the page that says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _error_redirect(error: OAuth2Error) -> NoReturn:
    _, _, headers = error()
    raise web.HTTPFound(dict(headers)["Location"])


async def _authorization(request: web.Request) -> dict[str, Any]:
    """The checked authorize request: app, redirect URI, scopes, state and PKCE challenge."""
    query = request.query
    repeated = [name for name in dict.fromkeys(query) if len(query.getall(name)) > 1]
    if "client_id" in repeated or "redirect_uri" in repeated:
        raise _Refused("The client_id and redirect_uri must not be repeated")
    client_id, redirect_uri = query.get("client_id"), query.get("redirect_uri")
    app = await oauth_grants.app_for_client(request.app[NODE], client_id) if client_id else None
    if app is None:
        raise _Refused("Unknown application (client_id)")
    registered = list(app["redirect_uris"])
    sent = redirect_uri is not None
    if redirect_uri is None and len(registered) == 1:
        redirect_uri = registered[0]
    if redirect_uri not in registered:
        raise _Refused("The redirect_uri is not registered for this application")
    state = query.get("state")
    back = {"redirect_uri": redirect_uri, "state": state}
    if repeated:  # RFC 6749 3.1; a repeated state is sent back as its first value
        _error_redirect(InvalidRequestError(description=f"{repeated[0]} must not be repeated", **back))
    if query.get("response_type") != "code":
        _error_redirect(UnsupportedResponseTypeError(query.get("response_type"), **back))
    scopes = (query.get("scope") or "").split() or list(app["scopes"])
    if any(scope not in app["scopes"] for scope in scopes):
        _error_redirect(InvalidScopeError(description="scope must be among the application's scopes", **back))
    challenge = query.get("code_challenge")
    if challenge is None and app["public"]:
        _error_redirect(InvalidRequestError(description="a public client must send a PKCE code_challenge", **back))
    if challenge is not None and (query.get("code_challenge_method") != "S256"
                                  or not oauth_grants.check_challenge(challenge)):
        _error_redirect(InvalidRequestError(description="code_challenge must be S256", **back))
    return {"app": app, "redirect_uri": redirect_uri, "redirect_uri_sent": sent, "state": state,
            "challenge": challenge, "scopes": list(dict.fromkeys(scopes))}


async def _signed_in_user(request: web.Request) -> str | None:
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    caller = await resolve_caller(request.app[NODE], request_id=request_id_of(request), org_slug=None, bearer=None,
                                  session_token=token)
    return caller.user_id


def _csrf_field(request: web.Request) -> tuple[str, str]:
    token = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
    return token, f'<input type="hidden" name="csrf" value="{html.escape(token)}">'


def _with_csrf_cookie(request: web.Request, response: web.Response, token: str) -> web.Response:
    if request.cookies.get(CSRF_COOKIE) != token:
        response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="Strict", path="/oauth",
                            secure=request.app[NODE].settings.production)
    return response


def _sign_in_page(request: web.Request, message: str = "", status: int = 200) -> web.Response:
    token, csrf = _csrf_field(request)
    notice = f"<p><strong>{html.escape(message)}</strong></p>" if message else ""
    page = plain_page("Sign in to continue",
                      f'{notice}<form method="post">{csrf}<input type="hidden" name="action" value="signin">'
                      '<p><label>E-mail <input type="email" name="email" required></label></p>'
                      '<p><label>Password <input type="password" name="password" required></label></p>'
                      '<p><button type="submit">Sign in</button></p></form>', status)
    return _with_csrf_cookie(request, page, token)


async def _consent_page(request: web.Request, checked: Mapping[str, Any], user_id: str) -> web.Response:
    orgs = await oauth_grants.organizations_of(request.app[NODE], user_id)
    if not orgs:
        return plain_page("You are not a member of any organization", "", 403)
    token, csrf = _csrf_field(request)
    options = "".join(f'<option value="{html.escape(o["organization_id"])}">{html.escape(o["organization_slug"])}'
                      "</option>" for o in orgs)
    chooser = (f'<p><label>Organization <select name="organization">{options}</select></label></p>' if len(orgs) > 1
               else f'<input type="hidden" name="organization" value="{html.escape(orgs[0]["organization_id"])}">')
    scopes = "".join(f"<li>{html.escape(scope)}</li>" for scope in checked["scopes"])
    page = plain_page(f"Authorize {checked['app']['name']}",
                      f"<p><strong>{html.escape(checked['app']['name'])}</strong> asks to act for you with:</p>"
                      f'<ul>{scopes}</ul><form method="post">{csrf}{chooser}'
                      '<button type="submit" name="action" value="approve">Approve</button> '
                      '<button type="submit" name="action" value="deny">Deny</button></form>',
                      redirects_to=(checked["redirect_uri"],))  # Approve and Deny end at the app's redirect URI
    return _with_csrf_cookie(request, page, token)


async def _opening(request: web.Request) -> dict[str, Any] | web.Response:
    """What both authorize handlers start with: the checked request, or the page that refuses it."""
    _on_auth_host(request)
    try:
        return await _authorization(request)
    except _Refused as refused:
        return plain_page("This authorization request is invalid", f"<p>{html.escape(refused.message)}.</p>", 400)


async def show_authorize(request: web.Request) -> web.Response:
    checked = await _opening(request)
    if isinstance(checked, web.Response):
        return checked
    user_id = await _signed_in_user(request)
    return await _consent_page(request, checked, user_id) if user_id else _sign_in_page(request)


class _BadForm(Exception):
    """A form body the OAuth endpoints refuse (RFC 6749 3.1: a parameter at most once; UTF-8 only)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _form(request: web.Request) -> dict[str, str]:
    """The urlencoded body, each name once, in UTF-8 (aiohttp's own parser keeps the first of repeated names and
    decodes what is not UTF-8 into replacement characters, so the body is parsed here)."""
    if request.content_type != "application/x-www-form-urlencoded":
        raise _BadForm("the body must be application/x-www-form-urlencoded")
    try:
        body = (await request.read()).decode("utf-8")
        pairs = parse_qsl(body, keep_blank_values=True, errors="strict", max_num_fields=MAX_FORM_FIELDS)
    except HttpProcessingError as error:  # aiohttp's refusal of a malformed body
        raise _BadForm("the body is malformed") from error
    except UnicodeDecodeError as error:
        raise _BadForm("the body must be UTF-8") from error
    except ValueError as error:  # more fields than any of these forms has
        raise _BadForm("the body has too many fields") from error
    form: dict[str, str] = {}
    for name, value in pairs:
        if name in form:
            raise _BadForm(f"{name} must not be repeated")
        form[name] = value
    return form


async def _sign_in(request: web.Request, form: Any) -> web.Response:
    node = request.app[NODE]
    try:
        data = msgspec.convert({"email": str(form.get("email", "")).strip(),
                                "password": str(form.get("password", ""))}, LoginInput)
        session = await accounts.login(node, None, data, request.cookies.get(DEVICE_COOKIE))
    except (msgspec.ValidationError, Unauthorized):
        return _sign_in_page(request, "Invalid e-mail or password.", 401)
    except TooManyRequests as error:
        return plain_page("Too many attempts", f"<p>{html.escape(error.message)}</p>", 429)
    response = web.HTTPSeeOther(str(request.rel_url))
    set_session_cookie(request, response, session)
    set_device_cookie(request, response, session)  # this host's own: cookies go back to the host that set them
    raise response


async def submit_authorize(request: web.Request) -> web.Response:
    checked = await _opening(request)
    if isinstance(checked, web.Response):
        return checked
    try:
        form = await _form(request)
    except _BadForm as bad:
        return plain_page("This form is malformed", f"<p>{html.escape(bad.message)}.</p>", 400)
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not hmac.compare_digest(form.get("csrf", "").encode(), cookie.encode()):  # bytes: any text
        return plain_page("This form has expired", "<p>Open the application's sign-in link again.</p>", 403)
    action = form.get("action")
    if action == "signin":
        return await _sign_in(request, form)
    user_id = await _signed_in_user(request)
    if user_id is None:
        return _sign_in_page(request, "Sign in first.", 401)
    back = {"redirect_uri": checked["redirect_uri"], "state": checked["state"]}
    if action == "deny":
        _error_redirect(AccessDeniedError(description="the user denied the request", **back))
    if action != "approve":
        return plain_page("Choose Approve or Deny", "", 400)
    org_id = str(form.get("organization", ""))
    member = await member_role(request.app[NODE], org_id, user_id) if org_id else None
    if member is None:
        return plain_page("Choose one of your organizations", "", 400)
    if member != "owner" and await sso.enforced(request.app[NODE], org_id):
        # The sign-in here is a password's, which such an organization leaves to its owner alone (break-glass).
        return plain_page("This organization signs in through its identity provider",
                          "<p>Its members cannot let an application act for them from a password sign-in.</p>", 403)
    code = await oauth_grants.issue_code(request.app[NODE], app=checked["app"], org_id=org_id, user_id=user_id,
                                         scopes=checked["scopes"], redirect_uri=checked["redirect_uri"],
                                         redirect_uri_sent=checked["redirect_uri_sent"],
                                         code_challenge=checked["challenge"])
    if code is None:  # left the organization since the check above
        return plain_page("Choose one of your organizations", "", 400)
    params = [("code", code)] + ([("state", checked["state"])] if checked["state"] is not None else [])
    raise web.HTTPFound(add_params_to_uri(checked["redirect_uri"], params))


def _oauth_json(body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.json_response(dict(body), status=status, headers={**NO_STORE, **(headers or {})})


def _error_json(error: OAuth2Error) -> web.Response:
    status, body, headers = error()
    extra = {name: value for name, value in headers if name.lower() == "www-authenticate"}
    return _oauth_json(body, status, extra)


async def _client_request(request: web.Request) -> tuple[Mapping[str, Any], dict[str, str]]:
    """The urlencoded form of a token or revocation request and the client it authenticates."""
    try:
        form = await _form(request)
    except _BadForm as bad:
        raise InvalidRequestError(description=bad.message) from bad
    basic_id, basic_secret = extract_basic_authorization(request.headers)
    if basic_id is not None and (form.get("client_secret") is not None
                                 or form.get("client_id") not in (None, basic_id)):
        raise InvalidRequestError(description="use one client authentication method")
    client_id = basic_id if basic_id is not None else form.get("client_id")
    secret = basic_secret if basic_id is not None else form.get("client_secret")
    app = await oauth_grants.authenticate_client(request.app[NODE], client_id, secret, basic_id is not None)
    return app, form


async def token(request: web.Request) -> web.Response:
    _on_auth_host(request)
    try:
        app, form = await _client_request(request)
        grant_type = form.get("grant_type")
        node = request.app[NODE]
        if grant_type == "authorization_code":
            body = await oauth_grants.exchange_code(node, app, form.get("code"), form.get("redirect_uri"),
                                                    form.get("code_verifier"))
        elif grant_type == "refresh_token":
            body = await oauth_grants.refresh(node, app, form.get("refresh_token"), form.get("scope"))
        elif not grant_type:
            raise InvalidRequestError(description="grant_type is required")
        else:
            raise UnsupportedGrantTypeError(grant_type)
    except OAuth2Error as error:
        return _error_json(error)
    return _oauth_json(body)


async def revoke(request: web.Request) -> web.Response:
    _on_auth_host(request)
    try:
        app, form = await _client_request(request)
        await oauth_grants.revoke(request.app[NODE], app, form.get("token"))
    except OAuth2Error as error:
        return _error_json(error)
    return web.Response(status=200, headers=NO_STORE)


async def _not_here(request: web.Request) -> web.Response:
    raise web.HTTPNotFound()


def add_oauth_routes(app: web.Application) -> None:
    app.router.add_get(AUTHORIZE_PATH, show_authorize)
    app.router.add_post(AUTHORIZE_PATH, submit_authorize)
    app.router.add_post(TOKEN_PATH, token)
    app.router.add_post(REVOKE_PATH, revoke)
    app.router.add_route("*", "/oauth/{rest:.*}", _not_here)
