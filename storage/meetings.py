"""Tier meetings: the meeting rows (with the entry under discussion, the entries discussed and the board recorded at
the start), the reads their agenda is taken from (a board's KPIs with their latest status, its actions due or
overdue, its open escalations) and the board stream's seq a meeting records. Every query is scoped by organization
id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import asyncpg

from protocol.actions import OPEN_STATUSES
from protocol.kpis import CATEGORIES
from storage.connection import Conn, Connection

# Not the board's snapshot: it is read only by a replay's first page (`board_snapshot`).
_COLUMNS = """id, organization_id, board_id, tier, status, attendee_ids, agenda, notes, started_by, completed_by,
    start_seq, completion_seq, started_at, completed_at, current_entry, current_since, discussed"""
_OPEN = "a.status IN (" + ", ".join(f"'{status}'" for status in OPEN_STATUSES) + ")"
# KPIs are walked in the SQCDP order of a tier board, then in the order they were defined.
_CATEGORY_ORDER = "array_position(ARRAY[" + ", ".join(f"'{category}'" for category in CATEGORIES) + "], k.category)"


async def hold_board(conn: Connection, org_id: str, board_id: str) -> bool:
    """Whether the board exists, held (FOR KEY SHARE) until this transaction ends so it cannot be deleted
    meanwhile. Taken before `lock_stream_seq`: the board actor deletes a board's row and then appends to its
    stream, so a writer that held the stream first and then waited on the row would deadlock with it."""
    return bool(await conn.fetchval("SELECT true FROM boards WHERE organization_id = $1 AND id = $2 FOR KEY SHARE",
                                    org_id, board_id))


async def lock_stream_seq(conn: Connection, org_id: str, stream: str) -> int:
    """The stream's newest seq, its row in `event_streams` locked until this transaction ends (created at 0 when
    the stream has no event yet). The next event this transaction appends to the stream gets this seq + 1, and
    no other writer appends to it in between: appending takes the same row lock (storage/events.py)."""
    seq: int = await conn.fetchval(
        """INSERT INTO event_streams (stream, organization_id, last_seq) VALUES ($2, $1, 0)
           ON CONFLICT (stream) DO UPDATE SET last_seq = event_streams.last_seq RETURNING last_seq""",
        org_id, stream)
    return seq


async def active_members(conn: Conn, org_id: str, user_ids: Sequence[str]) -> set[str]:
    """Those of `user_ids` who are active members of the organization."""
    rows = await conn.fetch("""SELECT user_id FROM memberships WHERE organization_id = $1 AND status = 'active'
                                 AND user_id = ANY ($2::text[])""", org_id, list(user_ids))
    return {row["user_id"] for row in rows}


async def in_progress(conn: Conn, org_id: str, board_id: str, tier: int) -> str | None:
    """The id of the board's meeting of `tier` in progress, if any."""
    meeting_id: str | None = await conn.fetchval(
        """SELECT id FROM meetings WHERE organization_id = $1 AND board_id = $2 AND tier = $3
             AND status = 'in_progress'""", org_id, board_id, tier)
    return meeting_id


async def agenda_kpis(conn: Conn, org_id: str, board_id: str, limit: int) -> list[asyncpg.Record]:
    """The board's KPIs with their latest value (`value`, `status`, `recorded_at`; null when none) and current
    target (`target_value`, `target_deadline`), at most `limit`, each row with the board's `total`."""
    return await conn.fetch(
        f"""SELECT k.id, k.name, k.category, k.unit, k.direction, k.frequency, k.responsible_user_id,
                   v.value, v.status, v.recorded_at, t.value AS target_value, t.deadline AS target_deadline,
                   (SELECT count(*) FROM kpi_alerts al WHERE al.kpi_id = k.id
                       AND al.status IN ('active', 'acknowledged')) AS open_alerts,
                   count(*) OVER () AS total
              FROM kpis k
              LEFT JOIN LATERAL (SELECT value, status, recorded_at FROM kpi_values WHERE kpi_id = k.id
                                  ORDER BY recorded_at DESC, position DESC LIMIT 1) v ON true
              LEFT JOIN LATERAL (SELECT value, deadline FROM kpi_targets WHERE kpi_id = k.id
                                  ORDER BY set_at DESC, position DESC LIMIT 1) t ON true
             WHERE k.organization_id = $1 AND k.board_id = $2
             ORDER BY {_CATEGORY_ORDER}, k.created_at, k.id LIMIT $3""", org_id, board_id, limit)


_ACTION_COLUMNS = """a.id, a.title, a.status, a.priority, a.assignee_id, assignee.name AS assignee_name,
    a.due_date, a.category, a.escalation_level, a.escalated_to_user_id, target.name AS escalated_to_name,
    count(*) OVER () AS total"""
_ACTION_NAMES = """LEFT JOIN users assignee ON assignee.id = a.assignee_id
    LEFT JOIN users target ON target.id = a.escalated_to_user_id"""


async def agenda_actions(conn: Conn, org_id: str, board_id: str, today: date, limit: int) -> list[asyncpg.Record]:
    """The board's open actions due `today` or earlier, earliest due first (the most overdue on top), at most
    `limit`, each row with the board's `total`."""
    return await conn.fetch(
        f"""SELECT {_ACTION_COLUMNS} FROM actions a {_ACTION_NAMES}
             WHERE a.organization_id = $1 AND a.board_id = $2 AND {_OPEN} AND a.due_date <= $3
             ORDER BY a.due_date, a.id LIMIT $4""", org_id, board_id, today, limit)


async def agenda_escalations(conn: Conn, org_id: str, board_id: str, limit: int) -> list[asyncpg.Record]:
    """The board's open actions that are escalated, the highest level first, then the earliest due, at most
    `limit`, each row with the board's `total`."""
    return await conn.fetch(
        f"""SELECT {_ACTION_COLUMNS} FROM actions a {_ACTION_NAMES}
             WHERE a.organization_id = $1 AND a.board_id = $2 AND {_OPEN} AND a.escalation_level > 0
             ORDER BY a.escalation_level DESC, a.due_date, a.id LIMIT $3""", org_id, board_id, limit)


async def insert(conn: Conn, *, meeting_id: str, org_id: str, board_id: str, tier: int, attendee_ids: list[str],
                 agenda: Any, board_snapshot: Any, started_by: str, start_seq: int, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO meetings (id, organization_id, board_id, tier, attendee_ids, agenda, board_snapshot, started_by,
                                  start_seq, started_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {_COLUMNS}""",
        meeting_id, org_id, board_id, tier, attendee_ids, agenda, board_snapshot, started_by, start_seq, now)
    return row


async def board_snapshot(conn: Conn, org_id: str, meeting_id: str) -> Any:
    """The board as the meeting's start recorded it; None for a meeting started before snapshots were kept."""
    return await conn.fetchval("SELECT board_snapshot FROM meetings WHERE organization_id = $1 AND id = $2",
                               org_id, meeting_id)


async def get(conn: Conn, org_id: str, meeting_id: str, *, lock: bool = False) -> asyncpg.Record | None:
    """The meeting, or None when it is not in the organization; `lock` holds it for the transaction."""
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM meetings WHERE organization_id = $1 AND id = $2"
                               f"{' FOR UPDATE' if lock else ''}", org_id, meeting_id)


async def complete(conn: Conn, org_id: str, meeting_id: str, *, notes: str | None, completed_by: str,
                   completion_seq: int, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""UPDATE meetings SET status = 'completed', notes = $3, completed_by = $4, completion_seq = $5,
                                completed_at = $6
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, meeting_id, notes, completed_by, completion_seq, now)
    return row


async def focus(conn: Conn, org_id: str, meeting_id: str, *, entry: str | None, since: datetime | None
                ) -> asyncpg.Record:
    """Set the entry under discussion and since when (both None: none)."""
    row: asyncpg.Record = await conn.fetchrow(
        f"""UPDATE meetings SET current_entry = $3, current_since = $4 WHERE organization_id = $1 AND id = $2
            RETURNING {_COLUMNS}""", org_id, meeting_id, entry, since)
    return row


async def set_discussed(conn: Conn, org_id: str, meeting_id: str, *, entry: str, discussed: bool) -> asyncpg.Record:
    """Add `entry` to the entries discussed (at the end, once) or take it out."""
    row: asyncpg.Record = await conn.fetchrow(
        f"""UPDATE meetings SET discussed = CASE WHEN NOT $4 THEN array_remove(discussed, $3)
                                                 WHEN $3 = ANY (discussed) THEN discussed
                                                 ELSE array_append(discussed, $3) END
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""", org_id, meeting_id, entry, discussed)
    return row


async def page(conn: Conn, org_id: str, board_id: str, *, limit: int,
               after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    """A board's meetings newest first; `after` is the (started_at, id) of the previous page's last one. The
    rows carry `created_at` (= `started_at`) for the shared newest-first paging."""
    moment, last_id = after if after is not None else (None, None)
    return await conn.fetch(
        f"""SELECT {_COLUMNS}, started_at AS created_at FROM meetings
             WHERE organization_id = $1 AND board_id = $2
               AND ($3::timestamptz IS NULL OR (started_at, id) < ($3, $4))
             ORDER BY started_at DESC, id DESC LIMIT $5""", org_id, board_id, moment, last_id, limit)
