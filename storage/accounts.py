"""Users, organizations, memberships and sessions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn

USER_COLUMNS = "id, email, name, image, created_at, updated_at"
ORG_COLUMNS = ("id, slug, name, plan, logo, timezone, date_format, week_start, language, "
               "created_at, updated_at")


async def email_taken(conn: Conn, email: str) -> bool:
    return bool(await conn.fetchval("SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1))",
                                    email))


async def slug_taken(conn: Conn, slug: str) -> bool:
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM organizations WHERE lower(slug) = lower($1))", slug))


async def insert_user(conn: Conn, user_id: str, email: str, name: str, password_hash: str) -> asyncpg.Record:
    return await conn.fetchrow(
        f"INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4) RETURNING {USER_COLUMNS}",
        user_id, email, name, password_hash)


async def insert_organization(conn: Conn, org_id: str, slug: str, name: str, plan: str) -> asyncpg.Record:
    return await conn.fetchrow(
        f"INSERT INTO organizations (id, slug, name, plan) VALUES ($1, $2, $3, $4) RETURNING {ORG_COLUMNS}",
        org_id, slug.lower(), name, plan)


async def insert_membership(conn: Conn, org_id: str, user_id: str, role: str) -> None:
    await conn.execute(
        "INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)", org_id, user_id, role)


async def user_by_id(conn: Conn, user_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {USER_COLUMNS} FROM users WHERE id = $1", user_id)


async def user_login(conn: Conn, email: str) -> asyncpg.Record | None:
    """The user with that e-mail, with the password hash (for login only)."""
    return await conn.fetchrow(
        f"SELECT {USER_COLUMNS}, password_hash FROM users WHERE lower(email) = lower($1)", email)


async def update_user(conn: Conn, user_id: str, fields: dict[str, Any]) -> asyncpg.Record | None:
    """Set the profile fields given (`name`, `image`; any other key is ignored)."""
    written = {column: value for column, value in fields.items() if column in ("name", "image")}
    # Placeholders are numbered over the written fields only, in the order of their values.
    assignments = [f"{column} = ${index}" for index, column in enumerate(written, start=2)]
    assignments.append("updated_at = now()")
    return await conn.fetchrow(
        f"UPDATE users SET {', '.join(assignments)} WHERE id = $1 RETURNING {USER_COLUMNS}",
        user_id, *written.values())


async def organization_by_slug(conn: Conn, slug: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {ORG_COLUMNS} FROM organizations WHERE lower(slug) = lower($1)", slug)


async def organization_by_id(conn: Conn, org_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {ORG_COLUMNS} FROM organizations WHERE id = $1", org_id)


async def membership_role(conn: Conn, org_id: str, user_id: str) -> str | None:
    role: str | None = await conn.fetchval(
        "SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2 AND status = 'active'",
        org_id, user_id)
    return role


async def memberships_of(conn: Conn, user_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT m.organization_id, o.slug AS organization_slug, m.role
             FROM memberships m JOIN organizations o ON o.id = m.organization_id
            WHERE m.user_id = $1 AND m.status = 'active' ORDER BY m.joined_at""", user_id)


async def member_elsewhere(conn: Conn, user_id: str, org_id: str) -> bool:
    """Whether the user has a membership (of any status) in an organization other than `org_id`."""
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM memberships WHERE user_id = $1 AND organization_id <> $2)", user_id, org_id))


async def insert_session(conn: Conn, token_hash: str, user_id: str, expires_at: datetime,
                         org_id: str | None = None) -> None:
    """A session; `org_id` limits it to that organization (a single sign-on's)."""
    await conn.execute(
        "INSERT INTO sessions (token_hash, user_id, expires_at, organization_id) VALUES ($1, $2, $3, $4)",
        token_hash, user_id, expires_at, org_id)


async def session_user(conn: Conn, token_hash: str, now: datetime) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT u.id, u.email, s.organization_id FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = $1 AND s.expires_at > $2""", token_hash, now)


async def delete_session(conn: Conn, token_hash: str) -> None:
    await conn.execute("DELETE FROM sessions WHERE token_hash = $1", token_hash)
