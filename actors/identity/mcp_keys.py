"""Assistant (MCP) keys (docs/assistants.md): create, list and revoke, each written to the activity trail.

A key is `svc_mcp_live_` + 40 hex characters, stored as API keys are (bcrypt hash plus the first 8 hex
characters as lookup prefix, verification cached per node). It acts as the member who made it, limited to its
allowed tools (registry procedures; none listed: the read procedures, unless resources are listed, then none)
and resources (boards and KPIs; none listed: every one the member may read). The two lists are independent: a
tool reaches whatever its member may, whichever resources are listed. Revoking drops its cached verification on
every node.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actors.identity.api_keys import NOT_A_MEMBER, future_expiry, mint_secret, status_of
from actors.identity.last_used import last_used_at
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import mcp_keys as proto
from protocol.caller import Caller
from protocol.errors import FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.registry import REGISTRY, Access, EmptyInput, Procedure, Role
from storage import mcp_keys as repo

procedures = Implementations()

RESOURCE_SCHEME = "obeya://"


def tool_name(procedure: Procedure) -> str:
    """A procedure's MCP tool name: `items.setValue` is `items_setValue`."""
    return procedure.name.replace(".", "_")


def may_be_tool(procedure: Procedure) -> bool:
    """Whether a key may ever call this procedure: never credential management or anonymous procedures."""
    return procedure.access is not Access.PUBLIC and not procedure.session_only


def tools_of(allowed: tuple[str, ...], resources: tuple[str, ...] = ()) -> dict[str, Procedure]:
    """The tools a key with these allowed procedure names and resources may call, by tool name. The read
    procedures are the default of a key that names neither: one that names only resources is confined to them,
    and a read tool would reach every board its member may read."""
    if not allowed and resources:
        return {}
    chosen = [p for p in REGISTRY.values() if may_be_tool(p) and (p.name in allowed if allowed else p.is_query)]
    return {tool_name(p): p for p in chosen}


def split_grants(scopes: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(allowed tools, allowed resources) of a verified MCP key, whose grants ride in the caller's scopes."""
    return (tuple(s for s in scopes if not s.startswith(RESOURCE_SCHEME)),
            tuple(s for s in scopes if s.startswith(RESOURCE_SCHEME)))


def _procedure_names(names: list[str]) -> list[str]:
    by_tool = {tool_name(p): p.name for p in REGISTRY.values() if may_be_tool(p)}
    resolved: list[str] = []
    for index, name in enumerate(names):
        dotted = by_tool.get(name) or by_tool.get(name.replace(".", "_"))
        if dotted is None:
            raise ValidationFailed(f"{name} is not a procedure an assistant may call",
                                   details=[FieldError(f"allowedTools[{index}]", "unknown or not allowed tool")])
        resolved.append(dotted)
    return list(dict.fromkeys(resolved))


def key_view(node: Node, row: Mapping[str, Any]) -> dict[str, Any]:
    """A key as listed: never the secret or its hash."""
    return {"id": row["id"], "name": row["name"], "prefix": row["prefix"],
            "allowedTools": list(row["allowed_tools"]), "allowedResources": list(row["allowed_resources"]),
            "status": status_of(row, node.clock.now()), "lastUsedAt": iso(last_used_at(node, row)),
            "expiresAt": iso(row["expires_at"]), "createdAt": iso(row["created_at"]),
            "revokedAt": iso(row["revoked_at"])}


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": row["name"], "prefix": row["prefix"], "allowedTools": list(row["allowed_tools"]),
            "allowedResources": list(row["allowed_resources"])}


@procedures.implement(proto.CREATE_MCP_KEY)
async def create(node: Node, caller: Caller, data: proto.CreateMcpKeyInput) -> dict[str, Any]:
    tools = _procedure_names(data.allowedTools)
    expires_at = future_expiry(data.expiresAt, node.clock.now())
    secret, prefix, secret_hash = await mint_secret(proto.MCP_KEY_PREFIX, node.settings.bcrypt_rounds)
    async with node.write(caller) as uow:
        row = await repo.insert(uow.conn, key_id=new_id(Prefix.MCP_KEY), org_id=caller.org_id, user_id=caller.uid,
                                name=data.name, prefix=prefix, secret_hash=secret_hash, allowed_tools=tools,
                                allowed_resources=list(dict.fromkeys(data.allowedResources)), expires_at=expires_at)
        if row is None:
            raise Forbidden(NOT_A_MEMBER)
        await uow.activity("mcp_key", row["id"], "mcp_key.created", _audit(row))
    return {"key": secret, "mcpKey": key_view(node, row)}


@procedures.implement(proto.LIST_MCP_KEYS)
async def list_keys(node: Node, caller: Caller, data: EmptyInput) -> list[dict[str, Any]]:
    async with node.pool.acquire() as conn:
        rows = await repo.list_for_user(conn, caller.org_id, caller.uid)
    return [key_view(node, row) for row in rows]


@procedures.implement(proto.REVOKE_MCP_KEY)
async def revoke(node: Node, caller: Caller, data: proto.McpKeyIdInput) -> dict[str, Any]:
    owner = None if caller.role is not None and caller.role >= Role.ADMIN else caller.uid
    async with node.write(caller) as uow:
        row = await repo.revoke(uow.conn, caller.org_id, data.id, node.clock.now(), owner)
        if row is not None:
            await uow.activity("mcp_key", row["id"], "mcp_key.revoked", _audit(row))
        else:  # revoking twice answers the revoked key again: a retried revoke is not an error
            row = await repo.get(uow.conn, caller.org_id, data.id, owner)
            if row is None:
                raise NotFound("MCP key not found")
    node.invalidate(CredentialRevoked(data.id))  # on every node
    return key_view(node, row)


async def revoke_member_keys(uow: UnitOfWork, user_id: str) -> list[str]:
    """In the transaction that ends a membership: the member's keys in the organization are revoked, each written
    to the trail; the ids go to `oauth_grants.revoked_on_every_node` once committed."""
    rows = await repo.revoke_member(uow.conn, uow.org_id, user_id, uow.now)
    for row in rows:
        await uow.activity("mcp_key", row["id"], "mcp_key.revoked", {**_audit(row), "reason": "member.removed"})
    return [row["id"] for row in rows]
