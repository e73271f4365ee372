"""`GET /forms/{slug}`: the page a form's `publicUrl` opens (and its distribution `?t=` and revision
`?revision=` links). One self-contained HTML page (form_page.html: no external script, style, font or CDN) whose
inline script fetches the public definition, renders the form, uploads files, asks for a one-time code on
`requireAuth` forms and submits. The page itself shows nothing of the form but its name: the answers, the
tokens and the form session stay between the script and the public API (web/routes_forms_public.py).

Its headers: a strict Content-Security-Policy whose per-response nonce is the only way a script or style runs,
`Referrer-Policy: no-referrer` (the URL may carry a token), `nosniff`, no framing, no caching. A draft,
unknown or other organization's form, or a host naming no organization, is a plain 404 page."""

from __future__ import annotations

import html
import re
import secrets
from importlib.resources import files

from aiohttp import web

from actors.forms.access import find_form
from actors.identity.callers import organization_for_slug
from protocol.errors import NotFound
from web.context import host_name, org_slug
from web.keys import NODE

PATH = "/forms/{slug}"
_TEMPLATE = files(__package__).joinpath("form_page.html").read_text(encoding="utf-8")
_SLUG = re.compile(r"^[A-Za-z0-9-]{1,120}$")
# Everything the page needs comes from its own origin; scripts and styles only with this response's nonce.
_CSP = ("default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
_NOT_FOUND = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Form not found</title></head>"
              "<body><h1>Form not found</h1><p>This form does not exist or does not take responses.</p>"
              "</body></html>")


def _headers(csp: str) -> dict[str, str]:
    return {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Cache-Control": "no-store"}


def _not_found() -> web.Response:
    return web.Response(text=_NOT_FOUND, status=404, content_type="text/html",
                        headers=_headers("default-src 'none'; base-uri 'none'; frame-ancestors 'none'"))


def render(nonce: str, organization: str, form_slug: str, title: str) -> str:
    """The page for one response; every value is escaped for the HTML attribute or text it lands in."""
    values = {"NONCE": nonce, "ORGANIZATION": organization, "FORM": form_slug, "TITLE": title}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda match: html.escape(values[match[1]], quote=True), _TEMPLATE)


async def form_page(request: web.Request) -> web.Response:
    node = request.app[NODE]
    slug, organization = request.match_info["slug"], org_slug(host_name(request), node.settings.service_host)
    if organization is None or not _SLUG.match(slug):
        return _not_found()
    try:
        org = await organization_for_slug(node, organization)
    except NotFound:
        return _not_found()
    form = await find_form(node.pool, org.id, slug)
    if form is None or form["status"] not in ("published", "closed"):
        return _not_found()
    nonce = secrets.token_urlsafe(18)
    return web.Response(text=render(nonce, org.slug, form["slug"], form["name"]), content_type="text/html",
                        headers=_headers(_CSP.format(nonce=nonce)))


def add_form_page_routes(app: web.Application) -> None:
    app.router.add_get(PATH, form_page)
