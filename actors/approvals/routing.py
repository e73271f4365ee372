"""From a call to the flow actor that owns it: the flow's form and board (a flow of a form on a board the
caller may not see is not found, like another organization's), the context a decision needs (members,
the form's public URL, how mail goes), and asking the actor."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from actors.approvals.actor import FlowActor
from actors.approvals.commands import Command, Context, Message
from actors.forms.access import visible_form
from actors.kernel.app_links import form_url
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import NotFound
from protocol.form_schema import FormSchema, FormSettings
from storage import approvals as repo


async def visible_flow(node: Node, caller: Caller, flow_id: str, *, deleted: bool = False
                       ) -> tuple[asyncpg.Record, asyncpg.Record]:
    """(flow, form) when the caller may see the flow's form; NotFound otherwise (also once soft-deleted,
    unless `deleted`)."""
    flow = await (repo.any_flow if deleted else repo.get_flow)(node.pool, caller.org_id, flow_id)
    if flow is None:
        raise NotFound("approval flow not found")
    try:
        form = await visible_form(node, caller, flow["form_id"])
    except NotFound:
        raise NotFound("approval flow not found") from None
    return flow, form


def schema_of(form: asyncpg.Record) -> FormSchema:
    return msgspec.convert(form["schema"], FormSchema)


def form_keys(form: asyncpg.Record) -> set[str]:
    return {component.key for component in schema_of(form).components}


async def org_slug(node: Node, org_id: str) -> str:
    slug: str = await node.pool.fetchval("SELECT slug FROM organizations WHERE id = $1", org_id)
    return slug


async def context(node: Node, org_id: str, form: asyncpg.Record) -> Context:
    base_url = node.base_url(await org_slug(node, org_id))
    settings = msgspec.convert(form["settings"], FormSettings)
    return Context(base_url=base_url, public_url=form_url(base_url, form["slug"]), form_name=form["name"],
                   success_message=settings.successMessage, people=await repo.people(node.pool, org_id),
                   smtp_configured=node.settings.smtp is not None)


async def ask_flow(node: Node, caller: Caller | None, org_id: str, flow_id: str, message: Message,
                   ctx: Context | None = None) -> Any:
    now = node.clock.now()
    command = Command(message, caller, now.replace(microsecond=now.microsecond // 1000 * 1000), ctx or Context())
    return await node.actors.ask(FlowActor, flow_id, org_id, command)
