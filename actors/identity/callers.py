"""Who is calling: the organization named by the host, and the user behind a session cookie or a bearer
credential (API key, personal access token, assistant key, OAuth token or display link), with the user's role in
that organization. A display link acts as the member who created it, on its board only (docs/displays.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from actors.identity import sso
from actors.identity.accounts import session_digest
from actors.identity.passwords import verify_secret
from actors.kernel.credential_cache import VerifiedCredential, secret_digest
from actors.kernel.invalidation import OrganizationChanged
from actors.kernel.membership_cache import member_role
from actors.kernel.node import Node
from protocol.caller import Caller, CredentialKind, Organization
from protocol.errors import NotFound, Unauthorized
from protocol.registry import Role
from storage import accounts as repo
from storage import credentials as credential_repo
from storage import displays as display_repo
from storage import mcp_keys as mcp_key_repo
from storage import oauth as oauth_repo

API_KEY_PREFIX = "svc_sk_live_"
PERSONAL_TOKEN_PREFIX = "svc_pat_"
MCP_KEY_PREFIX = "svc_mcp_live_"
OAUTH_TOKEN_PREFIX = "svc_oat_"  # an OAuth access token (actors/identity/oauth_grants.py), found by its digest
DISPLAY_PREFIX = "svc_dsp_"  # a display link's secret (actors/identity/displays.py)
# Clear lookup prefix: the first 8 hex characters after the scheme prefix.
LOOKUP_LENGTH = 8
# A display's last-seen time is noted at most this often per node (written by the last-used flusher).
DISPLAY_SEEN_SECONDS = 60.0


_KINDS = {"api_key": CredentialKind.API_KEY, "personal_token": CredentialKind.PERSONAL_TOKEN,
          "mcp_key": CredentialKind.MCP_KEY, "oauth_token": CredentialKind.OAUTH_TOKEN,
          "display": CredentialKind.DISPLAY}


def bearer_kind(token: str) -> tuple[str, str] | None:
    """(credential kind, lookup prefix) of a bearer token, or None when it has no known scheme."""
    for scheme, kind in ((API_KEY_PREFIX, "api_key"), (PERSONAL_TOKEN_PREFIX, "personal_token"),
                         (MCP_KEY_PREFIX, "mcp_key"), (OAUTH_TOKEN_PREFIX, "oauth_token"),
                         (DISPLAY_PREFIX, "display")):
        if token.startswith(scheme) and len(token) > len(scheme) + LOOKUP_LENGTH:
            return kind, token[len(scheme):len(scheme) + LOOKUP_LENGTH]
    return None


async def organization_for_slug(node: Node, slug: str) -> Organization:
    key = slug.lower()
    cached, org = node.organizations.peek(key)  # every request asks: no loader made when it is cached
    if not cached:
        async def load() -> Organization | None:
            row = await repo.organization_by_slug(node.pool, key)
            return Organization(row["id"], row["slug"], row["name"], row["plan"]) if row else None

        org = await node.organizations.get(key, load)
    if org is None:
        raise NotFound(f"organization {slug} not found")
    return org


def forget_organization(node: Node, slug: str) -> None:
    """Drop a cached organization after it changed on this node."""
    node.invalidate(OrganizationChanged(slug))


async def _verify_cold(node: Node, token: str, digest: str, kind: str, prefix: str) -> VerifiedCredential | None:
    if kind == "oauth_token":  # 32 random bytes: its SHA-256 digest is the lookup and the proof, no bcrypt
        found = await oauth_repo.active_access_token(node.pool, digest)
        if found is None:
            return None
        verified = VerifiedCredential(found["id"], kind, found["organization_id"], found["user_id"],
                                      tuple(found["scopes"]), found["expires_at"])
        node.credentials.put(digest, verified)
        return verified
    if kind == "mcp_key":  # its own table; its allowed tools and resources ride as the credential's scopes
        rows = [{**row, "kind": kind, "scopes": [*row["allowed_tools"], *row["allowed_resources"]]}
                for row in await mcp_key_repo.active_by_prefix(node.pool, prefix)]
    elif kind == "display":  # acts as the member who made it, limited to its board
        rows = [{**row, "kind": kind, "user_id": row["created_by"], "scopes": (), "expires_at": None}
                for row in await display_repo.active_by_prefix(node.pool, prefix)]
    else:
        rows = [dict(row) for row in await credential_repo.active_by_prefix(node.pool, kind, prefix)]
    for row in rows:
        secret_hash = row["secret_hash"]
        if node.credentials.proven(digest, secret_hash) or await verify_secret(token, secret_hash):
            node.credentials.prove(digest, secret_hash)
            credential = VerifiedCredential(row["id"], row["kind"], row["organization_id"], row["user_id"],
                                            tuple(row["scopes"]), row["expires_at"], row.get("board_id"))
            node.credentials.put(digest, credential)
            return credential
    return None


def _usable(node: Node, credential: VerifiedCredential) -> VerifiedCredential:
    """A verified credential, unless it expired; its use is noted (last used)."""
    now = node.clock.now()
    if credential.expires_at is not None and credential.expires_at <= now:
        raise Unauthorized("credential expired")
    if credential.board_id is not None:  # a display: last seen, noted once a minute
        node.credentials.touch_every(credential.id, now, DISPLAY_SEEN_SECONDS)
    else:
        node.credentials.touch(credential.id, now)
    return credential


async def verify_bearer(node: Node, token: str, digest: str) -> VerifiedCredential:
    """The credential `token` (whose `secret_digest` is `digest`) names, verified."""
    parsed = bearer_kind(token)
    if parsed is None:
        raise Unauthorized("invalid credential")
    credential = node.credentials.get(digest)
    if credential is None:
        pending = node.verifying.get(digest)
        if pending is None:
            pending = node.verifying[digest] = asyncio.get_running_loop().create_future()
            try:
                verified = await _verify_cold(node, token, digest, *parsed)
            except asyncio.CancelledError:
                pending.cancel()
                raise
            except Exception as error:
                pending.set_exception(error)
                pending.exception()  # retrieved: the requests waiting on it re-raise it, this one raises below
                raise
            else:
                pending.set_result(verified)
            finally:
                del node.verifying[digest]
        credential = await asyncio.shield(pending)
    if credential is None:
        raise Unauthorized("invalid credential")
    return _usable(node, credential)


async def resolve_caller(node: Node, *, request_id: str, org_slug: str | None, bearer: str | None,
                         session_token: str | None, mcp: bool = False,
                         before_lookup: Callable[[], Awaitable[None]] | None = None) -> Caller:
    """An invalid credential is refused (401) whoever else shares the client's address: keys, tokens and
    sessions carry 160+ random bits, so they are not throttled per address (docs/security.md "One address,
    a whole site"); web/rate_limit.py counts a refused one against its own bucket. An assistant (MCP) key is
    refused unless `mcp` (the request is to /mcp, web/mcp.py): elsewhere, an HTTP route or the live socket,
    it would reach every procedure or board its member may, whatever the key allows. `before_lookup` runs
    before a bearer this node has not verified yet is looked up and checked (web/rate_limit.py
    `check_refusals`), never for one in the cache."""
    org = await organization_for_slug(node, org_slug) if org_slug else None
    if bearer is not None:
        digest = secret_digest(bearer)
        cached = node.credentials.get(digest)  # the hot path: a digest and a dict lookup
        if cached is not None:
            credential = _usable(node, cached)
        else:
            if before_lookup is not None:
                await before_lookup()
            credential = await verify_bearer(node, bearer, digest)
        if org is None:
            row = await repo.organization_by_id(node.pool, credential.organization_id)
            assert row is not None
            org = await organization_for_slug(node, row["slug"])
        elif credential.organization_id != org.id:
            raise Unauthorized("credential is not valid for this organization")
        role = await member_role(node, org.id, credential.user_id)
        if role is None:
            raise Unauthorized("credential owner is no longer a member")
        kind = _KINDS[credential.kind]
        if kind is CredentialKind.MCP_KEY and not mcp:
            raise Unauthorized("an assistant (MCP) key is valid on /mcp only")
        return Caller(request_id=request_id, organization=org, user_id=credential.user_id,
                      role=Role.parse(role), credential=kind, credential_id=credential.id,
                      scopes=credential.scopes, board_id=credential.board_id)
    if session_token:
        digest = session_digest(session_token)
        user = node.credentials.get_session(digest)
        if user is None:  # an unknown or expired session token is treated as none
            row = await repo.session_user(node.pool, digest, node.clock.now())
            if row is not None:
                user = (row["id"], row["email"], row["organization_id"])
                node.credentials.put_session(digest, *user)
        if user is not None and user[2] is not None and (org is None or org.id != user[2]):
            user = None  # a single sign-on's session, good on its organization's host only
        if user is not None:
            role = await member_role(node, org.id, user[0]) if org else None
            if org is not None and user[2] is None and role not in (None, "owner") and await sso.enforced(node, org.id):
                # A password session (opened here before enforcement, or on another host) does not open an
                # organization that signs in through its provider; the owner's does (break-glass).
                return Caller(request_id=request_id, organization=org)
            return Caller(request_id=request_id, organization=org, user_id=user[0], user_email=user[1],
                          role=Role.parse(role) if role else None, credential=CredentialKind.SESSION,
                          credential_id=f"user:{user[0]}", single_sign_on=user[2] is not None)
    return Caller(request_id=request_id, organization=org)
