"""The browser front end's entry: the one HTML page every stable path of the app answers (`/`, `/boards/<id>`,
`/items/<id>`, `/settings/<section>` ...), and the app's own files under `/ui/` (web/ui/static: ES modules,
styles and the vendored libraries; no build step). The page is the same for every path; the app reads the
path and draws the screen. The page carries, in `<meta>` tags (no inline script), the service host and the
organization slug the host names, so the app knows whether it runs on the service host (sign-in, sign-up, the
organization picker) or in an organization.

Headers: a strict Content-Security-Policy (`script-src 'self'`: only the app's own files run; nothing from
another origin, no inline script or style), no framing, `nosniff`. The page is never cached (it is tiny and
names no version); the files under `/ui/` are revalidated on every load (`no-cache` with the file's
ETag), so a new release is picked up at once and an unchanged file costs a 304."""

from __future__ import annotations

import hashlib
import html
from importlib.resources import files
from pathlib import Path

from aiohttp import web

from web.context import host_name, org_slug
from web.keys import NODE

STATIC_PREFIX = "/ui/"
# The stable paths of the app: links in e-mails, notifications and bookmarks lead here.
APP_PATHS = ("/", "/signin", "/signup", "/notifications", "/workspaces/{id}", "/projects/{id}", "/boards/{id}",
             "/items/{id}", "/kpis/{id}", "/actions/{id}", "/meetings/{id}", "/settings", "/settings/{section}",
             "/invite/accept", "/screens/{id}", "/tablet")
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; "
       "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
_STATIC_ROOT = Path(str(files(__package__).joinpath("static")))
_TEMPLATE = files(__package__).joinpath("app_page.html").read_text(encoding="utf-8")
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
          ".png": "image/png", ".woff2": "font/woff2", ".txt": "text/plain"}
_SECURITY = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"}


def render(service_host: str, organization: str | None) -> str:
    values = {"SERVICE_HOST": service_host, "ORGANIZATION": organization or ""}
    page = _TEMPLATE
    for name, value in values.items():
        page = page.replace("{{" + name + "}}", html.escape(value, quote=True))
    return page


async def app_page(request: web.Request) -> web.Response:
    service_host = request.app[NODE].settings.service_host
    page = render(service_host, org_slug(host_name(request), service_host))
    return web.Response(text=page, content_type="text/html", headers={
        "Content-Security-Policy": CSP, "Cache-Control": "no-store", **_SECURITY})


def _static_file(relative: str) -> Path | None:
    """The file under the static root that `relative` names; None for anything outside it or not a file."""
    candidate = (_STATIC_ROOT / relative).resolve()
    if not candidate.is_relative_to(_STATIC_ROOT.resolve()) or not candidate.is_file():
        return None
    return candidate if candidate.suffix in _TYPES else None


async def static_file(request: web.Request) -> web.StreamResponse:
    found = _static_file(request.match_info["path"])
    if found is None:
        raise web.HTTPNotFound(text="Not found", headers=_SECURITY)
    body = found.read_bytes()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": "no-cache", **_SECURITY}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type=_TYPES[found.suffix], charset="utf-8"
                        if found.suffix in (".js", ".mjs", ".css", ".svg", ".txt") else None,
                        headers=headers)


# The tablet's service worker is served from the root, not from /ui/: a worker controls at most the paths
# under its own, and it must control /tablet. Never cached, so a new release's worker is found at once.
TABLET_WORKER = "tablet-sw.js"


async def tablet_worker(request: web.Request) -> web.Response:
    body = (_STATIC_ROOT / TABLET_WORKER).read_bytes()
    return web.Response(body=body, content_type="text/javascript", charset="utf-8",
                        headers={"Cache-Control": "no-cache", **_SECURITY})


def add_app_routes(app: web.Application) -> None:
    for path in APP_PATHS:
        app.router.add_get(path, app_page)
    app.router.add_get("/" + TABLET_WORKER, tablet_worker)
    app.router.add_get(STATIC_PREFIX + "{path:.+}", static_file)
