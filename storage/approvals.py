"""Approval flows, requests, decisions, decision tokens and action-node runs (migrations 0034 and 0035). Every query is
scoped by organization id. The flow's actor writes requests, decisions, tokens, versions and runs; the
services write the flow definitions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from storage.connection import Conn

FLOW_COLUMNS = ("id, organization_id, form_id, name, description, gxp_required, is_active, nodes, edges, "
                "created_by, created_at, updated_at, deleted_at")
REQUEST_COLUMNS = ("id, flow_id, form_id, submission_id, item_id, status, node_id, step, step_started_at, "
                   "expires_at, data, version, respondent_email, revision_token_hash, returned_by, created_at, "
                   "updated_at, completed_at, gxp_required")
DECISION_COLUMNS = ("id, request_id, flow_id, node_id, step, user_id, user_name, user_email, decision, comment, "
                    "field_modifications, via, ip_address, user_agent, version, signature, created_at")


# Flows ------------------------------------------------------------------------------------------------------

async def get_flow(conn: Conn, org_id: str, flow_id: str, *, lock: bool = False) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {FLOW_COLUMNS} FROM approval_flows
             WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL{' FOR UPDATE' if lock else ''}""",
        org_id, flow_id)


async def any_flow(conn: Conn, org_id: str, flow_id: str) -> asyncpg.Record | None:
    """The flow, soft-deleted or not (its actor still answers for the requests it made)."""
    return await conn.fetchrow(f"SELECT {FLOW_COLUMNS} FROM approval_flows WHERE organization_id = $1 AND id = $2",
                               org_id, flow_id)


async def flows_of_form(conn: Conn, org_id: str, form_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {FLOW_COLUMNS} FROM approval_flows WHERE organization_id = $1 AND form_id = $2
               AND deleted_at IS NULL ORDER BY created_at DESC, id DESC""", org_id, form_id)


async def active_flow_id(conn: Conn, org_id: str, form_id: str) -> str | None:
    flow_id: str | None = await conn.fetchval(
        """SELECT id FROM approval_flows
            WHERE organization_id = $1 AND form_id = $2 AND is_active AND deleted_at IS NULL""", org_id, form_id)
    return flow_id


async def insert_flow(conn: Conn, *, flow_id: str, org_id: str, form_id: str, name: str, description: str | None,
                      gxp: bool, nodes: list[dict[str, Any]], edges: list[dict[str, Any]], created_by: str | None,
                      now: datetime) -> asyncpg.Record:
    row = await conn.fetchrow(
        f"""INSERT INTO approval_flows (id, organization_id, form_id, name, description, gxp_required, nodes, edges,
                                        created_by, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING {FLOW_COLUMNS}""",
        flow_id, org_id, form_id, name, description, gxp, nodes, edges, created_by, now)
    assert row is not None
    return row


async def update_flow(conn: Conn, org_id: str, flow_id: str, fields: dict[str, Any], now: datetime
                      ) -> asyncpg.Record:
    """Set `fields` (column -> value) and `updated_at`."""
    columns = list(fields)
    assignments = ", ".join(f"{column} = ${index + 3}" for index, column in enumerate(columns))
    row = await conn.fetchrow(
        f"""UPDATE approval_flows SET {assignments}, updated_at = ${len(columns) + 3}
             WHERE organization_id = $1 AND id = $2 RETURNING {FLOW_COLUMNS}""",
        org_id, flow_id, *fields.values(), now)
    assert row is not None
    return row


async def deactivate_others(conn: Conn, org_id: str, form_id: str, flow_id: str, now: datetime) -> list[str]:
    rows = await conn.fetch(
        """UPDATE approval_flows SET is_active = false, updated_at = $4
            WHERE organization_id = $1 AND form_id = $2 AND id <> $3 AND is_active RETURNING id""",
        org_id, form_id, flow_id, now)
    return [row["id"] for row in rows]


async def lock_form(conn: Conn, org_id: str, form_id: str) -> bool:
    """Hold the form for this transaction (activations of its flows happen one at a time)."""
    return await conn.fetchval("SELECT true FROM forms WHERE organization_id = $1 AND id = $2 FOR UPDATE",
                               org_id, form_id) is not None


async def request_counts(conn: Conn, org_id: str, flow_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    rows = await conn.fetch(
        """SELECT flow_id, status, count(*) AS n FROM approval_requests
            WHERE organization_id = $1 AND flow_id = ANY($2::text[]) GROUP BY flow_id, status""",
        org_id, list(flow_ids))
    counts: dict[str, dict[str, int]] = {flow_id: {} for flow_id in flow_ids}
    for row in rows:
        counts[row["flow_id"]][row["status"]] = row["n"]
    return counts


async def open_request_count(conn: Conn, org_id: str, flow_id: str) -> int:
    count: int = await conn.fetchval(
        """SELECT count(*) FROM approval_requests
            WHERE organization_id = $1 AND flow_id = $2 AND status IN ('pending', 'in_progress')""", org_id, flow_id)
    return count


async def form_blockers(conn: Conn, org_id: str, form_id: str) -> tuple[int, int]:
    """(open requests, signed decisions) of the form's flows."""
    row = await conn.fetchrow(
        """SELECT (SELECT count(*) FROM approval_requests WHERE organization_id = $1 AND form_id = $2
                     AND status IN ('pending', 'in_progress')) AS open,
                  (SELECT count(*) FROM approval_decisions WHERE organization_id = $1 AND form_id = $2
                     AND signature IS NOT NULL) AS signed""", org_id, form_id)
    assert row is not None
    return int(row["open"]), int(row["signed"])


async def flows_with_open_requests(conn: Conn, org_id: str) -> list[asyncpg.Record]:
    """(flow_id, form_id) of the organization's flows with requests pending or in progress."""
    return await conn.fetch(
        """SELECT DISTINCT flow_id, form_id FROM approval_requests
            WHERE organization_id = $1 AND status IN ('pending', 'in_progress')""", org_id)


async def signed_forms_on_boards(conn: Conn, org_id: str, board_ids: Sequence[str]) -> list[str]:
    """The names of the forms on these boards whose approvals hold signed (GxP) decisions (which keep them)."""
    rows = await conn.fetch(
        """SELECT f.name FROM forms f
            WHERE f.organization_id = $1 AND f.board_id = ANY($2::text[])
              AND EXISTS (SELECT 1 FROM approval_decisions d WHERE d.organization_id = $1 AND d.form_id = f.id
                            AND d.signature IS NOT NULL)
            ORDER BY f.name""", org_id, list(board_ids))
    return [row["name"] for row in rows]


# Requests, as the actor loads and writes them ----------------------------------------------------------------

async def open_requests(conn: Conn, org_id: str, flow_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {REQUEST_COLUMNS} FROM approval_requests
             WHERE organization_id = $1 AND flow_id = $2 AND status IN ('pending', 'in_progress')""", org_id, flow_id)


async def step_decisions(conn: Conn, org_id: str, flow_id: str) -> list[asyncpg.Record]:
    """The decisions of the current step of each open request of the flow."""
    return await conn.fetch(
        """SELECT d.id, d.request_id, d.node_id, d.step, d.user_id, d.decision
             FROM approval_decisions d JOIN approval_requests r ON r.id = d.request_id AND r.step = d.step
            WHERE r.organization_id = $1 AND r.flow_id = $2 AND r.status IN ('pending', 'in_progress')""",
        org_id, flow_id)


async def live_tokens(conn: Conn, org_id: str, flow_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT t.token_hash, t.request_id, t.node_id, t.step, t.user_id, t.decision
             FROM approval_tokens t JOIN approval_requests r ON r.id = t.request_id AND r.step = t.step
            WHERE t.organization_id = $1 AND t.flow_id = $2 AND t.used_at IS NULL AND t.voided_at IS NULL
              AND r.status IN ('pending', 'in_progress')""", org_id, flow_id)


async def upsert_requests(conn: Conn, org_id: str, rows: Sequence[Any]) -> None:
    await conn.executemany(
        """INSERT INTO approval_requests (id, organization_id, flow_id, form_id, submission_id, item_id, status,
                                          node_id, step, step_started_at, expires_at, data, version,
                                          respondent_email, revision_token_hash, returned_by, created_at,
                                          updated_at, completed_at, gxp_required)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
           ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, node_id = EXCLUDED.node_id,
               step = EXCLUDED.step, step_started_at = EXCLUDED.step_started_at, expires_at = EXCLUDED.expires_at,
               data = EXCLUDED.data, version = EXCLUDED.version, revision_token_hash = EXCLUDED.revision_token_hash,
               returned_by = EXCLUDED.returned_by, updated_at = EXCLUDED.updated_at,
               completed_at = EXCLUDED.completed_at""",
        [(r.id, org_id, r.flow_id, r.form_id, r.submission_id, r.item_id, r.status, r.node_id, r.step,
          r.step_started_at, r.expires_at, r.data, r.version, r.respondent_email, r.revision_token_hash,
          r.returned_by, r.created_at, r.updated_at, r.completed_at, r.gxp_required) for r in rows])


async def require_active_flow(conn: Conn, org_id: str, flow_id: str) -> bool:
    """Whether the flow is still active, holding it against a concurrent delete until commit."""
    return await conn.fetchval(
        """SELECT true FROM approval_flows WHERE organization_id = $1 AND id = $2 AND is_active
              AND deleted_at IS NULL FOR SHARE""", org_id, flow_id) is not None


async def insert_decisions(conn: Conn, org_id: str, rows: Sequence[dict[str, Any]]) -> None:
    await conn.executemany(
        """INSERT INTO approval_decisions (id, organization_id, request_id, flow_id, form_id, node_id, step, user_id,
                                           user_name, user_email, decision, comment, field_modifications, via,
                                           ip_address, user_agent, version, signature, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)""",
        [(d["id"], org_id, d["request_id"], d["flow_id"], d["form_id"], d["node_id"], d["step"], d["user_id"],
          d["user_name"], d["user_email"], d["decision"], d["comment"], d["field_modifications"], d["via"],
          d["ip_address"], d["user_agent"], d["version"], d["signature"], d["created_at"]) for d in rows])


async def insert_versions(conn: Conn, org_id: str, rows: Sequence[dict[str, Any]]) -> None:
    """New versions of submissions, each also made the submission's current answers."""
    for v in rows:
        await conn.execute(
            """INSERT INTO form_submission_versions (submission_id, version, organization_id, data, changed_by,
                                                     changed_by_name, changed_by_email, reason, comment, created_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)""",
            v["submission_id"], v["version"], org_id, v["data"], v["changed_by"], v["changed_by_name"],
            v["changed_by_email"], v["reason"], v["comment"], v["created_at"])
        await conn.execute(
            """UPDATE form_submissions SET data = $3, version = $4, updated_at = $5
                WHERE organization_id = $1 AND id = $2""",
            org_id, v["submission_id"], v["data"], v["version"], v["created_at"])


async def insert_tokens(conn: Conn, org_id: str, flow_id: str, rows: Sequence[Any], now: datetime) -> None:
    await conn.executemany(
        """INSERT INTO approval_tokens (token_hash, organization_id, request_id, flow_id, node_id, step, user_id,
                                        decision, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)""",
        [(t.token_hash, org_id, t.request_id, flow_id, t.node_id, t.step, t.user_id, t.decision, now)
         for t in rows])


async def use_token(conn: Conn, org_id: str, token_hash: str, now: datetime) -> None:
    await conn.execute("UPDATE approval_tokens SET used_at = $3 WHERE organization_id = $1 AND token_hash = $2",
                       org_id, token_hash, now)


async def void_tokens(conn: Conn, org_id: str, request_id: str, step: int, user_id: str | None,
                      now: datetime) -> None:
    """Void the live tokens of a request's step (of one approver when `user_id` is given)."""
    await conn.execute(
        """UPDATE approval_tokens SET voided_at = $5
            WHERE organization_id = $1 AND request_id = $2 AND step = $3 AND ($4::text IS NULL OR user_id = $4)
              AND used_at IS NULL AND voided_at IS NULL""", org_id, request_id, step, user_id, now)


async def token(conn: Conn, org_id: str, token_hash: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """SELECT token_hash, request_id, flow_id, node_id, step, user_id, decision, used_at, voided_at
             FROM approval_tokens WHERE organization_id = $1 AND token_hash = $2""", org_id, token_hash)


async def paired_token(conn: Conn, org_id: str, token_hash: str, decision: str) -> asyncpg.Record | None:
    """The other link of the same e-mail: its approver's token for `decision` on the same request and step."""
    return await conn.fetchrow(
        """SELECT p.token_hash, p.request_id, p.flow_id, p.node_id, p.step, p.user_id, p.decision, p.used_at,
                  p.voided_at
             FROM approval_tokens t JOIN approval_tokens p
               ON p.organization_id = t.organization_id AND p.request_id = t.request_id AND p.step = t.step
              AND p.user_id = t.user_id AND p.decision = $3
            WHERE t.organization_id = $1 AND t.token_hash = $2""", org_id, token_hash, decision)


async def insert_action_runs(conn: Conn, org_id: str, rows: Sequence[dict[str, Any]]) -> None:
    await conn.executemany(
        """INSERT INTO approval_action_runs (id, organization_id, request_id, flow_id, node_id, step, item_id, action,
                                             acting_user_id, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (request_id, node_id, step) DO NOTHING""",
        [(r["id"], org_id, r["request_id"], r["flow_id"], r["node_id"], r["step"], r["item_id"], r["action"],
          r["acting_user_id"], r["created_at"]) for r in rows])


# Reads of the procedures ------------------------------------------------------------------------------------

async def get_request(conn: Conn, org_id: str, request_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {REQUEST_COLUMNS} FROM approval_requests WHERE organization_id = $1 AND id = $2", org_id, request_id)


async def request_of_submission(conn: Conn, org_id: str, submission_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {REQUEST_COLUMNS} FROM approval_requests WHERE organization_id = $1 AND submission_id = $2",
        org_id, submission_id)


async def request_by_revision(conn: Conn, org_id: str, form_id: str, token_hash: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {REQUEST_COLUMNS} FROM approval_requests
             WHERE organization_id = $1 AND form_id = $2 AND revision_token_hash = $3
               AND status IN ('pending', 'in_progress')""", org_id, form_id, token_hash)


async def list_requests(conn: Conn, org_id: str, flow_id: str, status: str | None, limit: int, offset: int
                        ) -> tuple[list[asyncpg.Record], int]:
    rows = await conn.fetch(
        f"""SELECT {REQUEST_COLUMNS} FROM approval_requests
             WHERE organization_id = $1 AND flow_id = $2 AND ($3::text IS NULL OR status = $3)
             ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5""", org_id, flow_id, status, limit, offset)
    total: int = await conn.fetchval(
        """SELECT count(*) FROM approval_requests
            WHERE organization_id = $1 AND flow_id = $2 AND ($3::text IS NULL OR status = $3)""",
        org_id, flow_id, status)
    return rows, total


async def decisions(conn: Conn, org_id: str, request_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {DECISION_COLUMNS} FROM approval_decisions WHERE organization_id = $1 AND request_id = $2
             ORDER BY created_at, id""", org_id, request_id)


async def versions(conn: Conn, org_id: str, submission_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT version, data, changed_by, changed_by_name, changed_by_email, reason, comment, created_at
             FROM form_submission_versions WHERE organization_id = $1 AND submission_id = $2 ORDER BY version""",
        org_id, submission_id)


async def expiring(conn: Conn, now: datetime, limit: int) -> list[asyncpg.Record]:
    """Open requests whose step outlived its `expiresInHours` (all organizations: the scheduler's batch)."""
    return await conn.fetch(
        """SELECT id, organization_id, flow_id FROM approval_requests
            WHERE expires_at <= $1 AND status IN ('pending', 'in_progress') AND revision_token_hash IS NULL
            ORDER BY expires_at LIMIT $2""", now, limit)


async def claim_action_run(conn: Conn, now: datetime, lease_until: datetime) -> asyncpg.Record | None:
    return await conn.fetchrow(
        """UPDATE approval_action_runs SET lease_until = $2
            WHERE id = (SELECT id FROM approval_action_runs
                         WHERE status = 'pending' AND (lease_until IS NULL OR lease_until <= $1)
                         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, organization_id, request_id, flow_id, node_id, item_id, action, acting_user_id""",
        now, lease_until)


async def finish_action_run(conn: Conn, run_id: str, status: str, error: str | None, now: datetime) -> None:
    await conn.execute("UPDATE approval_action_runs SET status = $2, error = $3, finished_at = $4 WHERE id = $1",
                       run_id, status, error, now)


async def action_runs(conn: Conn, org_id: str, request_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        """SELECT node_id, action, status, error, created_at, finished_at FROM approval_action_runs
            WHERE organization_id = $1 AND request_id = $2 ORDER BY created_at, id""", org_id, request_id)


async def people(conn: Conn, org_id: str) -> dict[str, tuple[str, str]]:
    """Active members: user id -> (name, e-mail)."""
    rows = await conn.fetch(
        """SELECT u.id, u.name, u.email FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND m.status = 'active'""", org_id)
    return {row["id"]: (row["name"], row["email"]) for row in rows}


async def user_email(conn: Conn, user_id: str) -> str | None:
    email: str | None = await conn.fetchval("SELECT email FROM users WHERE id = $1", user_id)
    return email


async def signer(conn: Conn, user_id: str) -> asyncpg.Record | None:
    """The e-mail (the throttle's subject) and password hash a GxP signature is checked against."""
    return await conn.fetchrow("SELECT email, password_hash FROM users WHERE id = $1", user_id)
