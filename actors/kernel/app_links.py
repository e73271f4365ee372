"""Links the server gives a person into the browser front end: the front end's stable paths on an organization's
host (`base_url`, from `Node.base_url`), built here and nowhere else, so a path changes in one place.

The stable paths are `/`, `/boards/<id>`, `/items/<id>`, `/kpis/<id>`, `/actions/<id>`, `/settings/<section>`,
`/forms/<slug>`, `/invite?token=` and `/screens/<id>` (docs/api.md "Links into the app"). Only the ones some e-mail
or reply of the server links to have a function here; a notification names its target by `entityType` and
`entityId` instead."""

from __future__ import annotations

from urllib.parse import urlencode

INVITATION_PATH = "/invite"  # served by web/routes_invitations.py


def item_url(base_url: str, item_id: str) -> str:
    """An item's page: an automation's `{item.url}`."""
    return f"{base_url}/items/{item_id}"


def form_url(base_url: str, slug: str) -> str:
    """Where respondents fill in a form (web/ui/form_page.py): the form's `publicUrl`; a distribution link adds
    `?t=<token>` and a revision link `?revision=<token>`."""
    return f"{base_url}/forms/{slug}"


def invitation_url(base_url: str, token: str) -> str:
    """The page an invitation e-mail opens: who invites whom, and how to accept."""
    return f"{base_url}{INVITATION_PATH}?{urlencode({'token': token})}"


def display_url(base_url: str, display_id: str, secret: str) -> str:
    """A display link (docs/displays.md): the wall screen's page, its secret in the fragment, which browsers never
    send to a server, so it stays out of every access log."""
    return f"{base_url}/screens/{display_id}#{secret}"
