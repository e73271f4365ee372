"""OAuth 2.0 applications, grants (authorization codes) and tokens: rows only, digests only, never a secret."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from storage.connection import Conn

# Everything a caller may see of an app: never `secret_digest`.
APP_COLUMNS = ("id, organization_id, client_id, name, redirect_uris, scopes, public, created_at, updated_at")


async def insert_app(conn: Conn, *, app_id: str, org_id: str, client_id: str, secret_digest: str | None,
                     name: str, redirect_uris: list[str], scopes: list[str], public: bool,
                     created_by: str | None, now: datetime) -> asyncpg.Record:
    return await conn.fetchrow(
        f"""INSERT INTO oauth_apps (id, organization_id, client_id, secret_digest, name, redirect_uris, scopes,
                                    public, created_by, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING {APP_COLUMNS}""",
        app_id, org_id, client_id, secret_digest, name, redirect_uris, scopes, public, created_by, now)


async def list_apps(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"SELECT {APP_COLUMNS} FROM oauth_apps WHERE organization_id = $1 ORDER BY created_at DESC, id DESC",
        org_id)


async def get_app(conn: Conn, org_id: str, app_id: str, *, lock: bool = False) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {APP_COLUMNS} FROM oauth_apps WHERE organization_id = $1 AND id = $2"
        + (" FOR UPDATE" if lock else ""), org_id, app_id)


async def app_by_client_id(conn: Conn, client_id: str) -> asyncpg.Record | None:
    """An app by its client id, with its secret digest (for client authentication)."""
    return await conn.fetchrow(f"SELECT {APP_COLUMNS}, secret_digest FROM oauth_apps WHERE client_id = $1",
                               client_id)


async def update_app(conn: Conn, org_id: str, app_id: str, *, name: str | None, redirect_uris: list[str] | None,
                     scopes: list[str] | None, now: datetime) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""UPDATE oauth_apps SET name = COALESCE($3, name), redirect_uris = COALESCE($4, redirect_uris),
                                  scopes = COALESCE($5, scopes), updated_at = $6
             WHERE organization_id = $1 AND id = $2 RETURNING {APP_COLUMNS}""",
        org_id, app_id, name, redirect_uris, scopes, now)


async def narrow_grants(conn: Conn, app_id: str, scopes: list[str], now: datetime) -> list[str]:
    """After an app's scopes changed: every grant and live token of the app keeps only the scopes among `scopes`,
    and one left with none is revoked. The ids of the tokens changed or revoked (their caches must forget them).
    A token being minted holds its grant `FOR UPDATE`: the grants' update waits for it and the tokens' update,
    a later statement, sees it."""
    narrowed = "ARRAY(SELECT s FROM unnest({0}) AS s WHERE s = ANY($2::text[]))"
    await conn.execute(
        f"""UPDATE oauth_grants g SET scopes = {narrowed.format("g.scopes")},
                   revoked_at = CASE WHEN g.scopes && $2::text[] THEN g.revoked_at
                                     ELSE COALESCE(g.revoked_at, $3::timestamptz) END
             WHERE g.app_id = $1 AND NOT g.scopes <@ $2::text[]""", app_id, scopes, now)
    rows = await conn.fetch(
        f"""UPDATE oauth_tokens t SET scopes = {narrowed.format("t.scopes")},
                   revoked_at = CASE WHEN t.scopes && $2::text[] THEN NULL ELSE $3::timestamptz END
              FROM oauth_grants g
             WHERE g.id = t.grant_id AND g.app_id = $1 AND t.revoked_at IS NULL AND NOT t.scopes <@ $2::text[]
         RETURNING t.id""", app_id, scopes, now)
    return [row["id"] for row in rows]


async def set_secret(conn: Conn, org_id: str, app_id: str, secret_digest: str, now: datetime) -> asyncpg.Record | None:
    """Replace a confidential app's secret; None when there is no such confidential app."""
    return await conn.fetchrow(
        f"""UPDATE oauth_apps SET secret_digest = $3, updated_at = $4
             WHERE organization_id = $1 AND id = $2 AND NOT public RETURNING {APP_COLUMNS}""",
        org_id, app_id, secret_digest, now)


async def delete_app(conn: Conn, org_id: str, app_id: str) -> list[str]:
    """Delete an app (its grants and tokens go with it); the ids of its tokens that were still live. Its grants
    are locked first: a token being minted for one of them (its insert holds the grant) commits before the
    tokens are read, so no token is deleted without its id returned (and its caches told)."""
    await conn.execute("SELECT id FROM oauth_grants WHERE app_id = $1 FOR UPDATE", app_id)
    rows = await conn.fetch(
        """SELECT t.id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
            WHERE g.app_id = $1 AND t.revoked_at IS NULL""", app_id)
    await conn.execute("DELETE FROM oauth_apps WHERE organization_id = $1 AND id = $2", org_id, app_id)
    return [row["id"] for row in rows]


async def insert_grant(conn: Conn, *, grant_id: str, app_id: str, org_id: str, user_id: str, scopes: list[str],
                       code_digest: str, redirect_uri: str, redirect_uri_sent: bool, code_challenge: str | None,
                       expires_at: datetime, now: datetime) -> bool:
    """A grant born as an authorization code, only while the user is an active member (False otherwise). The
    membership is held `FOR KEY SHARE`: a removal in flight commits first (then no grant), or waits for this one
    (then its revocation of the member's grants sees it)."""
    inserted = await conn.fetchval(
        """INSERT INTO oauth_grants (id, app_id, organization_id, user_id, scopes, code_digest, redirect_uri,
                                     redirect_uri_sent, code_challenge, code_expires_at, created_at)
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
            WHERE EXISTS (SELECT 1 FROM memberships WHERE organization_id = $3 AND user_id = $4 AND status = 'active'
                          FOR KEY SHARE)
           RETURNING true""",
        grant_id, app_id, org_id, user_id, scopes, code_digest, redirect_uri, redirect_uri_sent, code_challenge,
        expires_at, now)
    return bool(inserted)


async def grant_by_code(conn: Conn, code_digest: str) -> asyncpg.Record | None:
    """The grant of an authorization code, locked for the exchange, with its app's scopes now (`app_scopes`)."""
    return await conn.fetchrow(
        """SELECT g.*, a.scopes AS app_scopes FROM oauth_grants g JOIN oauth_apps a ON a.id = g.app_id
            WHERE g.code_digest = $1 FOR UPDATE OF g""", code_digest)


async def spend_code(conn: Conn, grant_id: str, now: datetime) -> None:
    await conn.execute("UPDATE oauth_grants SET code_used_at = $2 WHERE id = $1", grant_id, now)


async def revoke_grant(conn: Conn, grant_id: str, now: datetime) -> list[str]:
    """Revoke a grant and all its tokens; the ids of the tokens that were live until now."""
    await conn.execute("UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1", grant_id, now)
    rows = await conn.fetch(
        "UPDATE oauth_tokens SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL RETURNING id",
        grant_id, now)
    return [row["id"] for row in rows]


async def revoke_member_grants(conn: Conn, org_id: str, user_id: str, now: datetime) -> list[str]:
    """Revoke every grant a user gave in an organization, with their tokens; the ids of the tokens that were live
    until now. Every path that mints a token holds its grant `FOR UPDATE`, so the grants' update waits for it and
    the tokens' update (a later statement) sees its token."""
    grants = await conn.fetch(
        """UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $3)
            WHERE organization_id = $1 AND user_id = $2 RETURNING id""", org_id, user_id, now)
    rows = await conn.fetch(
        """UPDATE oauth_tokens SET revoked_at = $2 WHERE grant_id = ANY($1::text[]) AND revoked_at IS NULL
           RETURNING id""", [row["id"] for row in grants], now)
    return [row["id"] for row in rows]


async def insert_token(conn: Conn, *, token_id: str, grant_id: str, kind: str, token_digest: str,
                       scopes: list[str], expires_at: datetime | None, now: datetime) -> None:
    await conn.execute(
        """INSERT INTO oauth_tokens (id, grant_id, kind, token_digest, scopes, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)""", token_id, grant_id, kind, token_digest, scopes, expires_at, now)


async def token_by_digest(conn: Conn, token_digest: str, *, lock: bool = False) -> asyncpg.Record | None:
    """A token with its grant's app, organization, user and revocation."""
    return await conn.fetchrow(
        """SELECT t.id, t.grant_id, t.kind, t.scopes, t.expires_at, t.spent_at, t.revoked_at,
                  g.app_id, g.organization_id, g.user_id, g.revoked_at AS grant_revoked_at
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_digest = $1"""
        + (" FOR UPDATE OF t, g" if lock else ""), token_digest)


async def spend_refresh(conn: Conn, token_id: str, now: datetime) -> None:
    await conn.execute("UPDATE oauth_tokens SET spent_at = $2 WHERE id = $1", token_id, now)


async def revoke_token(conn: Conn, token_id: str, now: datetime) -> bool:
    status = await conn.execute(
        "UPDATE oauth_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", token_id, now)
    return bool(status.endswith(" 1"))


async def active_access_token(conn: Conn, token_digest: str) -> asyncpg.Record | None:
    """A live access token (expiry is checked by the caller) as a bearer credential."""
    return await conn.fetchrow(
        """SELECT t.id, g.organization_id, g.user_id, t.scopes, t.expires_at
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
            WHERE t.token_digest = $1 AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL""",
        token_digest)
