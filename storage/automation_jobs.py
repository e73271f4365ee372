"""Automation jobs: one row per rule run to do (an event that may trigger it, a runNow item, a cron firing,
a date reached, an inbound webhook), claimed with SKIP LOCKED and a lease, marked done when its execution
record is written. `UNIQUE (automation_id, dedupe_key)` makes every way of making a job idempotent: the
bus and the log sweep meet on the event id, a cron firing on its time, a date on item and day."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import asyncpg

from storage import log_sweep
from storage.connection import Conn, Connection

# Postgres delivers a NOTIFY when the making transaction commits: every node's engine wakes then.
WAKE_CHANNEL = "obeya_automation_jobs"


async def wake_engines(conn: Conn) -> None:
    """Call in the transaction that made jobs outside the engine (runNow, an inbound webhook)."""
    await conn.execute(f"NOTIFY {WAKE_CHANNEL}")

# Which events make a job for which rules. An item trigger needs the event's item; `value.changed` only
# takes updates that changed the rule's column, `subitems.completed` only updates of sub-items (the run
# checks the siblings), `form.submitted` only its form, `kpi.threshold_breach` a KPI breach of the board (the run
# checks the KPI and the colour). Rules armed after an event do not see it.
_FAN_OUT = """
    INSERT INTO automation_jobs (id, organization_id, automation_id, board_id, trigger_type, event_id, item_id,
                                 user_id, depth, dedupe_key, due_at, created_at)
    SELECT automation_job_id(), e.organization_id, a.id, a.board_id, a.trigger->>'type', e.id,
           e.payload->'data'->'item'->>'id', e.payload->'data'->'actor'->>'id',
           COALESCE((e.payload->'data'->'automation'->>'depth')::int, 0), e.id, $1, $1
      FROM events e
      JOIN automations a ON a.organization_id = e.organization_id AND e.stream = 'board:' || a.board_id
                        AND a.enabled AND a.armed_at < e.created_at
     WHERE {where}
       AND CASE a.trigger->>'type'
             WHEN 'item.created' THEN e.name = 'item.created'
             WHEN 'item.moved' THEN e.name = 'item.moved'
             WHEN 'value.changed' THEN e.name = 'item.updated'
                  AND e.payload->'data'->'changes' ? (a.trigger->'config'->>'columnId')
             WHEN 'subitems.completed' THEN e.name = 'item.updated'
                  AND e.payload->'data'->'item'->>'parentId' IS NOT NULL
             WHEN 'form.submitted' THEN e.name = 'form.submitted'
                  AND e.payload->'data'->>'formId' = a.trigger->'config'->>'formId'
             WHEN 'kpi.threshold_breach' THEN e.name = 'kpi.target_breached'
             ELSE false END
       AND (e.name IN ('form.submitted', 'kpi.target_breached') OR jsonb_typeof(e.payload->'data'->'item') = 'object')
     ORDER BY e.created_at, e.stream, e.seq
    ON CONFLICT (automation_id, dedupe_key) DO NOTHING"""


async def fan_out(conn: Conn, event_ids: list[str], now: datetime) -> int:
    result: str = await conn.execute(_FAN_OUT.format(where="e.id = ANY ($2::text[])"), now, event_ids)
    return int(result.split()[-1])


async def sweep(conn: Connection, now: datetime, overlap: timedelta) -> int:
    """Make the jobs of every event created since the watermark (storage/log_sweep.py)."""
    return await log_sweep.sweep(conn, "automation_cursor", _FAN_OUT, now, overlap)


async def add_for_items(conn: Conn, *, org_id: str, automation_id: str, board_id: str, trigger_type: str,
                        key: str, user_id: str | None, now: datetime,
                        item_ids: list[str] | None = None) -> int:
    """One job per top-level item of the board that is neither archived nor in the trash (or per item of
    `item_ids` among them), keyed `<key>:<item id>`; how many were made."""
    result: str = await conn.execute(
        """INSERT INTO automation_jobs (id, organization_id, automation_id, board_id, trigger_type, item_id,
                                        user_id, dedupe_key, due_at, created_at)
           SELECT automation_job_id(), $1, $2, $3, $4, i.id, $6, $5 || ':' || i.id, $7, $7
             FROM items i
            WHERE i.organization_id = $1 AND i.board_id = $3 AND i.parent_id IS NULL
              AND i.archived_at IS NULL AND i.deleted_at IS NULL AND i.moving_to IS NULL
              AND ($8::text[] IS NULL OR i.id = ANY ($8))
            ORDER BY i.group_id, i.position, i.id
           ON CONFLICT (automation_id, dedupe_key) DO NOTHING""",
        org_id, automation_id, board_id, trigger_type, key, user_id, now, item_ids)
    return int(result.split()[-1])


async def add(conn: Conn, *, org_id: str, automation_id: str, board_id: str, trigger_type: str, key: str,
              now: datetime, item_id: str | None = None, user_id: str | None = None,
              context: dict[str, Any] | None = None) -> str | None:
    """One job; its id, or None when a job with this key was made before."""
    job_id: str | None = await conn.fetchval(
        """INSERT INTO automation_jobs (id, organization_id, automation_id, board_id, trigger_type, item_id,
                                        user_id, context, dedupe_key, due_at, created_at)
           VALUES (automation_job_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
           ON CONFLICT (automation_id, dedupe_key) DO NOTHING RETURNING id""",
        org_id, automation_id, board_id, trigger_type, item_id, user_id, context or {}, key, now)
    return job_id


async def claim_due(conn: Conn, now: datetime, lease_until: datetime, limit: int) -> list[asyncpg.Record]:
    """Take up to `limit` due jobs for this node, oldest first, with their rule and triggering event. A
    claimed job is not due again until `lease_until`, so a node that dies mid-run leaves it to another."""
    return await conn.fetch(
        """WITH due AS (
               SELECT id FROM automation_jobs WHERE NOT done AND due_at <= $1
                ORDER BY due_at, n LIMIT $3 FOR UPDATE SKIP LOCKED)
           UPDATE automation_jobs j SET due_at = $2 FROM due WHERE j.id = due.id
           RETURNING j.id, j.n, j.organization_id, j.automation_id, j.board_id, j.trigger_type, j.event_id,
                     j.item_id, j.user_id, j.depth, j.context,
                     (SELECT e.payload FROM events e WHERE e.id = j.event_id) AS event""",
        now, lease_until, limit)


async def finish(conn: Conn, job_id: str) -> None:
    await conn.execute("UPDATE automation_jobs SET done = true WHERE id = $1", job_id)


async def purge_done(conn: Conn, older_than: datetime) -> int:
    """Done jobs are kept a day: long enough that a log sweep never makes an event's job a second time."""
    result: str = await conn.execute("DELETE FROM automation_jobs WHERE done AND created_at < $1", older_than)
    return int(result.split()[-1])


async def due_recurring(conn: Connection, now: datetime) -> list[asyncpg.Record]:
    """Enabled recurring rules whose firing is due, locked for this transaction (others skip them)."""
    return await conn.fetch(
        """SELECT id, organization_id, board_id, trigger, conditions, actions, next_fire_at FROM automations
            WHERE enabled AND trigger->>'type' = 'recurring' AND next_fire_at <= $1
            ORDER BY next_fire_at FOR UPDATE SKIP LOCKED""", now)


async def set_next_fire(conn: Conn, automation_id: str, at: datetime | None) -> None:
    await conn.execute("UPDATE automations SET next_fire_at = $2 WHERE id = $1", automation_id, at)


async def date_rules_to_check(conn: Connection, today: date) -> list[asyncpg.Record]:
    """Enabled date.arrived rules not yet checked through `today`, locked for this transaction."""
    return await conn.fetch(
        """SELECT id, organization_id, board_id, trigger, checked_through FROM automations
            WHERE enabled AND trigger->>'type' = 'date.arrived'
              AND (checked_through IS NULL OR checked_through < $1)
            FOR UPDATE SKIP LOCKED""", today)


async def add_for_dates(conn: Conn, *, org_id: str, automation_id: str, board_id: str, column_id: str,
                        first: date, last: date, now: datetime) -> int:
    """A job for each item (top-level or sub-item, not archived or trashed) whose date in `column_id` lies in
    [`first`, `last`], keyed by item and date, so a date is acted on once even if checked again."""
    result: str = await conn.execute(
        """INSERT INTO automation_jobs (id, organization_id, automation_id, board_id, trigger_type, item_id,
                                        dedupe_key, due_at, created_at)
           SELECT automation_job_id(), $1, $2, $3, 'date.arrived', i.id, 'date:' || i.id || ':' || d.day, $7, $7
             FROM items i, LATERAL (SELECT left(i."values"->>$4, 10) AS day) d
            WHERE i.organization_id = $1 AND i.board_id = $3 AND i.archived_at IS NULL AND i.deleted_at IS NULL
              AND i.moving_to IS NULL AND d.day ~ '^\\d{4}-\\d{2}-\\d{2}$' AND d.day BETWEEN $5 AND $6
            ORDER BY d.day, i.position, i.id
           ON CONFLICT (automation_id, dedupe_key) DO NOTHING""",
        org_id, automation_id, board_id, column_id, first.isoformat(), last.isoformat(), now)
    return int(result.split()[-1])


async def set_checked_through(conn: Conn, automation_id: str, day: date) -> None:
    await conn.execute("UPDATE automations SET checked_through = $2 WHERE id = $1", automation_id, day)
