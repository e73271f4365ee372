"""In-app notifications: created by other services through `uow.notify` (actors/kernel/write.py), read
and marked by their user."""

from __future__ import annotations

from typing import Any

from actors.kernel.events import notification_view
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import notifications as spec
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, NotFound
from protocol.ids import iso
from protocol.pagination import Page, page_limit
from protocol.registry import EmptyInput
from storage import notifications as repo

procedures = Implementations()


def _only(caller: Caller) -> str | None:
    """The organization a single sign-on session is limited to (its notifications only); None: every one."""
    return caller.org_id if caller.single_sign_on else None


@procedures.implement(spec.LIST)
async def list_notifications(node: Node, caller: Caller, data: spec.ListNotificationsInput) -> Page:
    limit = page_limit(data.limit, default=spec.DEFAULT_PAGE, maximum=spec.MAX_PAGE)
    async with node.pool.acquire() as conn:
        if data.cursor is not None and not await repo.exists(conn, caller.uid, data.cursor, _only(caller)):
            raise BadRequest("malformed cursor", details=[FieldError("cursor", "unknown notification id")])
        rows = await repo.page(conn, caller.uid, limit + 1, data.cursor, _only(caller))
    items = [notification_view(row) for row in rows[:limit]]
    next_cursor = items[-1]["id"] if len(rows) > limit else None
    return Page(items, next_cursor, limit, key="notifications")


@procedures.implement(spec.UNREAD_COUNT)
async def unread_count(node: Node, caller: Caller, data: EmptyInput) -> dict[str, int]:
    return {"count": await repo.unread_count(node.pool, caller.uid, _only(caller))}


@procedures.implement(spec.MARK_AS_READ)
async def mark_as_read(node: Node, caller: Caller, data: spec.NotificationIdInput) -> dict[str, Any]:
    row = await repo.mark_read(node.pool, caller.uid, data.id, _only(caller))
    if row is None:
        raise NotFound("notification not found")
    return notification_view(row)


@procedures.implement(spec.MARK_ALL_AS_READ)
async def mark_all_as_read(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    return {"success": True, "count": await repo.mark_all_read(node.pool, caller.uid, _only(caller))}


@procedures.implement(spec.REGISTER_DEVICE_TOKEN)
async def register_device_token(node: Node, caller: Caller, data: spec.DeviceTokenInput) -> dict[str, Any]:
    row = await repo.upsert_device_token(node.pool, caller.uid, caller.org_id, data.platform, data.token)
    return {"platform": row["platform"], "token": row["token"], "updatedAt": iso(row["updated_at"])}
