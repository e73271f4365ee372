"""Guessing-throttle rows (table `auth_throttle`): failures per subject and the time it is locked until.
The policy (how many failures, how long a delay) lives in actors/identity/throttle.py; these queries only
count and lock atomically, so that concurrent attempts on several nodes cannot slip past a lock."""

from __future__ import annotations

from datetime import datetime

from storage.connection import Conn

# Stale rows deleted with each counted attempt: the table stays bounded without a worker of its own.
PRUNE_BATCH = 100


async def locked_until(conn: Conn, key: str, now: datetime) -> datetime | None:
    """When the subject may try again, if it is locked at `now`."""
    until: datetime | None = await conn.fetchval(
        "SELECT locked_until FROM auth_throttle WHERE key = $1 AND locked_until > $2", key, now)
    return until


async def count_attempt(conn: Conn, key: str, now: datetime, forget_before: datetime, free_failures: int,
                        cap_seconds: float) -> int | None:
    """Count one attempt unless the subject is locked at `now`: the attempts so far including this one, or
    None when it is locked (nothing counted). Attempts whose last one is older than `forget_before` are
    forgotten (the count starts again at 1). From the `free_failures`-th attempt on, the subject is locked,
    in the same statement (so concurrent attempts cannot slip past), for 2, 4, 8, ... seconds, at most
    `cap_seconds`."""
    # `counted` is the new count, written out where it is used: ON CONFLICT's SET sees only the old row.
    counted = "(CASE WHEN auth_throttle.last_failure_at < $3 THEN 1 ELSE auth_throttle.failures + 1 END)"
    failures: int | None = await conn.fetchval(
        f"""INSERT INTO auth_throttle (key, failures, last_failure_at) VALUES ($1, 1, $2)
            ON CONFLICT (key) DO UPDATE
               SET failures = {counted}, last_failure_at = EXCLUDED.last_failure_at,
                   locked_until = CASE WHEN {counted} >= $4::int
                                       THEN $2 + make_interval(secs => LEAST($5::float8,
                                                power(2.0, LEAST({counted} - $4::int + 1, 30))))
                                  END
             WHERE auth_throttle.locked_until IS NULL OR auth_throttle.locked_until <= $2
         RETURNING failures""", key, now, forget_before, free_failures, cap_seconds)
    return failures


async def forget(conn: Conn, key: str) -> None:
    await conn.execute("DELETE FROM auth_throttle WHERE key = $1", key)


async def prune(conn: Conn, forget_before: datetime) -> None:
    """Delete up to PRUNE_BATCH rows with no failure since `forget_before` and no lock in force."""
    await conn.execute(
        """DELETE FROM auth_throttle WHERE key IN (
               SELECT key FROM auth_throttle WHERE last_failure_at < $1
                  AND (locked_until IS NULL OR locked_until < $1) LIMIT $2)""", forget_before, PRUNE_BATCH)
