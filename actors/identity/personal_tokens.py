"""Personal access tokens: `svc_pat_` + 40 hex characters, stored like API keys
(lookup prefix and bcrypt hash, kind `personal_token`), bound to the user and organization that made them.

A token acts as its user with at most the token scopes it was given. Each user manages only their own
tokens; another user's token id is a 404, as if it did not exist.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from actors.identity.api_keys import NOT_A_MEMBER, credential_view, mint_secret
from actors.identity.callers import PERSONAL_TOKEN_PREFIX
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from actors.kernel.write import UnitOfWork
from protocol import credentials as proto
from protocol.caller import Caller
from protocol.errors import FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.registry import EmptyInput
from storage import credentials as repo

procedures = Implementations()

KIND = "personal_token"
# Lifetime when `expiresIn` is omitted, and the longest allowed: a token always expires, so a forgotten
# script credential does not live for ever.
DEFAULT_DAYS = 90
MAX_DAYS = 365


def _lifetime(expires_in: str | None) -> timedelta:
    days = DEFAULT_DAYS if expires_in is None else int(expires_in[:-1])
    if days > MAX_DAYS:
        raise ValidationFailed(f"expiresIn may be at most {MAX_DAYS}d",
                               details=[FieldError("expiresIn", f"at most {MAX_DAYS}d")])
    return timedelta(days=days)


@procedures.implement(proto.CREATE_TOKEN)
async def create(node: Node, caller: Caller, data: proto.CreateTokenInput) -> dict[str, Any]:
    expires_at = node.clock.now() + _lifetime(data.expiresIn)
    secret, prefix, secret_hash = await mint_secret(PERSONAL_TOKEN_PREFIX, node.settings.bcrypt_rounds)
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.insert(conn, credential_id=new_id(Prefix.PERSONAL_TOKEN), kind=KIND, org_id=caller.org_id,
                                user_id=caller.uid, name=data.name, prefix=prefix, secret_hash=secret_hash,
                                scopes=list(dict.fromkeys(data.scopes)), expires_at=expires_at)
        if row is None:
            raise Forbidden(NOT_A_MEMBER)
        await uow.activity("personal_token", row["id"],
                           "personal_token.created",
                           {"name": row["name"], "prefix": prefix, "scopes": list(row["scopes"])})
    return {"id": row["id"], "name": row["name"], "token": secret, "scopes": list(row["scopes"]),
            "expiresAt": iso(row["expires_at"]), "createdAt": iso(row["created_at"])}


@procedures.implement(proto.LIST_TOKENS)
async def list_tokens(node: Node, caller: Caller, data: EmptyInput) -> list[dict[str, Any]]:
    rows = await repo.list_of_kind(node.pool, caller.org_id, KIND, user_id=caller.uid)
    return [credential_view(node, row) for row in rows]


@procedures.implement(proto.REVOKE_TOKEN)
async def revoke(node: Node, caller: Caller, data: proto.RevokeTokenInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        conn = uow.conn
        row = await repo.revoke(conn, caller.org_id, KIND, data.tokenId, node.clock.now(), user_id=caller.uid)
        if row is not None:
            await uow.activity("personal_token", row["id"],
                               "personal_token.revoked", {"name": row["name"], "prefix": row["prefix"]})
        else:  # already revoked: answered again, as for API keys
            row = await repo.get(conn, caller.org_id, KIND, data.tokenId, user_id=caller.uid)
            if row is None:
                raise NotFound("token not found")
    node.invalidate(CredentialRevoked(data.tokenId))  # on every node; its sockets are checked again
    return credential_view(node, row)


async def revoke_member_tokens(uow: UnitOfWork, user_id: str) -> list[str]:
    """In the transaction that ends a membership: the member's tokens made in the organization (a token works
    there only) are revoked, each written to the trail; the ids go to `oauth_grants.revoked_on_every_node`."""
    rows = await repo.revoke_member(uow.conn, uow.org_id, KIND, user_id, uow.now)
    for row in rows:
        await uow.activity("personal_token", row["id"], "personal_token.revoked",
                           {"name": row["name"], "prefix": row["prefix"], "reason": "member.removed"})
    return [row["id"] for row in rows]
