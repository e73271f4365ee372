"""The page an invitation e-mail's link opens: `GET /invite?token=` on the organization's host says which
organization invites which address, with which role and until when, and leads to the app's screen that accepts
(`/invite/accept?token=`, web/ui/static/screens/invite.js), with the JSON request `POST
/api/v1/invitations/accept` takes for a script (session-opening requests are JSON only, so the page has no form
that could accept). An unknown, used, revoked or expired link, or one opened on another organization's host, is
404. The page accepts nothing: mail scanners follow links, and following this page's link only opens a form."""

from __future__ import annotations

import html
import json
import shlex
from datetime import UTC
from urllib.parse import urlencode

from aiohttp import web

from actors.identity.callers import organization_for_slug
from actors.kernel.app_links import INVITATION_PATH
from actors.tenancy.organizations import read_invitation
from protocol.errors import NotFound
from web.context import host_name, org_slug
from web.keys import NODE
from web.plain_pages import plain_page

SCREEN_PATH = "/invite/accept"
ACCEPT_PATH = "/api/v1/invitations/accept"


def _not_found() -> web.Response:
    return plain_page("Invitation not found", "<p>This invitation is not known here, was already accepted, or has "
                                              "expired. Ask for a new one.</p>", 404)


async def show(request: web.Request) -> web.Response:
    token = request.query.get("token", "")
    node = request.app[NODE]
    slug = org_slug(host_name(request), node.settings.service_host)
    if slug is None or not 10 <= len(token) <= 200:  # AcceptInvitationInput's bounds
        return _not_found()
    try:
        organization = await organization_for_slug(node, slug)
        invitation = await read_invitation(node, organization.id, token)
    except NotFound:
        return _not_found()
    body = json.dumps({"token": token, "name": "Your name", "password": "a password of 8 or more characters"})
    accept = (f"curl -s -c obeya.cookies -H 'Content-Type: application/json' -d {shlex.quote(body)} "
              f"{node.base_url(organization.slug)}{ACCEPT_PATH}")
    facts = [("Organization", organization.name), ("Invited", invitation["email"]), ("Role", invitation["role"]),
             ("Expires", invitation["expires_at"].astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))]
    rows = "".join(f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>" for term, text in facts)
    screen = f"{SCREEN_PATH}?{urlencode({'token': token})}"
    return plain_page(f"You are invited to {organization.name}",
                      f"<dl>{rows}</dl><p>Choose your name and a password on the next page (the password of your "
                      f"account if {html.escape(invitation['email'])} already has one).</p>"
                      f"<p><a class='button' href='{html.escape(screen, quote=True)}'>Accept the invitation</a></p>"
                      f"<details><summary>Accept from a script instead</summary><p>Send the name and password "
                      f"to {ACCEPT_PATH}:</p><pre>{html.escape(accept)}</pre></details>")


def add_invitation_routes(app: web.Application) -> None:
    app.router.add_get(INVITATION_PATH, show)
