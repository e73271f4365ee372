"""Finding a form: by the id or slug a URL carries (`find_form`, for the public paths), and as a caller of its
organization who sees its board (`visible_form`). Forms, their distribution, their approval flows, uploads
and the form page all find a form through here, so another tenant's form and a form on a board the caller
may not see are the same 404."""

from __future__ import annotations

import re

import asyncpg

from actors.kernel.access import on_visible_board
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.forms import FORM_SLUG_PATTERN
from storage.connection import Conn
from storage.forms import form_by_slug, get_form

_FORM_ID = re.compile(r"^frm_[a-z0-9]{1,60}$")
_FORM_SLUG = re.compile(FORM_SLUG_PATTERN)


async def find_form(conn: Conn, org_id: str, ref: str) -> asyncpg.Record | None:
    """A form by id or slug; None for a reference that can be neither (a URL may carry anything, NUL included,
    which PostgreSQL cannot even compare)."""
    if _FORM_ID.match(ref):
        return await get_form(conn, org_id, ref)
    return await form_by_slug(conn, org_id, ref) if _FORM_SLUG.match(ref) else None


async def visible_form(node: Node, caller: Caller, form_id: str) -> asyncpg.Record:
    """The form if it is in the caller's organization on a board the caller sees, else NotFound."""
    return await on_visible_board(node, caller, await get_form(node.pool, caller.org_id, form_id), "form not found")
