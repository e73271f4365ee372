"""Display links (docs/displays.md): create, read, list and revoke a board's wall-screen credentials, each change
written to the activity trail.

A display's secret is `svc_dsp_` + 40 hex characters (20 random bytes), shown once inside the link's URL; only its
bcrypt hash and the first 8 hex characters (the lookup prefix identity verification searches by) are stored.
Revoking drops the display's cached verification on every node (actors/kernel/invalidation.py CredentialRevoked),
so its next request is refused and its sockets are told `display.revoked` and closed (web/socket_gateway.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actors.identity.api_keys import NOT_A_MEMBER, mint_secret
from actors.identity.callers import DISPLAY_PREFIX
from actors.kernel.access import require_board_access
from actors.kernel.app_links import display_url
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import displays as proto
from protocol.caller import Caller, CredentialKind
from protocol.errors import Forbidden, NotFound
from protocol.ids import Prefix, iso, new_id
from storage import access as board_repo
from storage import displays as repo

procedures = Implementations()


def display_view(node: Node, row: Mapping[str, Any]) -> dict[str, Any]:
    """A display as read and listed: never its secret or hash. `lastSeenAt` is the later of the stored time and
    the one this node has not written yet."""
    seen = [moment for moment in (row["last_seen_at"], node.credentials.last_used(row["id"])) if moment is not None]
    return {"id": row["id"], "name": row["name"], "boardId": row["board_id"], "createdAt": iso(row["created_at"]),
            "lastSeenAt": iso(max(seen, default=None)), "revokedAt": iso(row["revoked_at"])}


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    """What the activity trail keeps of a display: never the secret or its hash."""
    return {"name": row["name"], "boardId": row["board_id"], "prefix": row["prefix"]}


@procedures.implement(proto.CREATE)
async def create(node: Node, caller: Caller, data: proto.CreateInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    # Hashed before the transaction: bcrypt takes tens of milliseconds and must not hold row locks.
    secret, prefix, secret_hash = await mint_secret(DISPLAY_PREFIX, node.settings.bcrypt_rounds)
    async with node.write(caller) as uow:
        row = await repo.insert(uow.conn, display_id=new_id(Prefix.DISPLAY), org_id=caller.org_id,
                                board_id=data.boardId, name=data.name, prefix=prefix, secret_hash=secret_hash,
                                created_by=caller.uid, now=uow.now)
        if row is None:  # the board was deleted since the access check, or its maker removed meanwhile
            if await board_repo.board_workspace(uow.conn, caller.org_id, data.boardId) is None:
                raise NotFound("board not found")
            raise Forbidden(NOT_A_MEMBER)
        await uow.activity("display", row["id"], "display.created", _audit(row))
    assert caller.organization is not None
    return {"id": row["id"], "name": row["name"], "boardId": row["board_id"],
            "url": display_url(node.base_url(caller.organization.slug), row["id"], secret),
            "createdAt": iso(row["created_at"])}


@procedures.implement(proto.GET)
async def get(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    # A display reads itself only: any other id does not exist for it.
    row = None if caller.credential is CredentialKind.DISPLAY and data.id != caller.credential_id \
        else await repo.get(node.pool, caller.org_id, data.id)
    if row is None:
        raise NotFound("display not found")
    return display_view(node, row)


@procedures.implement(proto.LIST)
async def list_displays(node: Node, caller: Caller, data: proto.ListInput) -> dict[str, Any]:
    if data.boardId is not None:
        await require_board_access(node, caller, data.boardId)
    rows = await repo.list_of(node.pool, caller.org_id, data.boardId)
    return {"displays": [display_view(node, row) for row in rows]}


@procedures.implement(proto.REVOKE)
async def revoke(node: Node, caller: Caller, data: proto.IdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        row = await repo.revoke(uow.conn, caller.org_id, data.id, uow.now)
        if row is not None:
            await uow.activity("display", row["id"], "display.revoked", _audit(row))
        elif await repo.get(uow.conn, caller.org_id, data.id) is None:
            raise NotFound("display not found")
        # revoking twice answers as the first time did: a retried revoke is not an error
    node.invalidate(CredentialRevoked(data.id))  # on every node; its sockets are told and closed
    return {"success": True, "id": data.id}


async def revoke_member_displays(uow: UnitOfWork, user_id: str) -> list[str]:
    """In the transaction that ends a membership: the displays the member created in the organization are revoked
    (each written to the trail), as they acted as the member. The ids returned go to
    `oauth_grants.revoked_on_every_node` once committed: their screens go dark on every node."""
    rows = await repo.revoke_creator(uow.conn, uow.org_id, user_id, uow.now)
    for row in rows:
        await uow.activity("display", row["id"], "display.revoked", {**_audit(row), "reason": "member.removed"})
    return [row["id"] for row in rows]
