"""Sign-up, login and logout: the routes that set and clear the
`authjs.session-token` cookie, and set the device cookie of a browser that proved an account's password
(actors/identity/device_cookies.py). The account logic lives in actors/identity/accounts.py."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from actors.identity import accounts, device_cookies
from actors.identity.device_cookies import DEVICE_COOKIE
from actors.tenancy import organizations
from protocol.auth import LoginInput, SignupInput
from protocol.caller import Caller
from protocol.errors import UnsupportedMediaType
from protocol.organizations import AcceptInvitationInput
from web.context import SESSION_COOKIE, is_json
from web.envelopes import json_response
from web.inputs import decode_input
from web.keys import CALLER, NODE
from web.rest import json_body


async def _json_input(request: web.Request) -> dict[str, Any]:
    """The body of a session-opening request, read only as JSON said to be JSON: a form a cross-site page
    posts (urlencoded, multipart, text/plain) is refused before it is read."""
    if not is_json(request):
        raise UnsupportedMediaType("this request needs Content-Type: application/json")
    return await json_body(request)


def set_session_cookie(request: web.Request, response: web.Response, session: accounts.Session) -> None:
    response.set_cookie(SESSION_COOKIE, session.token, max_age=int(session.expires_in.total_seconds()),
                        httponly=True, samesite="Lax", secure=request.app[NODE].settings.production, path="/")


def set_device_cookie(request: web.Request, response: web.Response, session: accounts.Session) -> None:
    """The session's new device cookie, if it has one (after the session cookie: clients read that one
    first)."""
    if session.device_cookie is not None:
        response.set_cookie(DEVICE_COOKIE, session.device_cookie,
                            max_age=int(device_cookies.LIFETIME.total_seconds()), httponly=True, samesite="Lax",
                            secure=request.app[NODE].settings.production, path="/")


async def signup(request: web.Request) -> web.Response:
    data = decode_input(SignupInput, await _json_input(request))
    session = await accounts.signup(request.app[NODE], data)
    response = json_response({"data": session.user}, 201)
    set_session_cookie(request, response, session)
    set_device_cookie(request, response, session)
    return response


async def login(request: web.Request) -> web.Response:
    caller: Caller = request[CALLER]
    data = decode_input(LoginInput, await _json_input(request))
    org_id = caller.organization.id if caller.organization else None
    session = await accounts.login(request.app[NODE], org_id, data, request.cookies.get(DEVICE_COOKIE))
    response = json_response({"data": session.user})
    set_session_cookie(request, response, session)
    set_device_cookie(request, response, session)
    return response


async def accept_invitation(request: web.Request) -> web.Response:
    data = decode_input(AcceptInvitationInput, await _json_input(request))
    session = await organizations.accept_invitation(request.app[NODE], data)
    response = json_response({"data": session.user})
    set_session_cookie(request, response, session)
    return response


async def logout(request: web.Request) -> web.Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await accounts.logout(request.app[NODE], token)
    response = json_response({"data": {"success": True}})
    response.del_cookie(SESSION_COOKIE, path="/")
    return response


def add_auth_routes(app: web.Application) -> None:
    app.router.add_post("/api/v1/auth/signup", signup)
    app.router.add_post("/api/v1/auth/login", login)
    app.router.add_post("/api/v1/auth/logout", logout)
    app.router.add_post("/api/v1/invitations/accept", accept_invitation)
