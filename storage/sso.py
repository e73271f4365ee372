"""Single sign-on: each organization's OpenID provider settings (the client secret only sealed) and the
sign-ins under way (state digest, nonce, PKCE verifier), each taken at most once."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from protocol.plans import PLANS, allows
from storage.connection import Conn

# The plans whose organizations may sign in through their provider.
SSO_PLANS = tuple(name for name in PLANS if allows(name, "sso"))


async def config(conn: Conn, org_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT organization_id, issuer, client_id, client_secret_sealed, enforce, allowed_domains, updated_at
             FROM sso_configs WHERE organization_id = $1""", org_id)


async def upsert_config(conn: Conn, *, org_id: str, issuer: str, client_id: str, client_secret_sealed: bytes,
                        enforce: bool, allowed_domains: list[str], now: datetime) -> None:
    await conn.execute(
        """INSERT INTO sso_configs (organization_id, issuer, client_id, client_secret_sealed, enforce,
                                    allowed_domains, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
           ON CONFLICT (organization_id) DO UPDATE
              SET issuer = $2, client_id = $3, client_secret_sealed = $4, enforce = $5, allowed_domains = $6,
                  updated_at = $7""",
        org_id, issuer, client_id, client_secret_sealed, enforce, allowed_domains, now)


async def insert_attempt(conn: Conn, *, state_digest: str, org_id: str, nonce: str, code_verifier: str,
                         return_to: str, expires_at: datetime, now: datetime) -> None:
    """Record a sign-in under way; expired ones are dropped on the way."""
    await conn.execute("DELETE FROM sso_attempts WHERE expires_at < $1", now)
    await conn.execute(
        """INSERT INTO sso_attempts (state_digest, organization_id, nonce, code_verifier, return_to, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)""", state_digest, org_id, nonce, code_verifier, return_to, expires_at)


async def take_attempt(conn: Conn, state_digest: str, org_id: str, now: datetime) -> asyncpg.Record | None:
    """The sign-in under way with that state in that organization, deleted as it is read (single use); None
    when unknown, already taken or expired."""
    row = await conn.fetchrow(
        """DELETE FROM sso_attempts WHERE state_digest = $1 AND organization_id = $2
           RETURNING nonce, code_verifier, return_to, expires_at""", state_digest, org_id)
    if row is None or row["expires_at"] <= now:
        return None
    return row


async def membership(conn: Conn, org_id: str, user_id: str) -> asyncpg.Record | None:
    """The user's membership in the organization (`status`: active, pending, deactivated; `role`), None if none."""
    return await conn.fetchrow(
        "SELECT status, role FROM memberships WHERE organization_id = $1 AND user_id = $2", org_id, user_id)


async def enforced(conn: Conn, org_id: str) -> bool:
    """Whether password logins are refused (but the owner's): enforcement set, on a plan with `sso` (after a
    downgrade the settings stay but nobody is locked out)."""
    return bool(await conn.fetchval(
        """SELECT c.enforce FROM sso_configs c JOIN organizations o ON o.id = c.organization_id
            WHERE c.organization_id = $1 AND o.plan = ANY($2::text[])""", org_id, list(SSO_PLANS)))
