"""Single sign-on in the browser (docs/sign-in.md): `GET /api/v1/auth/sso/start` on an organization's
host sends the browser to the identity provider; `GET /api/v1/auth/sso/callback` comes back with the code, signs
the member in with the session cookie web/auth_routes.py sets, and redirects to `returnTo`. A refusal is a
plain page (web/plain_pages.py) with its status: 400 bad or expired state, 401 token checks failed, 403 not
allowed, 503 provider unreachable."""

from __future__ import annotations

import html

from aiohttp import web

from actors.identity import sso
from protocol.caller import Caller
from protocol.errors import ApiError
from web.auth_routes import set_session_cookie
from web.keys import CALLER, NODE
from web.plain_pages import plain_page

# Binds a sign-in under way to the browser that started it (the callback compares it with `state`).
STATE_COOKIE = "obeya-sso-state"
COOKIE_PATH = "/api/v1/auth/sso"


def _refusal(error: ApiError) -> web.Response:
    return plain_page("Single sign-on failed", f"<p>{html.escape(error.message)}</p>", error.status)


def _redirect_uri(request: web.Request, slug: str) -> str:
    return request.app[NODE].base_url(slug) + sso.CALLBACK_PATH


def _redirect(location: str) -> web.Response:
    return web.Response(status=302, headers={"Location": location, "Cache-Control": "no-store"})


async def start(request: web.Request) -> web.Response:
    caller: Caller = request[CALLER]
    if caller.organization is None:
        return plain_page("Organization not found", "", 404)
    node = request.app[NODE]
    try:
        started = await sso.begin(node, caller.organization, _redirect_uri(request, caller.organization.slug),
                                  request.query.get("returnTo"))
    except ApiError as error:
        return _refusal(error)
    response = _redirect(started.location)
    response.set_cookie(STATE_COOKIE, started.state, max_age=int(sso.ATTEMPT_LIFETIME.total_seconds()),
                        httponly=True, samesite="Lax", secure=node.settings.production, path=COOKIE_PATH)
    return response


async def callback(request: web.Request) -> web.Response:
    caller: Caller = request[CALLER]
    if caller.organization is None:
        return plain_page("Organization not found", "", 404)
    node = request.app[NODE]
    if "error" in request.query:
        await sso.abandon(node, caller.organization, state=request.query.get("state"),
                          bound_state=request.cookies.get(STATE_COOKIE))
        response = plain_page("Single sign-on failed", "<p>The identity provider did not sign you in: "
                              f"{html.escape(request.query['error'][:200])}.</p>", 401)
    else:
        try:
            finished = await sso.finish(node, caller.organization, state=request.query.get("state"),
                                        bound_state=request.cookies.get(STATE_COOKIE),
                                        code=request.query.get("code"),
                                        redirect_uri=_redirect_uri(request, caller.organization.slug))
        except ApiError as error:
            response = _refusal(error)
        else:
            response = _redirect(finished.return_to)
            set_session_cookie(request, response, finished.session)
    response.del_cookie(STATE_COOKIE, path=COOKIE_PATH)
    return response


def add_sso_routes(app: web.Application) -> None:
    app.router.add_get("/api/v1/auth/sso/start", start)
    app.router.add_get(sso.CALLBACK_PATH, callback)
