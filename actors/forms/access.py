"""Who may see a form: a caller of its organization who sees its board. Forms, their distribution and their
approval flows all find a form through here, so another tenant's form and a form on a board the caller may
not see are the same 404."""

from __future__ import annotations

import asyncpg

from actors.kernel.access import require_board_access
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import NotFound
from storage.forms import get_form


async def visible_form(node: Node, caller: Caller, form_id: str) -> asyncpg.Record:
    """The form if it is in the caller's organization on a board the caller sees, else NotFound."""
    form = await get_form(node.pool, caller.org_id, form_id)
    if form is None:
        raise NotFound("form not found")
    try:
        await require_board_access(node, caller, form["board_id"])
    except NotFound:
        raise NotFound("form not found") from None
    return form
