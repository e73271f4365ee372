"""API keys: create, list, revoke, rotate and delete, each written to the activity trail.

A key is `svc_sk_live_` + 40 hex characters (20 random bytes); only its bcrypt hash and the first 8 hex
characters (the lookup prefix identity verification searches by) are stored. Revoke, rotate and delete
drop the key's cached verification at once, so the next request with it is refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from actors.identity.callers import API_KEY_PREFIX, LOOKUP_LENGTH
from actors.identity.last_used import last_used_at
from actors.identity.passwords import hash_secret
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import credentials as proto
from protocol.caller import Caller
from protocol.errors import Conflict, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.registry import EmptyInput
from storage import credentials as repo

procedures = Implementations()

KIND = "api_key"
# 20 random bytes: 40 hex characters.
SECRET_BYTES = 20
# A credential's insert found its maker no longer an active member (removed while the request ran).
NOT_A_MEMBER = "you are no longer a member of this organization"


async def mint_secret(scheme: str, rounds: int) -> tuple[str, str, str]:
    """A new credential secret: (full secret, clear lookup prefix, bcrypt hash)."""
    random_hex = secrets.token_hex(SECRET_BYTES)
    secret = scheme + random_hex
    return secret, random_hex[:LOOKUP_LENGTH], await hash_secret(secret, rounds)


def status_of(row: Mapping[str, Any], now: datetime) -> str:
    """`revoked` and `active` are stored; `expired` is an active credential past its expiry."""
    if row["status"] == "active" and row["expires_at"] is not None and row["expires_at"] <= now:
        return "expired"
    return str(row["status"])


def credential_view(node: Node, row: Mapping[str, Any]) -> dict[str, Any]:
    """An API key or personal token as listed: never the secret or its hash."""
    return {"id": row["id"], "name": row["name"], "prefix": row["prefix"], "scopes": list(row["scopes"]),
            "status": status_of(row, node.clock.now()), "lastUsedAt": iso(last_used_at(node, row)),
            "expiresAt": iso(row["expires_at"]), "createdAt": iso(row["created_at"])}


def _audit(row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """What the activity trail keeps of a key: never the secret or its hash."""
    return {"name": row["name"], "prefix": row["prefix"], "scopes": list(row["scopes"]), **extra}


def future_expiry(moment: datetime | None, now: datetime) -> datetime | None:
    """A requested expiry (UTC when it names no offset); ValidationFailed naming `expiresAt` unless in the future."""
    if moment is None:
        return None
    if moment.tzinfo is None:  # a time without offset is read as UTC, as everywhere on the wire
        moment = moment.replace(tzinfo=now.tzinfo)
    try:  # stored in UTC: 9999-12-31T23:59-01:00 is in year 10000 there, which no datetime holds
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise ValidationFailed("expiresAt is out of range",
                               details=[FieldError("expiresAt", "must be before the year 10000 in UTC")]) from None
    if moment <= now:
        raise ValidationFailed("expiresAt must be in the future",
                               details=[FieldError("expiresAt", "must be in the future")])
    return moment


@procedures.implement(proto.CREATE_API_KEY)
async def create(node: Node, caller: Caller, data: proto.CreateApiKeyInput) -> dict[str, Any]:
    expires_at = future_expiry(data.expiresAt, node.clock.now())
    secret, prefix, secret_hash = await mint_secret(API_KEY_PREFIX, node.settings.bcrypt_rounds)
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.insert(conn, credential_id=new_id(Prefix.API_KEY), kind=KIND, org_id=caller.org_id,
                                user_id=caller.uid, name=data.name, prefix=prefix, secret_hash=secret_hash,
                                scopes=list(dict.fromkeys(data.scopes)), expires_at=expires_at)
        if row is None:
            raise Forbidden(NOT_A_MEMBER)
        await uow.activity("api_key", row["id"], "api_key.created",
                           _audit(row))
    return {"key": secret, "apiKey": credential_view(node, row)}


@procedures.implement(proto.LIST_API_KEYS)
async def list_keys(node: Node, caller: Caller, data: EmptyInput) -> list[dict[str, Any]]:
    async with node.write(caller) as uow:
        conn = uow.conn
        rows = await repo.list_of_kind(conn, caller.org_id, KIND)
        # A read of the key list is itself audited; it concerns the organization's key set.
        await uow.activity("api_key", caller.org_id, "api_key.listed",
                           {"count": len(rows)})
    return [credential_view(node, row) for row in rows]


@procedures.implement(proto.REVOKE_API_KEY)
async def revoke(node: Node, caller: Caller, data: proto.ApiKeyIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.revoke(conn, caller.org_id, KIND, data.id, node.clock.now())
        if row is not None:
            await uow.activity("api_key", row["id"], "api_key.revoked",
                               _audit(row))
        else:  # revoking twice answers the revoked key again: a retried revoke is not an error
            row = await repo.get(conn, caller.org_id, KIND, data.id)
            if row is None:
                raise NotFound("API key not found")
    node.invalidate(CredentialRevoked(data.id))  # on every node; its sockets are checked again
    return credential_view(node, row)


async def revoke_member_keys(uow: UnitOfWork, user_id: str) -> list[str]:
    """In the transaction that ends a membership: the member's API keys in the organization are revoked (each
    written to the trail as a revoke is), so joining again later brings none back. The ids returned go to
    `oauth_grants.revoked_on_every_node` once committed."""
    rows = await repo.revoke_member(uow.conn, uow.org_id, KIND, user_id, uow.now)
    for row in rows:
        await uow.activity("api_key", row["id"], "api_key.revoked", _audit(row, reason="member.removed"))
    return [row["id"] for row in rows]


@procedures.implement(proto.ROTATE_API_KEY)
async def rotate(node: Node, caller: Caller, data: proto.ApiKeyIdInput) -> dict[str, Any]:
    now = node.clock.now()
    # Hashed before the transaction: bcrypt takes tens of milliseconds and must not hold row locks.
    secret, prefix, secret_hash = await mint_secret(API_KEY_PREFIX, node.settings.bcrypt_rounds)
    async with node.write(caller) as uow:
        conn = uow.conn
        old = await repo.revoke(conn, caller.org_id, KIND, data.id, now)
        if old is None:
            if await repo.get(conn, caller.org_id, KIND, data.id) is None:
                raise NotFound("API key not found")
            raise Conflict("a revoked API key cannot be rotated")
        if old["expires_at"] is not None and old["expires_at"] <= now:
            raise Conflict("an expired API key cannot be rotated; create a new one")
        new = await repo.insert(conn, credential_id=new_id(Prefix.API_KEY), kind=KIND, org_id=caller.org_id,
                                user_id=caller.uid, name=old["name"], prefix=prefix, secret_hash=secret_hash,
                                scopes=list(old["scopes"]), expires_at=old["expires_at"])
        if new is None:
            raise Forbidden(NOT_A_MEMBER)
        await uow.activity("api_key", old["id"], "api_key.rotated",
                           _audit(old, replacedBy=new["id"]))
        await uow.activity("api_key", new["id"], "api_key.created",
                           _audit(new, rotatedFrom=old["id"]))
    node.invalidate(CredentialRevoked(data.id))  # on every node; its sockets are checked again
    return {"key": secret, "apiKey": credential_view(node, new), "revokedKeyId": old["id"]}


@procedures.implement(proto.DELETE_API_KEY)
async def delete(node: Node, caller: Caller, data: proto.ApiKeyIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.delete(conn, caller.org_id, KIND, data.id)
        if row is None:
            raise NotFound("API key not found")
        await uow.activity("api_key", row["id"], "api_key.deleted",
                           _audit(row))
    node.invalidate(CredentialRevoked(data.id))  # on every node; its sockets are checked again
    return {"success": True, "id": data.id}
