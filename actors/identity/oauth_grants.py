"""OAuth 2.0 grants (RFC 6749 4.1, 6; RFC 7636; RFC 7009): client authentication, authorization codes, the
access and refresh tokens of a grant, refresh rotation with reuse detection, and revocation.

A grant is born when a user approves an app: one authorization code (single-use, 60 s, bound to the client, the
redirect URI, the user, the organization, the scopes and the PKCE challenge). Exchanging it issues an access
token (`svc_oat_`, 1 hour) and a refresh token (`svc_ort_`); each refresh spends the refresh token and issues a
new pair. A spent refresh token or a used code presented again means one of them leaked: the whole grant is
revoked, on every node at once. Codes, tokens and client secrets are random 32-byte values stored as their
SHA-256 digests (high entropy: a slow hash would add nothing). Errors are authlib's RFC 6749 error classes, which
the routes render (web/routes_oauth.py).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from authlib.oauth2.rfc6749.errors import (
    InvalidClientError,
    InvalidGrantError,
    InvalidRequestError,
    InvalidScopeError,
    UnauthorizedClientError,
)
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from actors.kernel.credential_cache import secret_digest
from actors.kernel.invalidation import CredentialRevoked
from actors.kernel.node import Node
from protocol.ids import Prefix, new_id
from protocol.oauth import ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX
from storage import accounts as account_repo
from storage import oauth as repo

CODE_SECONDS = 60
ACCESS_SECONDS = 3600
REFRESH_DAYS = 90
# RFC 7636 4.1 / 4.2: 43-128 characters of the unreserved set.
PKCE_VALUE = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")


def check_challenge(challenge: str) -> bool:
    return PKCE_VALUE.fullmatch(challenge) is not None


class ClientRefused(InvalidClientError):  # type: ignore[misc]  # authlib ships no types
    """RFC 6749 5.2: a refused client authentication is 401; the `WWW-Authenticate: Basic` challenge is sent only
    to a client that tried Basic (a client that posted its credentials in the form was not using HTTP auth)."""

    status_code = 401

    def __init__(self, description: str, *, basic: bool) -> None:
        super().__init__(description=description)
        self.basic = basic

    def get_headers(self) -> list[tuple[str, str]]:
        headers: list[tuple[str, str]] = super().get_headers()
        return headers if self.basic else [(k, v) for k, v in headers if k.lower() != "www-authenticate"]


async def authenticate_client(node: Node, client_id: str | None, client_secret: str | None,
                              basic: bool) -> Mapping[str, Any]:
    """The app a token or revocation request comes from. A confidential app must present its secret (Basic or
    form); a public app presents none. A refusal is 401, with `WWW-Authenticate` when Basic was used."""
    app: Mapping[str, Any] | None = await repo.app_by_client_id(node.pool, client_id) if client_id else None
    if app is None:
        raise ClientRefused("unknown client", basic=basic)
    stored = app["secret_digest"]
    if stored is None:
        if client_secret:
            raise ClientRefused("a public client has no secret", basic=basic)
    elif not client_secret or not hmac.compare_digest(secret_digest(client_secret), stored):
        raise ClientRefused("client authentication failed", basic=basic)
    return app


async def app_for_client(node: Node, client_id: str) -> Mapping[str, Any] | None:
    """The app an authorize request names by its client id."""
    app: Mapping[str, Any] | None = await repo.app_by_client_id(node.pool, client_id)
    return app


async def organizations_of(node: Node, user_id: str) -> list[Mapping[str, Any]]:
    """The organizations a user may let an app act in: those they are an active member of."""
    async with node.pool.acquire() as conn:
        return list(await account_repo.memberships_of(conn, user_id))


def revoked_on_every_node(node: Node, token_ids: list[str]) -> None:
    """After the revocation committed: every node forgets the tokens (its cache and sockets check them again)."""
    for token_id in token_ids:
        node.invalidate(CredentialRevoked(token_id))


async def revoke_member_grants(conn: Any, org_id: str, user_id: str, now: datetime) -> list[str]:
    """In the transaction that ends a membership: every grant the member gave in the organization is revoked,
    so that joining again later brings none of its tokens back. The ids returned go to `revoked_on_every_node`
    once committed."""
    return await repo.revoke_member_grants(conn, org_id, user_id, now)


async def issue_code(node: Node, *, app: Mapping[str, Any], org_id: str, user_id: str, scopes: list[str],
                     redirect_uri: str, redirect_uri_sent: bool, code_challenge: str | None) -> str | None:
    """A new authorization code, or None when the user is no longer an active member of `org_id` (checked in the
    insert itself: a removal committing meanwhile would otherwise miss this grant and leave it for a return)."""
    code = secrets.token_urlsafe(32)
    now = node.clock.now()
    async with node.pool.acquire() as conn:
        issued = await repo.insert_grant(conn, grant_id=new_id(Prefix.OAUTH_GRANT), app_id=app["id"], org_id=org_id,
                                         user_id=user_id, scopes=scopes, code_digest=secret_digest(code),
                                         redirect_uri=redirect_uri, redirect_uri_sent=redirect_uri_sent,
                                         code_challenge=code_challenge,
                                         expires_at=now + timedelta(seconds=CODE_SECONDS), now=now)
    return code if issued else None


async def _issue_pair(conn: Any, node: Node, grant_id: str, access_scopes: list[str],
                      refresh_scopes: list[str]) -> dict[str, Any]:
    now = node.clock.now()
    access = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
    refresh = REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
    await repo.insert_token(conn, token_id=new_id(Prefix.OAUTH_ACCESS_TOKEN), grant_id=grant_id, kind="access",
                            token_digest=secret_digest(access), scopes=access_scopes,
                            expires_at=now + timedelta(seconds=ACCESS_SECONDS), now=now)
    await repo.insert_token(conn, token_id=new_id(Prefix.OAUTH_REFRESH_TOKEN), grant_id=grant_id, kind="refresh",
                            token_digest=secret_digest(refresh), scopes=refresh_scopes,
                            expires_at=now + timedelta(days=REFRESH_DAYS), now=now)
    return {"access_token": access, "token_type": "bearer", "expires_in": ACCESS_SECONDS,
            "refresh_token": refresh, "scope": " ".join(access_scopes)}


async def exchange_code(node: Node, app: Mapping[str, Any], code: str | None, redirect_uri: str | None,
                        code_verifier: str | None) -> dict[str, Any]:
    """RFC 6749 4.1.3 with RFC 7636 4.6: the token response for an authorization code."""
    if not code:
        raise InvalidRequestError(description="code is required")
    if code_verifier is not None and not check_challenge(code_verifier):
        raise InvalidRequestError(description="code_verifier must be 43-128 unreserved characters")
    now = node.clock.now()
    reused: list[str] | None = None
    async with node.pool.acquire() as conn, conn.transaction():
        grant = await repo.grant_by_code(conn, secret_digest(code))
        if grant is None or grant["app_id"] != app["id"]:
            raise InvalidGrantError(description="unknown authorization code")
        if grant["code_used_at"] is not None:
            reused = await repo.revoke_grant(conn, grant["id"], now)
        else:
            if grant["code_expires_at"] <= now or grant["revoked_at"] is not None:
                raise InvalidGrantError(description="the authorization code expired")
            # RFC 6749 4.1.3: required (and identical) only if the authorization request had it; sent anyway, it
            # must still be the URI the code went to.
            if (redirect_uri is not None or grant["redirect_uri_sent"]) and redirect_uri != grant["redirect_uri"]:
                raise InvalidGrantError(description="redirect_uri does not match the authorization request")
            challenge = grant["code_challenge"]
            if challenge is not None:
                if code_verifier is None:
                    raise InvalidRequestError(description="code_verifier is required")
                if not hmac.compare_digest(create_s256_code_challenge(code_verifier), challenge):
                    raise InvalidGrantError(description="code_verifier does not match the code challenge")
            elif app["public"]:  # never issued (authorize refuses it), kept as the rule's second lock
                raise UnauthorizedClientError(description="a public client must use PKCE")
            elif code_verifier is not None:
                # Downgrade protection (OAuth 2.1 4.1.3): a verifier for a code issued without a challenge means
                # the authorization request that carried the challenge is not the one this code came from.
                raise InvalidGrantError(description="code_verifier sent for a code issued without a code_challenge")
            # A code issued while the app's scopes were being narrowed keeps only what the app still offers.
            scopes = [scope for scope in grant["scopes"] if scope in grant["app_scopes"]]
            if not scopes:
                raise InvalidGrantError(description="the application no longer has the scopes granted")
            await repo.spend_code(conn, grant["id"], now)
            return await _issue_pair(conn, node, grant["id"], scopes, scopes)
    revoked_on_every_node(node, reused)
    raise InvalidGrantError(description="the authorization code was already used")


async def refresh(node: Node, app: Mapping[str, Any], refresh_token: str | None,
                  scope: str | None) -> dict[str, Any]:
    """RFC 6749 6 with rotation: a new access and refresh token; a spent refresh token revokes its grant."""
    if not refresh_token:
        raise InvalidRequestError(description="refresh_token is required")
    now = node.clock.now()
    reused: list[str] | None = None
    async with node.pool.acquire() as conn, conn.transaction():
        row = await repo.token_by_digest(conn, secret_digest(refresh_token), lock=True)
        if row is None or row["kind"] != "refresh" or row["app_id"] != app["id"]:
            raise InvalidGrantError(description="unknown refresh token")
        if row["revoked_at"] is not None or row["grant_revoked_at"] is not None:
            raise InvalidGrantError(description="the refresh token was revoked")
        if row["spent_at"] is not None:
            reused = await repo.revoke_grant(conn, row["grant_id"], now)
        else:
            if row["expires_at"] is not None and row["expires_at"] <= now:
                raise InvalidGrantError(description="the refresh token expired")
            granted = list(row["scopes"])
            wanted = scope.split() if scope else granted
            if not wanted or any(s not in granted for s in wanted):
                raise InvalidScopeError(description="scope must be within the granted scopes")
            await repo.spend_refresh(conn, row["id"], now)
            # RFC 6749 6: the new refresh token keeps the scope of the one it replaces.
            return await _issue_pair(conn, node, row["grant_id"], list(dict.fromkeys(wanted)), granted)
    revoked_on_every_node(node, reused)
    raise InvalidGrantError(description="the refresh token was already used")


async def revoke(node: Node, app: Mapping[str, Any], token: str | None) -> None:
    """RFC 7009: a refresh token revokes its grant, an access token only itself. An unknown token, or one of
    another client, changes nothing and is no error (nothing is told about tokens the client does not hold)."""
    if not token:
        raise InvalidRequestError(description="token is required")
    now = node.clock.now()
    async with node.pool.acquire() as conn, conn.transaction():
        row = await repo.token_by_digest(conn, secret_digest(token), lock=True)
        if row is None or row["app_id"] != app["id"]:
            return
        if row["kind"] == "refresh":
            revoked = await repo.revoke_grant(conn, row["grant_id"], now)
        else:
            revoked = [row["id"]] if await repo.revoke_token(conn, row["id"], now) else []
    revoked_on_every_node(node, revoked)
