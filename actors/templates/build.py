"""Building a board from a template's structure (templates.apply, and boards.create with `templateId`).

The board is built through the procedures a user would call, each authorized for the caller: boards.create
(the board actor makes the board, its groups and columns in one turn, with `board.created`), columns.update
for columns whose settings name other columns (they can only name the new ids once those exist), then
kpis.define and kpis.setTarget, then automations.create with the rules re-pointed at the new board's groups
and columns. Every change is written and emitted as that procedure writes and emits it.

KPIs and automations the organization's plan does not include are left out and listed in the reply's
`skipped[]` with the reason. Rules with the `kpi.threshold_breach` trigger are made like every other rule and
run on the new board's KPIs.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import msgspec

from actors.automations import handlers as automation_handlers
from actors.automations.handlers import check_fit
from actors.board import board_calls
from actors.board.values import normalize_config
from actors.kernel.authorization import authorize
from actors.kernel.handlers import Handler
from actors.kernel.node import Node
from actors.kpi import handlers as kpi_handlers
from actors.templates import structure as shape
from protocol import automations as rules
from protocol import boards
from protocol import kpis as kpi_spec
from protocol import templates as spec
from protocol.caller import Caller
from protocol.errors import ApiError, FieldError, ValidationFailed
from protocol.plans import plan
from protocol.registry import Procedure


@dataclasses.dataclass
class _Calls:
    """The procedures one apply runs, as its caller, each through its implementation; under an Idempotency-Key
    each gets a key of its own."""

    node: Node
    caller: Caller
    count: int = 0

    async def run(self, procedure: Procedure, handler: Handler, data: msgspec.Struct) -> Any:
        caller = self.caller
        if caller.idempotency is not None:
            caller = dataclasses.replace(caller, idempotency=f"{caller.idempotency}.t{self.count}")
        self.count += 1
        authorize(procedure, caller)
        return await handler(self.node, caller, data)

    def allows(self, procedure: Procedure) -> bool:
        organization = self.caller.organization
        return procedure.feature is None or (organization is not None
                                             and procedure.feature in plan(organization.plan).features)


def validate(structure: spec.Structure, field: str) -> None:
    """Everything that would make the build fail halfway, refused before anything is written."""
    shape.check(structure, field)
    errors = []
    for index, column in enumerate(structure.columns):  # what boards.create and columns.update would refuse
        try:
            normalize_config(column.type, column.config, field=f"{field}.columns.{index}.config")
        except ValidationFailed as error:
            errors += error.details
    for index, rule in enumerate(structure.automations):
        try:
            msgspec.convert({**msgspec.to_builtins(rule), "boardId": "brd_check"}, rules.CreateInput)
        except msgspec.ValidationError as error:  # "Expected ..., got ... - at `$.trigger.type`"
            message, _, where = str(error).partition(" - at `$")
            path = where.rstrip("`").replace("[", ".").replace("]", "")
            errors.append(FieldError(f"{field}.automations.{index}{path}", message))
            continue
        try:  # a KPI rule with an item action, say
            check_fit(*(msgspec.to_builtins(part) for part in (rule.trigger, rule.conditions, rule.actions)))
        except ValidationFailed as error:
            errors.extend(FieldError(f"{field}.automations.{index}.{d.field}", d.message) for d in error.details)
    if errors:
        raise ValidationFailed.naming(errors)


def _skip(part: str, index: int, name: str, reason: str) -> dict[str, Any]:
    return {"part": part, "index": index, "name": name, "reason": reason}


async def build_board(node: Node, caller: Caller, structure: spec.Structure, *, project_id: str, name: str,
                      template_id: str) -> dict[str, Any]:
    """The new board (its `boards.get` view) with `templateId`, the `kpis` and `automations` created and
    `skipped[]`. `structure` must have passed `validate`."""
    calls = _Calls(node, caller)
    columns = [boards.NewColumn(c.name, c.type, None if c.type in shape.REFERRING_TYPES else c.config)
               for c in structure.columns]
    board = await calls.run(boards.CREATE, board_calls.create_board, boards.CreateBoardInput(
        projectId=project_id, name=name, defaultView=structure.defaultView,
        groups=[boards.NewGroup(g.name, g.color) for g in structure.groups], columns=columns))
    ids = {spec.BOARD_KEY: board["id"],
           **{g.key: new["id"] for g, new in zip(structure.groups, board["groups"], strict=True)},
           **{c.key: new["id"] for c, new in zip(structure.columns, board["columns"], strict=True)}}
    for column in structure.columns:
        settings = column.config if column.type in shape.REFERRING_TYPES else None
        if settings is not None or column.width != 150 or column.required:
            await calls.run(boards.COLUMNS_UPDATE, board_calls.update_column, boards.UpdateColumnInput(
                id=ids[column.key], config=None if settings is None else shape.remap(settings, ids),
                width=column.width, required=column.required))
    skipped: list[dict[str, Any]] = []
    kpis = await _kpis(calls, structure, board["id"], skipped)
    kpi_ids = {f"{shape.KPI_KEY}{index}": kpi["id"] for index, kpi in kpis.items()}
    automations = await _automations(calls, structure, ids, kpi_ids, skipped)
    view = await calls.run(boards.GET, board_calls.get_board, boards.BoardIdInput(board["id"]))
    return {**view, "templateId": template_id, "kpis": list(kpis.values()), "automations": automations,
            "skipped": skipped}


async def _kpis(calls: _Calls, structure: spec.Structure, board_id: str,
                skipped: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The KPIs made, by their index in the structure."""
    created = {}
    today = calls.node.clock.now().date()
    for index, kpi in enumerate(structure.kpis):
        if not calls.allows(kpi_spec.DEFINE):
            skipped.append(_skip("kpis", index, kpi.name, "the organization's plan does not include kpis"))
            continue
        try:
            defined = await calls.run(kpi_spec.DEFINE, kpi_handlers.define, kpi_spec.DefineInput(
                boardId=board_id, name=kpi.name, category=kpi.category, direction=kpi.direction,
                frequency=kpi.frequency, unit=kpi.unit, thresholds=kpi.thresholds))
            if kpi.target is not None:
                await calls.run(kpi_spec.SET_TARGET, kpi_handlers.set_target, kpi_spec.SetTargetInput(
                    kpiId=defined["id"], value=kpi.target.value, deadline=today + timedelta(days=kpi.target.days)))
        except ApiError as error:  # a plan limit, say: the board stands, the reply says what is missing
            skipped.append(_skip("kpis", index, kpi.name, error.message))
            continue
        created[index] = {"id": defined["id"], "name": defined["name"], "category": defined["category"]}
    return created


async def _automations(calls: _Calls, structure: spec.Structure, ids: dict[str, str], kpi_ids: dict[str, str],
                       skipped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rules, re-pointed at the new board's groups, columns and KPIs (a rule for one KPI that was left out
    is left out too)."""
    created = []
    ids = {**ids, **kpi_ids}
    for index, rule in enumerate(structure.automations):
        kpi_key = rule.trigger.config.get("kpiId") if rule.trigger.type == shape.KPI_TRIGGER else None
        if kpi_key is not None and kpi_key not in kpi_ids:
            skipped.append(_skip("automations", index, rule.name, f"its KPI ({kpi_key}) was left out"))
            continue
        if not calls.allows(rules.CREATE):
            skipped.append(_skip("automations", index, rule.name,
                                 "the organization's plan does not include automations"))
            continue
        data = msgspec.convert({**shape.remap_rule(msgspec.to_builtins(rule), ids), "boardId": ids[spec.BOARD_KEY]},
                               rules.CreateInput)
        try:
            made = await calls.run(rules.CREATE, automation_handlers.create, data)
        except ApiError as error:
            skipped.append(_skip("automations", index, rule.name, error.message))
            continue
        created.append({"id": made["id"], "name": made["name"], "trigger": made["trigger"]["type"]})
    return created
