"""The page an invitation e-mail's link opens: `GET /invite?token=` on the organization's host says which
organization invites which address, with which role and until when, and how to accept: the JSON request
`POST /api/v1/invitations/accept` takes (session-opening requests are JSON only, so the page has no form that
could accept). An unknown, used, revoked or expired link, or one opened on another organization's host, is 404.
The page accepts nothing: mail scanners follow links."""

from __future__ import annotations

import html
import json
import shlex
from datetime import UTC

from aiohttp import web

from actors.identity.callers import organization_for_slug
from actors.kernel.app_links import INVITATION_PATH
from actors.tenancy.organizations import read_invitation
from protocol.errors import NotFound
from web.context import host_name, org_slug
from web.keys import NODE
from web.plain_pages import plain_page

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
    return plain_page(f"You are invited to {organization.name}",
                      f"<dl>{rows}</dl><h2>Accept</h2><p>Send your name and a password (the password of your "
                      f"account if {html.escape(invitation['email'])} already has one) to {ACCEPT_PATH}:</p>"
                      f"<pre>{html.escape(accept)}</pre>")


def add_invitation_routes(app: web.Application) -> None:
    app.router.add_get(INVITATION_PATH, show)
