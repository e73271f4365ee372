"""KPI procedures: changes, and the reads answered from memory, go to the KPI's actor
(actors/kpi/routing.py); lists, history, alerts and targets are read from PostgreSQL, where every write the
actor answered is already committed. A batch of values is split by KPI, one message per KPI actor, and each
entry is answered separately (docs/decisions.md, "KPI values, batches and alerts")."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from actors.kernel.access import require_board_access
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.records import row_from_record
from actors.kpi.routing import ask_kpi, kpi_board, read_kpi, writable_kpi_board
from actors.kpi.state import AlertRow, KpiRow, TargetRow, ValueRow
from actors.kpi.views import alert_view, kpi_view, target_view, value_view
from protocol import kpis as spec
from protocol.caller import Caller
from protocol.errors import ApiError, BadRequest, FieldError, NotFound, ValidationFailed
from protocol.ids import Prefix, new_id, parse_iso
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from protocol.registry import Procedure
from storage import kpis as repo

procedures = Implementations()


async def _check_responsible(node: Node, caller: Caller, user_id: str | None) -> None:
    if user_id is not None and (await repo.member_name(node.pool, caller.org_id, user_id)) is None:
        raise ValidationFailed.of("responsibleUserId", "must be an active member of the organization")


async def _named(node: Node, caller: Caller, view: dict[str, Any]) -> dict[str, Any]:
    """The view with its responsible user's name (the actor knows only the id)."""
    responsible = view["responsibleUser"]
    if responsible is None:
        return view
    name = await repo.responsible_name(node.pool, caller.org_id, view["id"], responsible["id"])
    return {**view, "responsibleUser": {**responsible, "name": name}}


def _prefixed(row_type: type[Any], record: asyncpg.Record, prefix: str) -> Any:
    if record[f"{prefix}id"] is None:
        return None
    return row_type(**{name: record[prefix + name] for name in row_type.__struct_fields__})


def _listed_view(record: asyncpg.Record) -> dict[str, Any]:
    return kpi_view(row_from_record(KpiRow, record), _prefixed(ValueRow, record, "v_"),
                    _prefixed(TargetRow, record, "t_"), record["responsible_name"])


def _alert_view(record: asyncpg.Record) -> dict[str, Any]:
    return alert_view(row_from_record(AlertRow, record), record["kpi_name"])


@procedures.implement(spec.DEFINE)
async def define(node: Node, caller: Caller, data: spec.DefineInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    await _check_responsible(node, caller, data.responsibleUserId)
    kpi_id = new_id(Prefix.KPI)
    defined = await ask_kpi(node, caller, kpi_id, spec.DEFINE.name, data, check_access=False)
    node.remember_board(kpi_id, data.boardId)
    return await _named(node, caller, defined)


@procedures.implement(spec.UPDATE)
async def update(node: Node, caller: Caller, data: spec.UpdateInput) -> dict[str, Any]:
    # From the database, not the node's cache: an update that changes nothing writes no row, so no foreign key
    # would refuse it once the board is gone, and the actor would answer the deleted KPI from its memory.
    await kpi_board(node, caller, data.id)
    if data.responsibleUserId is not msgspec.UNSET:
        await _check_responsible(node, caller, data.responsibleUserId)
    return await _named(node, caller, await ask_kpi(node, caller, data.id, spec.UPDATE.name, data,
                                                   check_access=False))


@procedures.implement(spec.DELETE)
async def delete(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    reply: dict[str, Any] = await ask_kpi(node, caller, data.id, spec.DELETE.name, data)
    return reply


@procedures.implement(spec.GET)
async def get(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    return await _named(node, caller, await read_kpi(node, caller, data.id, spec.GET.name, data))


@procedures.implement(spec.LIST)
async def list_kpis(node: Node, caller: Caller, data: spec.ListInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    await require_board_access(node, caller, data.boardId)
    rows = await repo.list_for_board(node.pool, caller.org_id, data.boardId, limit=limit + 1, after=after)
    return time_page(rows, limit, _listed_view, "kpis")


@procedures.implement(spec.LIST_BY_CATEGORY)
async def list_by_category(node: Node, caller: Caller, data: spec.BoardInput) -> dict[str, list[dict[str, Any]]]:
    await require_board_access(node, caller, data.boardId)
    grouped: dict[str, list[dict[str, Any]]] = {category: [] for category in spec.CATEGORIES}
    for row in await repo.list_for_board(node.pool, caller.org_id, data.boardId):
        grouped[row["category"]].append(_listed_view(row))
    return grouped


@procedures.implement(spec.GET_VALUE)
async def get_value(node: Node, caller: Caller, data: spec.KpiIdInput) -> dict[str, Any] | None:
    value: dict[str, Any] | None = await read_kpi(node, caller, data.kpiId, spec.GET_VALUE.name, data)
    return value


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _moment(field: str, text: str | None, *, end: bool) -> datetime | None:
    """A bound of the history window as an instant: `from` is the first included; `to` is included too, so
    the window ends before the next millisecond, or the next midnight for a bare date (None: no end, when
    that is past the last instant a timestamp can name)."""
    if text is None:
        return None
    try:
        moment = parse_iso(text)
    except ValueError:
        raise ValidationFailed.of(field, "must be an ISO 8601 date or timestamp") from None
    except OverflowError:
        raise ValidationFailed.of(field, "must fall within the years 1 to 9999 in UTC") from None
    if not end:
        return moment
    try:
        return moment + (timedelta(days=1) if _is_date(text) else timedelta(milliseconds=1))
    except OverflowError:
        return None


@procedures.implement(spec.GET_HISTORY)
async def get_history(node: Node, caller: Caller, data: spec.HistoryInput) -> dict[str, Any]:
    limit = page_limit(data.limit, default=spec.HISTORY_DEFAULT, maximum=spec.HISTORY_MAX)
    start, end = _moment("from", data.from_, end=False), _moment("to", data.to, end=True)
    if start is not None and end is not None and start >= end:
        raise ValidationFailed.of("from", "must not be after `to`")
    await kpi_board(node, caller, data.kpiId)
    rows = await repo.history(node.pool, caller.org_id, data.kpiId, start=start, end=end, limit=limit)
    return {"kpiId": data.kpiId, "history": [value_view(row_from_record(ValueRow, row)) for row in rows]}


@procedures.implement(spec.SET_VALUE)
async def set_value(node: Node, caller: Caller, data: spec.SetValueInput) -> dict[str, Any]:
    value: dict[str, Any] = await ask_kpi(node, caller, data.kpiId, spec.SET_VALUE.name, data, with_members=True)
    return value


def _failed(error: ApiError) -> dict[str, Any]:
    return {"code": error.code, "message": error.message}


@procedures.implement(spec.BATCH_SET_VALUES)
async def batch_set_values(node: Node, caller: Caller, data: spec.BatchSetValuesInput) -> dict[str, Any]:
    """Each KPI's entries go to its actor in one message (recorded together, in order); KPIs are asked side by
    side, and an entry whose KPI could not record it is answered with the error while the others stand."""
    by_kpi: dict[str, list[int]] = {}
    for index, entry in enumerate(data.entries):
        by_kpi.setdefault(entry.kpiId, []).append(index)
    results: list[dict[str, Any]] = [{} for _ in data.entries]

    async def record(kpi_id: str, indexes: list[int]) -> None:
        try:
            views = await ask_kpi(node, caller, kpi_id, spec.BATCH_SET_VALUES.name,
                                  [data.entries[index] for index in indexes], with_members=True)
        except ApiError as error:
            for index in indexes:
                results[index] = {"index": index, "kpiId": kpi_id, "recorded": False, "value": None,
                                  "error": _failed(error)}
            return
        for index, view in zip(indexes, views, strict=True):
            results[index] = {"index": index, "kpiId": kpi_id, "recorded": True, "value": view, "error": None}

    await asyncio.gather(*(record(kpi_id, indexes) for kpi_id, indexes in by_kpi.items()))
    recorded = sum(1 for result in results if result["recorded"])
    return {"recorded": recorded, "failed": len(results) - recorded, "results": results}


@procedures.implement(spec.GET_ALERTS)
async def get_alerts(node: Node, caller: Caller, data: spec.AlertsInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    await require_board_access(node, caller, data.boardId)
    rows = await repo.alerts_for_board(node.pool, caller.org_id, data.boardId, kpi_id=data.kpiId,
                                       status=data.status, limit=limit + 1, after=after)
    return time_page(rows, limit, _alert_view, "alerts", at="triggered_at")


@procedures.implement(spec.GET_TARGETS)
async def get_targets(node: Node, caller: Caller, data: spec.KpiIdInput) -> dict[str, Any]:
    await kpi_board(node, caller, data.kpiId)
    rows = [row_from_record(TargetRow, row) for row in await repo.targets(node.pool, caller.org_id, data.kpiId)]
    return {"kpiId": data.kpiId, "target": target_view(rows[0]) if rows else None,
            "targets": [target_view(row) for row in rows]}


@procedures.implement(spec.SET_TARGET)
async def set_target(node: Node, caller: Caller, data: spec.SetTargetInput) -> dict[str, Any]:
    target: dict[str, Any] = await ask_kpi(node, caller, data.kpiId, spec.SET_TARGET.name, data)
    return {"kpiId": data.kpiId, **target}


async def _move_alert(node: Node, caller: Caller, data: spec.AlertIdInput, procedure: Procedure
                      ) -> dict[str, Any]:
    stored = await repo.alert(node.pool, caller.org_id, data.alertId)
    if stored is None:
        raise NotFound("alert not found")
    try:
        await writable_kpi_board(node, caller, stored["kpi_id"])
    except NotFound:
        raise NotFound("alert not found") from None
    moved: dict[str, Any] | None = await ask_kpi(node, caller, stored["kpi_id"], procedure.name, data,
                                                 check_access=False)
    if moved is not None:
        return moved
    # Not open in the actor's memory: resolved, which is final.
    if procedure is spec.ACKNOWLEDGE_ALERT:
        raise BadRequest("the alert is resolved; only an active alert can be acknowledged",
                         details=[FieldError("alertId", "the alert is resolved")])
    resolved = await repo.alert(node.pool, caller.org_id, data.alertId)
    if resolved is None:
        raise NotFound("alert not found")
    return _alert_view(resolved)


@procedures.implement(spec.ACKNOWLEDGE_ALERT)
async def acknowledge_alert(node: Node, caller: Caller, data: spec.AlertIdInput) -> dict[str, Any]:
    return await _move_alert(node, caller, data, spec.ACKNOWLEDGE_ALERT)


@procedures.implement(spec.RESOLVE_ALERT)
async def resolve_alert(node: Node, caller: Caller, data: spec.AlertIdInput) -> dict[str, Any]:
    return await _move_alert(node, caller, data, spec.RESOLVE_ALERT)
