"""Webhooks, their deliveries and the fan-out watermark (docs/api.md, "Webhooks"). Every query of the management
side is scoped by organization id; the delivery side (fan-out, claiming, results) works across
organizations for the node's delivery worker."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import asyncpg

from storage import log_sweep
from storage.connection import Conn, Connection

_COLUMNS = "id, url, events, secret, description, active, failed, created_at, updated_at"


async def insert(conn: Conn, *, webhook_id: str, org_id: str, url: str, events: list[str], secret: str | None,
                 description: str | None, created_by: str | None, now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO webhooks (id, organization_id, url, events, secret, description, created_by,
                                  created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING {_COLUMNS}""",
        webhook_id, org_id, url, events, secret, description, created_by, now)
    return row


async def list_for_org(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(f"SELECT {_COLUMNS} FROM webhooks WHERE organization_id = $1 "
                            "ORDER BY created_at DESC, id DESC", org_id)


async def get(conn: Conn, org_id: str, webhook_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_COLUMNS} FROM webhooks WHERE organization_id = $1 AND id = $2",
                               org_id, webhook_id)


async def update(conn: Conn, org_id: str, webhook_id: str, changes: dict[str, Any],
                 now: datetime) -> asyncpg.Record | None:
    """Apply `changes` (url, events, description, active); turning a webhook on clears its failed mark."""
    row: asyncpg.Record | None = await conn.fetchrow(
        f"""UPDATE webhooks SET url = coalesce($3, url), events = coalesce($4, events),
                   description = CASE WHEN $5 THEN $6 ELSE description END,
                   active = coalesce($7, active), failed = failed AND NOT coalesce($7, false),
                   updated_at = $8
             WHERE organization_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
        org_id, webhook_id, changes.get("url"), changes.get("events"), "description" in changes,
        changes.get("description"), changes.get("active"), now)
    return row


async def delete(conn: Conn, org_id: str, webhook_id: str) -> bool:
    deleted = await conn.fetchval("DELETE FROM webhooks WHERE organization_id = $1 AND id = $2 RETURNING id",
                                  org_id, webhook_id)
    return deleted is not None


async def deliveries(conn: Conn, org_id: str, webhook_id: str, limit: int,
                     after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    """A webhook's deliveries, newest first, after the (created_at, id) of a previous page."""
    moment, last_id = after if after is not None else (None, None)
    return await conn.fetch(
        """SELECT id, event_id, event, status, attempts, response_code, duration_ms, last_error,
                  next_attempt_at, created_at
             FROM webhook_deliveries
            WHERE organization_id = $1 AND webhook_id = $2
              AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5))
            ORDER BY created_at DESC, id DESC LIMIT $3""",
        org_id, webhook_id, limit, moment, last_id)


async def redeliver(conn: Conn, org_id: str, webhook_id: str, now: datetime) -> int:
    """Make every undelivered delivery of the webhook due now with a fresh set of retries — the exhausted
    ones and those waiting for their next retry — and reactivate the webhook if it was marked failed; the
    number of deliveries re-queued. One being sent at this moment may be sent twice (at least once)."""
    await conn.execute("UPDATE webhooks SET active = true, failed = false, updated_at = $3 "
                       "WHERE organization_id = $1 AND id = $2 AND failed", org_id, webhook_id, now)
    result: str = await conn.execute(
        """UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $3
            WHERE organization_id = $1 AND webhook_id = $2 AND status IN ('pending', 'retrying', 'failed')""",
        org_id, webhook_id, now)
    return int(result.split()[-1])


# Fan-out: a delivery per (active webhook subscribed to the event's name, event), in one statement. A
# webhook only receives events committed after it was created (`subscribed_at`, database time like the
# events' `created_at`). Duplicates from the bus and the sweep meet the unique (webhook, event) pair.
# Some events are logged on two streams so that both live rooms see them: a KPI's on `kpi:<id>` and on its
# board, an item moved across boards on both boards. A webhook gets each once: from the KPI's stream, and
# from the board the item left.
_FAN_OUT = """INSERT INTO webhook_deliveries (id, organization_id, webhook_id, event_id, event, next_attempt_at,
                                              created_at)
              SELECT webhook_delivery_id(), e.organization_id, w.id, e.id, e.name, $1, $1
                FROM events e JOIN webhooks w ON w.organization_id = e.organization_id AND w.active
                 AND e.name = ANY (w.events) AND e.created_at >= w.subscribed_at
               WHERE {where}
                 AND (e.name NOT LIKE 'kpi.%' OR e.stream LIKE 'kpi:%')
                 AND (e.name <> 'item.moved' OR e.payload->'data'->'from'->>'boardId' IS NULL
                      OR e.stream = 'board:' || (e.payload->'data'->'from'->>'boardId'))
              ON CONFLICT (webhook_id, event_id) DO NOTHING"""


async def organizations_with_webhooks(conn: Conn) -> frozenset[str]:
    """Organizations with at least one active webhook: the only ones whose events need fanning out."""
    return frozenset(r["organization_id"] for r in await conn.fetch(
        "SELECT DISTINCT organization_id FROM webhooks WHERE active"))


async def fan_out(conn: Conn, event_ids: list[str], now: datetime) -> int:
    result: str = await conn.execute(_FAN_OUT.format(where="e.id = ANY ($2::text[])"), now, event_ids)
    return int(result.split()[-1])


async def sweep(conn: Connection, now: datetime, overlap: timedelta) -> int:
    """Fan out every event created since the watermark (storage/log_sweep.py)."""
    return await log_sweep.sweep(conn, "webhook_cursor", _FAN_OUT, now, overlap)


async def claim_due(conn: Conn, now: datetime, lease_until: datetime, limit: int) -> list[asyncpg.Record]:
    """Take up to `limit` due deliveries of active webhooks for this node: each is not due again until
    `lease_until`, so a node that dies mid-send leaves it to be retried. SKIP LOCKED lets several nodes
    claim at once without taking the same delivery. An attempt counts once its result is recorded."""
    return await conn.fetch(
        """WITH due AS (
               SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
                WHERE d.status IN ('pending', 'retrying') AND d.next_attempt_at <= $1
                ORDER BY d.next_attempt_at LIMIT $3
                  FOR UPDATE OF d SKIP LOCKED)
           UPDATE webhook_deliveries d SET next_attempt_at = $2
             FROM due, webhooks w, events e
            WHERE d.id = due.id AND w.id = d.webhook_id AND e.id = d.event_id
           RETURNING d.id, d.attempts, d.webhook_id, w.url, w.secret, e.id AS event_id,
                     e.organization_id, e.stream, e.seq, e.name, e.payload, e.created_at""",
        now, lease_until, limit)


async def record_attempt(conn: Conn, delivery_id: str, *, status: str, response_code: int | None,
                         duration_ms: int, error: str | None, next_attempt_at: datetime | None) -> None:
    await conn.execute(
        """UPDATE webhook_deliveries SET status = $2, response_code = $3, duration_ms = $4, last_error = $5,
                  next_attempt_at = $6, attempts = attempts + 1 WHERE id = $1""",
        delivery_id, status, response_code, duration_ms, error, next_attempt_at)


async def mark_failed(conn: Conn, webhook_id: str, now: datetime) -> None:
    await conn.execute("UPDATE webhooks SET active = false, failed = true, updated_at = $2 WHERE id = $1",
                       webhook_id, now)
