"""OAuth 2.0 applications (docs/sign-in.md): register, list, update, rotate the secret and delete,
each written to the activity trail.

An app belongs to the organization that registered it; its client id is public, its client secret (confidential
apps only) is a random 32-byte value shown once and stored as its SHA-256 digest. Deleting an app revokes every
token it holds on every node.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from actors.kernel.credential_cache import secret_digest
from actors.kernel.handlers import Implementations
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from protocol import oauth as proto
from protocol.caller import Caller
from protocol.errors import FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, iso, new_id
from protocol.registry import EmptyInput
from storage import oauth as repo

procedures = Implementations()

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1"})
# A DNS name or an IPv4 address: what may follow `https://` in a redirect URI (and in the consent page's policy).
HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")


def new_client_secret() -> str:
    return secrets.token_urlsafe(32)


def check_redirect_uris(uris: list[str]) -> list[str]:
    """Absolute URIs without a fragment, https (or http to a loopback host); duplicates dropped."""
    for index, uri in enumerate(uris):
        try:
            parts = urlsplit(uri)
            host = parts.hostname
            parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
        except ValueError:
            parts, host = None, None
        problem = None
        if parts is None or not parts.scheme or not host:
            problem = "must be an absolute URI"
        elif parts.scheme not in ("https", "http") or (parts.scheme == "http" and host not in LOOPBACK_HOSTS):
            problem = "must use https (http only for localhost or 127.0.0.1)"
        elif parts.username is not None or not HOST.fullmatch(host):
            problem = "must name a plain host (a DNS name or IPv4 address, no user information)"
        elif "#" in uri:
            problem = "must not have a fragment"
        elif any(c.isspace() for c in uri):
            problem = "must not contain spaces"
        if problem is not None:
            raise ValidationFailed(f"redirect URI {problem}",
                                   details=[FieldError(f"redirectUris[{index}]", problem)])
    return list(dict.fromkeys(uris))


def app_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """An app as listed: never its secret or the secret's digest."""
    return {"id": row["id"], "name": row["name"], "clientId": row["client_id"],
            "redirectUris": list(row["redirect_uris"]), "scopes": list(row["scopes"]), "public": row["public"],
            "createdAt": iso(row["created_at"]), "updatedAt": iso(row["updated_at"])}


def _audit(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": row["name"], "clientId": row["client_id"], "redirectUris": list(row["redirect_uris"]),
            "scopes": list(row["scopes"]), "public": row["public"]}


@procedures.implement(proto.LIST_OAUTH_APPS)
async def list_apps(node: Node, caller: Caller, data: EmptyInput) -> list[dict[str, Any]]:
    async with node.pool.acquire() as conn:
        return [app_view(row) for row in await repo.list_apps(conn, caller.org_id)]


@procedures.implement(proto.CREATE_OAUTH_APP)
async def create(node: Node, caller: Caller, data: proto.CreateOAuthAppInput) -> dict[str, Any]:
    uris = check_redirect_uris(data.redirectUris)
    secret = None if data.public else new_client_secret()
    async with node.write(caller) as uow:
        row = await repo.insert_app(uow.conn, app_id=new_id(Prefix.OAUTH_APP), org_id=caller.org_id,
                                    client_id=new_id(Prefix.OAUTH_CLIENT),
                                    secret_digest=secret and secret_digest(secret), name=data.name, redirect_uris=uris,
                                    scopes=list(dict.fromkeys(data.scopes)), public=data.public, created_by=caller.uid,
                                    now=node.clock.now())
        await uow.activity("oauth_app", row["id"], "oauth_app.created", _audit(row))
    view = app_view(row)
    return view if secret is None else {**view, "clientSecret": secret}


@procedures.implement(proto.UPDATE_OAUTH_APP)
async def update(node: Node, caller: Caller, data: proto.UpdateOAuthAppInput) -> dict[str, Any]:
    uris = check_redirect_uris(data.redirectUris) if data.redirectUris is not None else None
    scopes = list(dict.fromkeys(data.scopes)) if data.scopes is not None else None
    async with node.write(caller) as uow:
        row = await repo.update_app(uow.conn, caller.org_id, data.id, name=data.name, redirect_uris=uris,
                                    scopes=scopes, now=node.clock.now())
        if row is None:
            raise NotFound("OAuth application not found")
        # Narrowing applies at once to what users already granted (a grant left with nothing is revoked).
        changed = await repo.narrow_grants(uow.conn, row["id"], scopes, node.clock.now()) if scopes else []
        await uow.activity("oauth_app", row["id"], "oauth_app.updated", _audit(row))
    for token_id in changed:  # on every node: read again with its narrowed scopes, or refused
        node.invalidate(CredentialRevoked(token_id))
    return app_view(row)


@procedures.implement(proto.ROTATE_OAUTH_APP_SECRET)
async def rotate_secret(node: Node, caller: Caller, data: proto.OAuthAppIdInput) -> dict[str, Any]:
    secret = new_client_secret()
    async with node.write(caller) as uow:
        row = await repo.set_secret(uow.conn, caller.org_id, data.id, secret_digest(secret), node.clock.now())
        if row is None:
            if await repo.get_app(uow.conn, caller.org_id, data.id) is not None:
                raise ValidationFailed("a public application has no client secret",
                                       details=[FieldError("id", "public application")])
            raise NotFound("OAuth application not found")
        await uow.activity("oauth_app", row["id"], "oauth_app.secret_rotated", _audit(row))
    return {**app_view(row), "clientSecret": secret}


@procedures.implement(proto.DELETE_OAUTH_APP)
async def delete(node: Node, caller: Caller, data: proto.OAuthAppIdInput) -> dict[str, Any]:
    async with node.write(caller) as uow:
        row = await repo.get_app(uow.conn, caller.org_id, data.id, lock=True)
        if row is None:
            raise NotFound("OAuth application not found")
        token_ids = await repo.delete_app(uow.conn, caller.org_id, data.id)
        await uow.activity("oauth_app", row["id"], "oauth_app.deleted", _audit(row))
    for token_id in token_ids:  # on every node
        node.invalidate(CredentialRevoked(token_id))
    return {"success": True}
