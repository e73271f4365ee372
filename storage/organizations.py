"""Organization settings, members and invitations; every query scoped by organization id."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.accounts import ORG_COLUMNS
from storage.connection import Conn, Connection

_SETTINGS = {"name": "name", "timezone": "timezone", "dateFormat": "date_format", "weekStart": "week_start",
             "language": "language"}


async def update_settings(conn: Conn, org_id: str, fields: dict[str, Any]) -> asyncpg.Record | None:
    columns = [(_SETTINGS[name], value) for name, value in fields.items() if name in _SETTINGS]
    assignments = [f"{column} = ${index}" for index, (column, _) in enumerate(columns, start=2)]
    assignments.append("updated_at = now()")
    return await conn.fetchrow(
        f"UPDATE organizations SET {', '.join(assignments)} WHERE id = $1 RETURNING {ORG_COLUMNS}",
        org_id, *[value for _, value in columns])


# Members and pending invitations in one list, newest first; an invitation shows as status `pending`.
_MEMBERS = """
SELECT * FROM (
    SELECT u.id, u.name, u.email, u.image AS avatar, m.role, m.status, m.joined_at, m.last_active_at
      FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1
    UNION ALL
    SELECT i.id, NULL, i.email, NULL, i.role, 'pending', i.created_at, NULL
      FROM invitations i WHERE i.organization_id = $1 AND i.status = 'pending' AND i.expires_at > $2
) AS everyone"""


async def list_members(conn: Conn, org_id: str, now: datetime, limit: int, *, search: str | None,
                       role: str | None, status: str | None,
                       after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    conditions, args = [], [org_id, now]

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    if search:
        pattern = arg("%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        conditions.append(f"(name ILIKE {pattern} OR email ILIKE {pattern})")
    if role:
        conditions.append(f"role = {arg(role)}")
    if status:
        conditions.append(f"status = {arg(status)}")
    if after:
        conditions.append(f"(joined_at, id) < ({arg(after[0])}, {arg(after[1])})")
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    return await conn.fetch(f"{_MEMBERS}{where} ORDER BY joined_at DESC, id DESC LIMIT {arg(limit)}", *args)


async def member(conn: Conn, org_id: str, user_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT u.id, u.email, u.name, m.role, m.status FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND m.user_id = $2""", org_id, user_id)


async def member_by_email(conn: Conn, org_id: str, email: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT u.id FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND lower(u.email) = lower($2)""", org_id, email)


async def set_role(conn: Conn, org_id: str, user_id: str, role: str) -> None:
    await conn.execute("UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2",
                       org_id, user_id, role)


async def delete_membership(conn: Conn, org_id: str, user_id: str) -> None:
    await conn.execute("DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2", org_id, user_id)


async def replace_invitation(conn: Conn, invitation_id: str, org_id: str, email: str, role: str,
                             workspace_ids: list[str], token_hash: str, invited_by: str,
                             expires_at: datetime) -> asyncpg.Record:
    """A new pending invitation; an earlier pending one to the same address is revoked."""
    await conn.execute("""UPDATE invitations SET status = 'revoked'
                           WHERE organization_id = $1 AND lower(email) = lower($2) AND status = 'pending'""",
                       org_id, email)
    return await conn.fetchrow(
        """INSERT INTO invitations (id, organization_id, email, role, workspace_ids, token_hash, invited_by,
                                    expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, email, role, status, expires_at""",
        invitation_id, org_id, email, role, workspace_ids, token_hash, invited_by, expires_at)


async def take_invitation(conn: Connection, token_hash: str, now: datetime) -> asyncpg.Record | None:
    """Lock and return a pending, unexpired invitation by its token hash."""
    return await conn.fetchrow(
        """SELECT i.id, i.organization_id, i.email, i.role, i.workspace_ids, o.slug FROM invitations i
             JOIN organizations o ON o.id = i.organization_id
            WHERE i.token_hash = $1 AND i.status = 'pending' AND i.expires_at > $2 FOR UPDATE OF i""",
        token_hash, now)


async def pending_invitation(conn: Conn, org_id: str, token_hash: str, now: datetime) -> asyncpg.Record | None:
    """A pending, unexpired invitation of organization `org_id` by its token hash, read without a lock."""
    return await conn.fetchrow(
        """SELECT email, role, expires_at FROM invitations
            WHERE organization_id = $1 AND token_hash = $2 AND status = 'pending' AND expires_at > $3""",
        org_id, token_hash, now)


async def mark_accepted(conn: Conn, invitation_id: str) -> None:
    await conn.execute("UPDATE invitations SET status = 'accepted' WHERE id = $1", invitation_id)
