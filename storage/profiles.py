"""Who the members of an organization are, as other users see them: name and avatar, by user id."""

from __future__ import annotations

import asyncpg

from storage.connection import Conn


async def member_profiles(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    """(id, name, avatar, active) of every member of the organization, deactivated ones included."""
    return await conn.fetch(
        """SELECT u.id, u.name, u.image AS avatar, m.status = 'active' AS active
             FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1""", org_id)
