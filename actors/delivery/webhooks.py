"""Webhook management with the delivery log and redeliver (docs/api.md, "Webhooks"): create,
list, update, delete, read deliveries, redeliver; each change written to the activity trail.

A webhook's URL must be http(s) with a host, HTTPS in production (`OBEYA_ENV=production`). Unless
`OBEYA_ALLOW_PRIVATE_TARGETS=1`, its host must name (literally, in any spelling) or resolve to public
addresses only (actors/delivery/addresses.py: no loopback, private, link-local such as the cloud metadata
address, multicast, reserved or embedding ones); the delivery worker checks the address again when it
connects. The secret is never returned after creation: views say `secretSet` instead.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from actors.delivery.addresses import literal_address, refusal
from actors.delivery.webhook_sender import forget_webhook_orgs
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from protocol import webhooks as proto
from protocol.caller import Caller
from protocol.errors import FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from protocol.registry import EmptyInput
from storage import webhooks as repo

procedures = Implementations()


def _refuse(message: str, field: str) -> ValidationFailed:
    return ValidationFailed(f"{field} {message}", details=[FieldError(field, message)])


async def check_url(node: Node, url: str, field: str = "url") -> str:
    """The URL if a webhook (or an automation's call_webhook) may post to it, else ValidationFailed naming
    `field`."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError:
        raise _refuse("is not a valid URL", field) from None
    if parts.scheme not in ("http", "https") or not host:
        raise _refuse("must be an http or https URL with a host", field)
    if node.settings.production and parts.scheme != "https":
        raise _refuse("must use HTTPS", field)
    if node.settings.allow_private_targets:
        return url
    literal = literal_address(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise _refuse("host does not resolve", field) from None
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for address in addresses:
        why = refusal(address)
        if why is not None:
            raise _refuse(f"must not point to {why} ({address})", field)
    return url


def webhook_view(row: Mapping[str, Any]) -> dict[str, Any]:
    status = "failed" if row["failed"] else "active" if row["active"] else "inactive"
    return {"id": row["id"], "url": row["url"], "events": list(row["events"]), "active": row["active"],
            "status": status, "description": row["description"], "secretSet": row["secret"] is not None,
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def delivery_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "eventId": row["event_id"], "event": row["event"], "status": row["status"],
            "attempts": row["attempts"], "responseCode": row["response_code"], "durationMs": row["duration_ms"],
            "error": row["last_error"], "nextAttemptAt": iso(row["next_attempt_at"]),
            "createdAt": iso(row["created_at"])}


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    """What the activity trail keeps of a webhook: never its secret."""
    return {"url": row["url"], "events": list(row["events"]), "active": row["active"]}


@procedures.implement(proto.CREATE)
async def create(node: Node, caller: Caller, data: proto.CreateWebhookInput) -> dict[str, Any]:
    url = await check_url(node, data.url)
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.insert(conn, webhook_id=new_id(Prefix.WEBHOOK), org_id=caller.org_id, url=url,
                                events=list(dict.fromkeys(data.events)), secret=data.secret,
                                description=data.description, created_by=caller.uid, now=node.clock.now())
        await uow.activity("webhook", row["id"], "webhook.created",
                           _audit(row))
    forget_webhook_orgs(node)
    return webhook_view(row)


@procedures.implement(proto.LIST)
async def list_webhooks(node: Node, caller: Caller, data: EmptyInput) -> list[dict[str, Any]]:
    return [webhook_view(row) for row in await repo.list_for_org(node.pool, caller.org_id)]


@procedures.implement(proto.UPDATE)
async def update(node: Node, caller: Caller, data: proto.UpdateWebhookInput) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if data.url is not None:
        changes["url"] = await check_url(node, data.url)
    if data.events is not None:
        changes["events"] = list(dict.fromkeys(data.events))
    if data.description is not None:
        changes["description"] = data.description
    if data.active is not None:
        changes["active"] = data.active
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.update(conn, caller.org_id, data.id, changes, node.clock.now())
        if row is None:
            raise NotFound("webhook not found")
        await uow.activity("webhook", row["id"], "webhook.updated",
                           {**_audit(row), "changed": sorted(changes)})
    forget_webhook_orgs(node)
    return webhook_view(row)


@procedures.implement(proto.DELETE)
async def delete(node: Node, caller: Caller, data: proto.WebhookIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.get(conn, caller.org_id, data.id)
        if row is None or not await repo.delete(conn, caller.org_id, data.id):
            raise NotFound("webhook not found")
        await uow.activity("webhook", data.id, "webhook.deleted", _audit(row))
    forget_webhook_orgs(node)
    return {"success": True, "id": data.id}


@procedures.implement(proto.DELIVERIES)
async def deliveries(node: Node, caller: Caller, data: proto.DeliveriesInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    if await repo.get(node.pool, caller.org_id, data.id) is None:
        raise NotFound("webhook not found")
    rows = await repo.deliveries(node.pool, caller.org_id, data.id, limit + 1, after)
    return time_page(rows, limit, delivery_view, "deliveries")


@procedures.implement(proto.REDELIVER)
async def redeliver(node: Node, caller: Caller, data: proto.WebhookIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        if await repo.get(conn, caller.org_id, data.id) is None:
            raise NotFound("webhook not found")
        requeued = await repo.redeliver(conn, caller.org_id, data.id, node.clock.now())
        row = await repo.get(conn, caller.org_id, data.id)
        assert row is not None
        await uow.activity("webhook", data.id, "webhook.redelivered",
                           {**_audit(row), "requeued": requeued})
    forget_webhook_orgs(node)
    return {**webhook_view(row), "requeued": requeued}
