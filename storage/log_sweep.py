"""The catch-up sweep of the event log that webhook deliveries and automation jobs share: a consumer that
turns events into rows (one INSERT ... SELECT over `events e`) runs it over every event created since its
global watermark, then moves the watermark to the present."""

from __future__ import annotations

from datetime import datetime, timedelta

from storage.connection import Connection


async def sweep(conn: Connection, cursor_table: str, fan_out_sql: str, now: datetime,
                overlap: timedelta) -> int:
    """Run `fan_out_sql` (its `{where}` filters `events e`; `$1` is `now`) over the events created since the
    watermark in `cursor_table`, less `overlap` (a transaction may commit an event stamped before one already
    swept); how many rows it made. Call in a transaction: the watermark row's lock makes the sweeps of several
    nodes take turns."""
    since: datetime = await conn.fetchval(f"SELECT fanned_out_until FROM {cursor_table} FOR UPDATE")
    until: datetime = await conn.fetchval("SELECT clock_timestamp()")
    result: str = await conn.execute(
        fan_out_sql.format(where="e.created_at > $2 AND e.created_at <= $3"), now, since - overlap, until)
    await conn.execute(f"UPDATE {cursor_table} SET fanned_out_until = $1", until)
    return int(result.split()[-1])
