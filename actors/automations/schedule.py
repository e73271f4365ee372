"""Scheduled automation triggers: `recurring` rules fire on their cron schedule (UTC) and
`date.arrived` rules fire for each item whose date column reaches today plus `offsetDays` (UTC days).

`schedule_due` makes the jobs; the engine calls it every minute on every node. A rule row is locked while
its jobs are made (SKIP LOCKED: another node passes it by) and every job has a key (the firing time, the
item and day), so each firing runs once across all nodes. After downtime, a recurring rule fires once for
the firings it missed and then keeps to its schedule; a date rule catches up on the days it missed (up to
`CATCH_UP_DAYS`) as well as on dates set to today later in the day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
from croniter import croniter

from actors.kernel.node import Node
from protocol.automations import ITEM_ACTIONS
from protocol.ids import iso
from storage import automation_jobs as jobs

CATCH_UP_DAYS = 30


def next_fire(cron: str, after: datetime) -> datetime:
    """The first firing of `cron` (UTC) strictly after `after`."""
    fire: datetime = croniter(cron, after.astimezone(UTC)).get_next(datetime)
    return fire


def acts_on_items(rule: asyncpg.Record) -> bool:
    """A recurring rule with conditions or item actions runs on every item of its board (like runNow);
    one with neither runs once per firing, without an item."""
    return bool(rule["conditions"]) or any(action["type"] in ITEM_ACTIONS for action in rule["actions"])


async def _fire_recurring(conn: asyncpg.Connection, now: datetime) -> int:
    made = 0
    for rule in await jobs.due_recurring(conn, now):
        key = f"cron:{iso(rule['next_fire_at'])}"
        common: dict[str, Any] = {"org_id": rule["organization_id"], "automation_id": rule["id"],
                                  "board_id": rule["board_id"], "trigger_type": "recurring", "key": key, "now": now}
        if acts_on_items(rule):
            made += await jobs.add_for_items(conn, user_id=None, **common)
        else:
            made += await jobs.add(conn, **common) is not None
        await jobs.set_next_fire(conn, rule["id"], next_fire(rule["trigger"]["config"]["cron"], now))
    return made


def offset_days(trigger: dict[str, Any]) -> int:
    return int((trigger.get("config") or {}).get("offsetDays") or 0)


async def _fire_dates(conn: asyncpg.Connection, now: datetime) -> int:
    made = 0
    today = now.astimezone(UTC).date()
    for rule in await jobs.date_rules_to_check(conn, today):
        checked: date | None = rule["checked_through"]
        first = max(checked + timedelta(days=1) if checked else today, today - timedelta(days=CATCH_UP_DAYS))
        shift = timedelta(days=offset_days(rule["trigger"]))
        made += await jobs.add_for_dates(conn, org_id=rule["organization_id"], automation_id=rule["id"],
                                         board_id=rule["board_id"], column_id=rule["trigger"]["config"]["columnId"],
                                         first=first + shift, last=today + shift, now=now)
        # Today stays unchecked: a date set to today later in the day still fires (the key keeps it once).
        await jobs.set_checked_through(conn, rule["id"], today - timedelta(days=1))
    return made


async def schedule_due(node: Node) -> int:
    """Make the jobs of every recurring firing and every date reached by now; how many were made."""
    now = node.clock.now()
    async with node.pool.acquire() as conn, conn.transaction():
        return await _fire_recurring(conn, now) + await _fire_dates(conn, now)
