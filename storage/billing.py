"""Subscriptions, processor sessions and applied processor callbacks (storage/migrations/0040_billing.sql).
Every query names the organization, but the lookups by the processor's own ids (its callbacks name none of
ours) and the period-end sweeper's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn


async def subscription(conn: Conn, org_id: str, *, for_update: bool = False) -> asyncpg.Record | None:
    lock = " FOR UPDATE OF s" if for_update else ""
    return await conn.fetchrow(
        "SELECT s.*, o.plan, o.slug FROM subscriptions s JOIN organizations o ON o.id = s.organization_id"
        f" WHERE s.organization_id = $1{lock}", org_id)


async def subscription_by_processor(conn: Conn, subscription_id: str | None = None, *,
                                    customer_id: str | None = None) -> asyncpg.Record | None:
    """The subscription (locked) the processor knows by its subscription id, else by its customer id: its
    callbacks name no organization of ours."""
    column, value = (("processor_subscription_id", subscription_id) if subscription_id is not None
                     else ("processor_customer_id", customer_id))
    return await conn.fetchrow(
        "SELECT s.*, o.plan, o.slug FROM subscriptions s JOIN organizations o ON o.id = s.organization_id"
        f" WHERE s.{column} = $1 ORDER BY s.created_at LIMIT 1 FOR UPDATE OF s", value)


async def cancel_due(conn: Conn, now: datetime, limit: int) -> list[asyncpg.Record]:
    """Subscriptions set to cancel at period end whose period has ended (the sandbox's sweeper), locked."""
    return await conn.fetch(
        "SELECT s.*, o.plan FROM subscriptions s JOIN organizations o ON o.id = s.organization_id"
        " WHERE s.cancel_at_period_end AND s.current_period_end <= $1 ORDER BY s.current_period_end"
        " LIMIT $2 FOR UPDATE OF s SKIP LOCKED", now, limit)


async def renew_due(conn: Conn, now: datetime, limit: int) -> list[asyncpg.Record]:
    """Active subscriptions not set to cancel whose period has ended (the sandbox's sweeper renews them), locked."""
    return await conn.fetch(
        "SELECT * FROM subscriptions WHERE status = 'active' AND NOT cancel_at_period_end"
        " AND current_period_end <= $1 ORDER BY current_period_end LIMIT $2 FOR UPDATE SKIP LOCKED", now, limit)


async def ensure_subscription(conn: Conn, subscription_id: str, org_id: str, start: datetime,
                              end: datetime) -> None:
    """The organization's subscription row, created from its plan on first use (a no-op when it exists)."""
    await conn.execute(
        """INSERT INTO subscriptions (id, organization_id, current_period_start, current_period_end, created_at,
                                      updated_at)
           SELECT $1, $2, $3, $4, $3, $3 WHERE EXISTS (SELECT 1 FROM organizations WHERE id = $2)
           ON CONFLICT (organization_id) DO NOTHING""", subscription_id, org_id, start, end)


async def update_subscription(conn: Conn, org_id: str, now: datetime, **fields: Any) -> None:
    names = list(fields)
    assignments = ", ".join(f"{name} = ${index + 3}" for index, name in enumerate(names))
    await conn.execute(f"UPDATE subscriptions SET updated_at = $2, {assignments} WHERE organization_id = $1",
                       org_id, now, *(fields[name] for name in names))


async def set_plan(conn: Conn, org_id: str, plan: str, now: datetime) -> str:
    """Change the organization's plan; its slug (for the organization caches)."""
    slug: str = await conn.fetchval("UPDATE organizations SET plan = $2, updated_at = $3 WHERE id = $1 RETURNING slug",
                                    org_id, plan, now)
    return slug


async def insert_session(conn: Conn, **row: Any) -> asyncpg.Record:
    names = list(row)
    placeholders = ", ".join(f"${index + 1}" for index in range(len(names)))
    record: asyncpg.Record = await conn.fetchrow(
        f"INSERT INTO billing_sessions ({', '.join(names)}) VALUES ({placeholders}) RETURNING *",
        *(row[name] for name in names))
    return record


async def session(conn: Conn, session_id: str, *, for_update: bool = False) -> asyncpg.Record | None:
    """A processor session by its id (the unguessable id is what the processor's page is reached by)."""
    lock = " FOR UPDATE OF b" if for_update else ""
    return await conn.fetchrow(
        "SELECT b.*, o.slug, o.plan AS current_plan FROM billing_sessions b"
        f" JOIN organizations o ON o.id = b.organization_id WHERE b.id = $1{lock}", session_id)


async def complete_session(conn: Conn, session_id: str) -> None:
    await conn.execute("UPDATE billing_sessions SET status = 'completed' WHERE id = $1", session_id)


async def record_event(conn: Conn, event_id: str, org_id: str | None, event_type: str, now: datetime) -> bool:
    """Remember a processor callback; False when it was already applied."""
    inserted = await conn.fetchval(
        "INSERT INTO billing_events (id, organization_id, type, received_at) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (id) DO NOTHING RETURNING true", event_id, org_id, event_type, now)
    return bool(inserted)


async def forget_events(conn: Conn, before: datetime) -> int:
    """Drop the ids of callbacks received before `before`; how many."""
    deleted: str = await conn.execute("DELETE FROM billing_events WHERE received_at < $1", before)
    return int(deleted.rsplit(" ", 1)[-1])


async def seats_used(conn: Conn, org_id: str, now: datetime) -> int:
    """Active members and pending invitations: what the seat gate counts (actors/tenancy/organizations.py)."""
    used: int = await conn.fetchval(
        """SELECT (SELECT count(*) FROM memberships WHERE organization_id = $1 AND status = 'active')
                + (SELECT count(*) FROM invitations WHERE organization_id = $1 AND status = 'pending'
                      AND expires_at > $2)""", org_id, now)
    return used


async def hold_seats(conn: Conn, org_id: str) -> None:
    """Hold the organization's seats until the transaction ends: two members joining (or two invitations) at once
    then count one after the other, so both cannot take the last seat. FOR NO KEY UPDATE: rows that merely
    reference the organization are not held up. A statement of its own: the counts that follow must read after
    the other's commit, which a count inside a locking SELECT would not."""
    await conn.execute("SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE", org_id)


async def joining_seats(conn: Conn, org_id: str) -> asyncpg.Record | None:
    """The organization's plan, the seats bought with its subscription (None: the plan's) and its active members:
    what a member joining needs (actors/tenancy/billing.py check_seat_to_join)."""
    return await conn.fetchrow(
        """SELECT o.plan, s.seats,
                  (SELECT count(*) FROM memberships m WHERE m.organization_id = o.id AND m.status = 'active') AS members
             FROM organizations o LEFT JOIN subscriptions s ON s.organization_id = o.id WHERE o.id = $1""", org_id)


async def purchased_seats(conn: Conn, org_id: str) -> int | None:
    """The seats bought with the subscription (None: the plan's)."""
    seats: int | None = await conn.fetchval("SELECT seats FROM subscriptions WHERE organization_id = $1", org_id)
    return seats


async def board_count(conn: Conn, org_id: str) -> int:
    count: int = await conn.fetchval("SELECT count(*) FROM boards WHERE organization_id = $1", org_id)
    return count


async def busiest_board_automations(conn: Conn, org_id: str) -> int:
    """The most automations any one board of the organization holds (the per-board limit's usage)."""
    count: int = await conn.fetchval(
        "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM automations WHERE organization_id = $1"
        " GROUP BY board_id) per_board", org_id)
    return count
