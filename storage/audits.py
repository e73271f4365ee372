"""5S audit checklists, sessions and scores. Every query is scoped by organization id; scores
have none of their own and are scoped through their session's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import asyncpg

from storage.connection import Conn, Connection

_CHECKLIST_COLUMNS = "id, board_id, name, type, items, max_score, created_by, created_at"
# A session with its checklist's items and name, which every session view and check needs.
_SESSION_SELECT = """SELECT s.id, s.board_id, s.checklist_id, s.auditor_id, s.date, s.status, s.total_score,
                            s.max_score, s.completed_at, s.created_at, s.updated_at,
                            c.items AS checklist_items, c.name AS checklist_name
                       FROM audit_sessions s
                       JOIN audit_checklists c ON c.id = s.checklist_id AND c.organization_id = s.organization_id"""
_SCORE_COLUMNS = "session_id, item_id, score, comment, photo_url, scored_by, scored_at, action_id"
# The condition that a score's session (audit_scores.session_id = $1) is in the organization $2.
_IN_ORG = "EXISTS (SELECT 1 FROM audit_sessions a WHERE a.id = $1 AND a.organization_id = $2)"


async def insert_checklist(conn: Conn, *, checklist_id: str, org_id: str, board_id: str, name: str, kind: str,
                           items: list[dict[str, Any]], max_score: int, created_by: str,
                           now: datetime) -> asyncpg.Record:
    row: asyncpg.Record = await conn.fetchrow(
        f"""INSERT INTO audit_checklists (id, organization_id, board_id, name, type, items, max_score, created_by,
                                          created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {_CHECKLIST_COLUMNS}""",
        checklist_id, org_id, board_id, name, kind, items, max_score, created_by, now)
    return row


async def checklist(conn: Conn, org_id: str, checklist_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {_CHECKLIST_COLUMNS} FROM audit_checklists WHERE organization_id = $1 AND id = $2",
        org_id, checklist_id)


async def checklists_for_board(conn: Conn, org_id: str, board_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {_CHECKLIST_COLUMNS} FROM audit_checklists WHERE organization_id = $1 AND board_id = $2
             ORDER BY created_at DESC, id DESC""", org_id, board_id)


async def insert_session(conn: Connection, *, session_id: str, org_id: str, board_id: str,
                         checklist_id: str, auditor_id: str, day: date, max_score: int, now: datetime) -> None:
    await conn.execute(
        """INSERT INTO audit_sessions (id, organization_id, board_id, checklist_id, auditor_id, date, max_score,
                                       created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)""",
        session_id, org_id, board_id, checklist_id, auditor_id, day, max_score, now)


async def session(conn: Conn, org_id: str, session_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"{_SESSION_SELECT} WHERE s.organization_id = $1 AND s.id = $2", org_id, session_id)


async def lock_session(conn: Connection, org_id: str, session_id: str) -> str | None:
    """Lock the session's row for the rest of the transaction and return its status (None: gone). Every write
    to a session's scores or status takes this lock first, so they apply one after another."""
    status: str | None = await conn.fetchval(
        "SELECT status FROM audit_sessions WHERE organization_id = $1 AND id = $2 FOR UPDATE", org_id, session_id)
    return status


async def upsert_scores(conn: Connection, org_id: str, session_id: str,
                        scores: Sequence[tuple[str, int, str | None, str | None]], scored_by: str,
                        now: datetime) -> None:
    """Write `(item id, score, comment, photo url)` rows; an item scored before gets the new score."""
    await conn.execute(
        f"""INSERT INTO audit_scores (session_id, item_id, score, comment, photo_url, scored_by, scored_at)
            SELECT $1, s.item_id, s.score, s.comment, s.photo_url, $3, $4
              FROM unnest($5::text[], $6::int[], $7::text[], $8::text[]) AS s(item_id, score, comment, photo_url)
             WHERE {_IN_ORG}
            ON CONFLICT (session_id, item_id) DO UPDATE
               SET score = EXCLUDED.score, comment = EXCLUDED.comment, photo_url = EXCLUDED.photo_url,
                   scored_by = EXCLUDED.scored_by, scored_at = EXCLUDED.scored_at""",
        session_id, org_id, scored_by, now, [s[0] for s in scores], [s[1] for s in scores], [s[2] for s in scores],
        [s[3] for s in scores])


async def recompute_total(conn: Connection, org_id: str, session_id: str, now: datetime) -> None:
    """Set the session's total to the sum of its stored scores (under the session's lock)."""
    await conn.execute(
        """UPDATE audit_sessions
              SET total_score = (SELECT coalesce(sum(score), 0) FROM audit_scores WHERE session_id = $1),
                  updated_at = $3
            WHERE id = $1 AND organization_id = $2""", session_id, org_id, now)


async def scored_item_ids(conn: Conn, org_id: str, session_id: str) -> set[str]:
    rows = await conn.fetch(f"SELECT item_id FROM audit_scores WHERE session_id = $1 AND {_IN_ORG}", session_id,
                            org_id)
    return {row["item_id"] for row in rows}


async def complete(conn: Connection, org_id: str, session_id: str, now: datetime) -> None:
    await conn.execute("UPDATE audit_sessions SET status = 'completed', completed_at = $3, updated_at = $3 "
                       "WHERE id = $1 AND organization_id = $2", session_id, org_id, now)


async def scores(conn: Conn, org_id: str, session_ids: Sequence[str]) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {_SCORE_COLUMNS} FROM audit_scores
             WHERE session_id IN (SELECT id FROM audit_sessions WHERE organization_id = $1 AND id = ANY($2::text[]))""",
        org_id, list(session_ids))


def _session_filter(checklist_id: str | None, status: str | None) -> tuple[str, list[Any]]:
    """The WHERE clause of a board's sessions, the board's organization and id being $1 and $2."""
    where, args = ["s.organization_id = $1", "s.board_id = $2"], []
    for column, value in (("s.checklist_id", checklist_id), ("s.status", status)):
        if value is not None:
            args.append(value)
            where.append(f"{column} = ${len(args) + 2}")
    return " AND ".join(where), args


async def sessions_for_board(conn: Conn, org_id: str, board_id: str, *, checklist_id: str | None,
                             status: str | None, limit: int, offset: int) -> tuple[list[asyncpg.Record], int]:
    """One page of a board's sessions, newest audit date first, and how many there are in all."""
    where, args = _session_filter(checklist_id, status)
    total: int = await conn.fetchval(f"SELECT count(*) FROM audit_sessions s WHERE {where}", org_id, board_id,
                                     *args)
    rows = await conn.fetch(
        f"""{_SESSION_SELECT} WHERE {where} ORDER BY s.date DESC, s.created_at DESC, s.id DESC
             LIMIT ${len(args) + 3} OFFSET ${len(args) + 4}""", org_id, board_id, *args, limit, offset)
    return rows, total


async def claim_low_scores(conn: Connection, org_id: str, session_id: str, threshold: int,
                           now: datetime) -> list[asyncpg.Record]:
    """Claim the scores below `threshold` that no action was made from (nor is being made from)."""
    return await conn.fetch(
        f"""UPDATE audit_scores SET action_claimed_at = $4
             WHERE session_id = $1 AND {_IN_ORG} AND score < $3 AND action_claimed_at IS NULL
         RETURNING {_SCORE_COLUMNS}""",
        session_id, org_id, threshold, now)


async def set_action(conn: Conn, org_id: str, session_id: str, item_id: str, action_id: str) -> None:
    await conn.execute(f"UPDATE audit_scores SET action_id = $4 WHERE session_id = $1 AND {_IN_ORG} AND item_id = $3",
                       session_id, org_id, item_id, action_id)


async def release_claims(conn: Conn, org_id: str, session_id: str, item_ids: Sequence[str]) -> None:
    """Give back claims whose action was not made, so that the next call makes it."""
    await conn.execute(f"""UPDATE audit_scores SET action_claimed_at = NULL
                            WHERE session_id = $1 AND {_IN_ORG} AND item_id = ANY($3::text[])
                              AND action_id IS NULL""",
                       session_id, org_id, list(item_ids))
