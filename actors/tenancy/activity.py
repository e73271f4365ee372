"""Reading the activity trail: the organization's entries and one entity's, newest first,
cursor-paged. Entries are written by other services with `uow.activity` (actors/kernel/write.py) inside their own
transactions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import activity as proto
from protocol.caller import Caller
from protocol.ids import iso
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from storage import activity as repo

procedures = Implementations()

PAGE_KEY = "entries"


def entry_view(row: Mapping[str, Any]) -> dict[str, Any]:
    actor = None
    if row["actor_id"] is not None:
        actor = {"id": row["actor_id"], "name": row["actor_name"], "email": row["actor_email"],
                 "image": row["actor_image"]}
    return {"id": row["id"], "entityType": row["entity_type"], "entityId": row["entity_id"],
            "action": row["action"], "metadata": row["metadata"], "createdAt": iso(row["created_at"]),
            "actor": actor}



@procedures.implement(proto.LIST_BY_ORG)
async def list_by_org(node: Node, caller: Caller, data: proto.ListByOrgInput) -> Page:
    limit = page_limit(data.limit, default=proto.ORG_DEFAULT_LIMIT)
    rows = await repo.list_by_org(node.pool, caller.org_id, limit + 1, decode_time_cursor(data.cursor))
    return time_page(rows, limit, entry_view, PAGE_KEY)


@procedures.implement(proto.LIST_BY_ENTITY)
async def list_by_entity(node: Node, caller: Caller, data: proto.ListByEntityInput) -> Page:
    limit = page_limit(data.limit, default=proto.ENTITY_DEFAULT_LIMIT)
    rows = await repo.list_by_entity(node.pool, caller.org_id, data.entityType, data.entityId, limit + 1,
                                     decode_time_cursor(data.cursor))
    return time_page(rows, limit, entry_view, PAGE_KEY)
