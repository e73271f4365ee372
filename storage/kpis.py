"""KPIs, their values, alerts and targets. The KPI actor writes them (rows are passed as objects
whose attributes are named like the columns); services read them. Every query is scoped by organization id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import asyncpg

from storage.activity import insert_entries_sql
from storage.connection import Conn, Connection
from storage.turn_statement import TurnStatement

KPI_COLUMNS = ("id", "organization_id", "board_id", "name", "category", "unit", "direction", "frequency",
               "thresholds", "responsible_user_id", "version", "created_by", "created_at", "updated_at")
VALUE_COLUMNS = ("id", "kpi_id", "value", "status", "recorded_at", "recorded_by", "source", "comment")
ALERT_COLUMNS = ("id", "kpi_id", "board_id", "value_id", "value", "threshold", "status", "triggered_at",
                 "acknowledged_at", "acknowledged_by", "resolved_at", "resolved_by")
TARGET_COLUMNS = ("id", "kpi_id", "value", "deadline", "milestones", "set_by", "set_at")


def _list(columns: Sequence[str], alias: str = "") -> str:
    return ", ".join(f"{alias}{column}" for column in columns)


# --- the actor's state -------------------------------------------------------------------------------------

async def get(conn: Conn, org_id: str, kpi_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(f"SELECT {_list(KPI_COLUMNS)} FROM kpis WHERE organization_id = $1 AND id = $2",
                               org_id, kpi_id)


async def latest_value(conn: Conn, org_id: str, kpi_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {_list(VALUE_COLUMNS)} FROM kpi_values WHERE organization_id = $1 AND kpi_id = $2
             ORDER BY recorded_at DESC, position DESC LIMIT 1""", org_id, kpi_id)


async def open_alerts(conn: Conn, org_id: str, kpi_id: str) -> list[asyncpg.Record]:
    return await conn.fetch(
        f"""SELECT {_list(ALERT_COLUMNS)} FROM kpi_alerts
             WHERE organization_id = $1 AND kpi_id = $2 AND status IN ('active', 'acknowledged')""",
        org_id, kpi_id)


async def current_target(conn: Conn, org_id: str, kpi_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {_list(TARGET_COLUMNS)} FROM kpi_targets WHERE organization_id = $1 AND kpi_id = $2
             ORDER BY set_at DESC, position DESC LIMIT 1""", org_id, kpi_id)


def _updates(columns: Sequence[str]) -> str:
    return ", ".join(f"{column} = EXCLUDED.{column}" for column in columns if column != "id")


# What a turn writes, by part: (table, columns, whether rows carry the organization id themselves, the conflict
# clause, whether rows go in the order given). Rows travel as one jsonb array each (msgspec encodes the row
# structs in C), read back as the table's own row type, so each column keeps its type without listing any. Values
# and targets go in order: their `position` orders those recorded in one turn.
_PARTS: dict[str, tuple[str, Sequence[str], bool, str, bool]] = {
    "kpis": ("kpis", KPI_COLUMNS, True, f"ON CONFLICT (id) DO UPDATE SET {_updates(KPI_COLUMNS)}", False),
    "values": ("kpi_values", VALUE_COLUMNS, False, "", True),
    "alerts": ("kpi_alerts", ALERT_COLUMNS, False,
               f"ON CONFLICT (id) DO UPDATE SET {_updates(ALERT_COLUMNS)}", False),
    "targets": ("kpi_targets", TARGET_COLUMNS, False, "", True),
}


def _part_sql(part: str, organization: str, rows: str) -> str:
    table, columns, own_org, conflict, ordered = _PARTS[part]
    names = _list(columns) if own_org else f"organization_id, {_list(columns)}"
    selected = _list(columns) if own_org else f"{organization}, {_list(columns)}"
    order = "WITH ORDINALITY AS r ORDER BY r.ordinality" if ordered else ""
    return (f"INSERT INTO {table} ({names}) SELECT {selected} FROM jsonb_populate_recordset(NULL::{table}, {rows}) "
            f"{order} {conflict}")


def add_turn(statement: TurnStatement, org_id: str, *, kpis: Sequence[Any] = (), values: Sequence[Any] = (),
             alerts: Sequence[Any] = (), targets: Sequence[Any] = (), activity: Sequence[dict[str, Any]] = ()) -> None:
    """A KPI turn's rows (and its activity entries, `storage.activity.insert_entries_sql` rows) as parts of
    `statement`, each table's rows in one part. A row may appear once per table (a statement cannot upsert one
    row twice). Foreign keys are checked when the statement ends, so values may refer to the KPI defined by the
    same statement."""
    organization = ""
    for part, rows in (("kpis", kpis), ("values", values), ("alerts", alerts), ("targets", targets),
                       ("activity", activity)):
        if not rows:
            continue
        if part != "kpis" and not organization:
            organization = statement.param(org_id)
        rows_param = statement.param(list(rows))
        statement.add(insert_entries_sql(organization, rows_param) if part == "activity"
                      else _part_sql(part, organization, rows_param))


async def delete_kpis(conn: Connection, org_id: str, kpi_ids: Sequence[str]) -> None:
    """Deletes the KPIs with their values, alerts and targets (ON DELETE CASCADE)."""
    await conn.execute("DELETE FROM kpis WHERE organization_id = $1 AND id = ANY ($2::text[])", org_id,
                       list(kpi_ids))


# --- reads -------------------------------------------------------------------------------------------------

async def board_of(conn: Conn, org_id: str, kpi_id: str) -> str | None:
    board_id: str | None = await conn.fetchval("SELECT board_id FROM kpis WHERE organization_id = $1 AND id = $2",
                                               org_id, kpi_id)
    return board_id


async def alert(conn: Conn, org_id: str, alert_id: str) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"""SELECT {_list(ALERT_COLUMNS, "a.")}, k.name AS kpi_name FROM kpi_alerts a JOIN kpis k ON k.id = a.kpi_id
             WHERE a.organization_id = $1 AND a.id = $2""", org_id, alert_id)


# A board's KPIs with their responsible user's name, latest value (columns `v_<name>`) and current target
# (`t_<name>`), as the KPI view shows them.
_LISTED = f"""SELECT {_list(KPI_COLUMNS, "k.")}, u.name AS responsible_name,
                     {", ".join(f"v.{c} AS v_{c}" for c in VALUE_COLUMNS)},
                     {", ".join(f"t.{c} AS t_{c}" for c in TARGET_COLUMNS)}
                FROM kpis k
                LEFT JOIN users u ON u.id = k.responsible_user_id
                LEFT JOIN LATERAL (SELECT {_list(VALUE_COLUMNS)} FROM kpi_values WHERE kpi_id = k.id
                                    ORDER BY recorded_at DESC, position DESC LIMIT 1) v ON true
                LEFT JOIN LATERAL (SELECT {_list(TARGET_COLUMNS)} FROM kpi_targets WHERE kpi_id = k.id
                                    ORDER BY set_at DESC, position DESC LIMIT 1) t ON true"""


async def list_for_board(conn: Conn, org_id: str, board_id: str, *, limit: int | None = None,
                         after: tuple[datetime, str] | None = None) -> list[asyncpg.Record]:
    """Newest first; `after` is the (created_at, id) of the previous page's last KPI."""
    moment, last_id = after if after is not None else (None, None)
    return await conn.fetch(
        f"""{_LISTED}
             WHERE k.organization_id = $1 AND k.board_id = $2
               AND ($3::timestamptz IS NULL OR (k.created_at, k.id) < ($3, $4))
             ORDER BY k.created_at DESC, k.id DESC LIMIT $5""",
        org_id, board_id, moment, last_id, limit)


async def member_name(conn: Conn, org_id: str, user_id: str) -> str | None:
    """The name of an active member of the organization; None otherwise."""
    name: str | None = await conn.fetchval(
        """SELECT u.name FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = $1 AND m.user_id = $2 AND m.status = 'active'""", org_id, user_id)
    return name


async def responsible_name(conn: Conn, org_id: str, kpi_id: str, user_id: str) -> str | None:
    """The name of `user_id` while the KPI names them as responsible, member or not (one who left stays
    named); None otherwise."""
    name: str | None = await conn.fetchval(
        """SELECT u.name FROM kpis k JOIN users u ON u.id = k.responsible_user_id
            WHERE k.organization_id = $1 AND k.id = $2 AND k.responsible_user_id = $3""", org_id, kpi_id, user_id)
    return name


async def history(conn: Conn, org_id: str, kpi_id: str, *, start: datetime | None, end: datetime | None,
                  limit: int) -> list[asyncpg.Record]:
    """Values recorded from `start` (included) until `end` (excluded), newest first, at most `limit`."""
    return await conn.fetch(
        f"""SELECT {_list(VALUE_COLUMNS)} FROM kpi_values
             WHERE organization_id = $1 AND kpi_id = $2
               AND ($3::timestamptz IS NULL OR recorded_at >= $3) AND ($4::timestamptz IS NULL OR recorded_at < $4)
             ORDER BY recorded_at DESC, position DESC LIMIT $5""", org_id, kpi_id, start, end, limit)


async def alerts_for_board(conn: Conn, org_id: str, board_id: str, *, kpi_id: str | None, status: str | None,
                           limit: int, after: tuple[datetime, str] | None) -> list[asyncpg.Record]:
    """Newest first; `after` is the (triggered_at, id) of the previous page's last alert."""
    moment, last_id = after if after is not None else (None, None)
    return await conn.fetch(
        f"""SELECT {_list(ALERT_COLUMNS, "a.")}, k.name AS kpi_name FROM kpi_alerts a JOIN kpis k ON k.id = a.kpi_id
             WHERE a.organization_id = $1 AND a.board_id = $2 AND ($3::text IS NULL OR a.kpi_id = $3)
               AND ($4::text IS NULL OR a.status = $4)
               AND ($5::timestamptz IS NULL OR (a.triggered_at, a.id) < ($5, $6))
             ORDER BY a.triggered_at DESC, a.id DESC LIMIT $7""",
        org_id, board_id, kpi_id, status, moment, last_id, limit)


async def targets(conn: Conn, org_id: str, kpi_id: str) -> list[asyncpg.Record]:
    """Every target set for the KPI, the current one first."""
    return await conn.fetch(
        f"""SELECT {_list(TARGET_COLUMNS)} FROM kpi_targets WHERE organization_id = $1 AND kpi_id = $2
             ORDER BY set_at DESC, position DESC""", org_id, kpi_id)


async def values_for_export(conn: Conn, org_id: str, board_id: str, start: date, end: date) -> list[asyncpg.Record]:
    """Every value of the board's KPIs recorded from `start` to `end` (UTC days, both included), oldest first:
    `name`, `category`, `unit` of the KPI and `recorded_at`, `value`, `source`, `comment` of the value."""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    return await conn.fetch(
        """SELECT k.name, k.category, k.unit, v.recorded_at, v.value, v.source, v.comment
             FROM kpi_values v JOIN kpis k ON k.id = v.kpi_id
            WHERE v.organization_id = $1 AND k.organization_id = $1 AND k.board_id = $2
              AND v.recorded_at >= $3 AND v.recorded_at < $4
            ORDER BY v.recorded_at, k.name, v.position""", org_id, board_id, since, until)

