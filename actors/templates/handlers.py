"""The `templates.*` procedures: vendor templates (read-only data, actors/templates/vendor.py) and
the organization's own, saved from a board; applying either builds a new board (actors/templates/build.py).

Reading and using templates is for members and up; a tenant template is changed or deleted by its creator or
an admin (docs/decisions.md, "Template structure and use").
"""

from __future__ import annotations

from typing import Any

import msgspec

from actors.board import board_calls
from actors.kernel.access import require_board_access
from actors.kernel.authorization import authorize
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.templates import build, vendor
from actors.templates import structure as shape
from protocol import boards
from protocol import templates as spec
from protocol.caller import Caller
from protocol.errors import BadRequest, FieldError, Forbidden, NotFound, ValidationFailed
from protocol.ids import Prefix, new_id
from protocol.registry import EmptyInput, Role
from storage import automations as automation_repo
from storage import kpis as kpi_repo
from storage import templates as repo

procedures = Implementations()


class Found(msgspec.Struct, frozen=True):
    """A template as apply and getById need it, vendor or the organization's."""

    view: dict[str, Any]
    structure: spec.Structure
    vendor: bool


async def find(node: Node, caller: Caller, template_id: str, field: str = "id") -> Found:
    """The vendor template, or the organization's template, with this id; NotFound naming `field` otherwise."""
    if template_id.startswith(spec.VENDOR_PREFIX):
        template = vendor.BY_ID.get(template_id)
        if template is not None:
            return Found(vendor.view(template), template.structure, True)
    else:
        row = await repo.get(node.pool, caller.org_id, template_id)
        if row is not None:
            return Found(shape.tenant_view(row), shape.stored(row), False)
    raise NotFound("template not found", details=[FieldError(field, "no such template")])


async def _own(node: Node, caller: Caller, template_id: str) -> dict[str, Any]:
    """A tenant template the caller may change: its creator or an admin; vendor templates are read-only."""
    if template_id.startswith(spec.VENDOR_PREFIX) and template_id in vendor.BY_ID:
        raise Forbidden("vendor templates cannot be changed or deleted")
    view = (await find(node, caller, template_id)).view
    if view["createdBy"] != caller.uid and (caller.role is None or caller.role < Role.ADMIN):
        raise Forbidden("only the template's creator or an admin may change it")
    return view


async def apply_template(node: Node, caller: Caller, template_id: str, *, project_id: str, name: str,
                         overrides: spec.Overrides | None, field: str,
                         overrides_field: str = "overrides") -> dict[str, Any]:
    """A new board built from the template; `field` and `overrides_field` name the template id and the
    overrides in the caller's input, for errors."""
    found = await find(node, caller, template_id, field)
    structure = shape.merged(found.structure, overrides)
    build.validate(structure, overrides_field if overrides is not None else field)
    board = await build.build_board(node, caller, structure, project_id=project_id, name=name, template_id=template_id)
    async with node.write(caller) as uow:
        if not found.vendor:
            await repo.count_use(uow.conn, caller.org_id, template_id)
        await uow.activity("template", template_id, "template.applied", {"boardId": board["id"], "name": name})
    return board


@procedures.implement(spec.LIST_VENDOR)
async def list_vendor(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    return {"templates": [vendor.view(template) for template in vendor.TEMPLATES]}


@procedures.implement(spec.LIST_TENANT)
async def list_tenant(node: Node, caller: Caller, data: EmptyInput) -> dict[str, Any]:
    rows = await repo.list_for_organization(node.pool, caller.org_id)
    return {"templates": [shape.tenant_view(row) for row in rows]}


@procedures.implement(spec.GET)
async def get(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    found = await find(node, caller, data.id)
    return shape.detail(found.view, found.structure)


@procedures.implement(spec.CREATE)
async def create(node: Node, caller: Caller, data: spec.CreateInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.sourceBoardId)
    authorize(boards.GET, caller)
    board = await board_calls.get_board(node, caller, boards.BoardIdInput(data.sourceBoardId))
    async with node.pool.acquire() as conn:
        kpis = await kpi_repo.list_for_board(conn, caller.org_id, board["id"]) if data.includeKpis else []
        rules = (await automation_repo.list_for_board(conn, caller.org_id, board["id"])
                 if data.includeAutomations else [])
    structure = shape.snapshot(board, reversed(kpis), rules, node.clock.now().date())  # KPIs oldest first
    for part, count in shape.counts(structure).items():
        if count > spec.LIMITS[part]:
            raise ValidationFailed.of("sourceBoardId", f"the board has {count} {part}; a template holds at most "
                                      f"{spec.LIMITS[part]}")
    # A rule or formula still naming a deleted group or column would make a template no one can apply.
    build.validate(structure, "sourceBoardId")
    async with node.write(caller) as uow:
        row = await repo.insert(uow.conn, template_id=new_id(Prefix.TEMPLATE), org_id=caller.org_id, name=data.name,
                                description=data.description, category=data.category, tags=data.tags,
                                source_board_id=board["id"], created_by=caller.uid,
                                structure=msgspec.to_builtins(structure), now=uow.now)
        await uow.activity("template", row["id"], "template.created",
                           {"name": data.name, "sourceBoardId": board["id"], **shape.counts(structure)})
    return shape.detail(shape.tenant_view(row), structure)


@procedures.implement(spec.APPLY)
async def apply(node: Node, caller: Caller, data: spec.ApplyInput) -> dict[str, Any]:
    return await apply_template(node, caller, data.templateId, project_id=data.projectId, name=data.boardName,
                                overrides=data.overrides, field="templateId")


@procedures.implement(spec.UPDATE)
async def update(node: Node, caller: Caller, data: spec.UpdateInput) -> dict[str, Any]:
    changes = {key: value for key in ("name", "description") if (value := getattr(data, key)) is not None}
    if not changes:
        raise BadRequest("nothing to change", details=[FieldError("input", "give a name or a description")])
    await _own(node, caller, data.id)
    async with node.write(caller) as uow:
        row = await repo.update(uow.conn, caller.org_id, data.id, changes, uow.now)
        if row is None:
            raise NotFound("template not found", details=[FieldError("id", "no such template")])
        await uow.activity("template", data.id, "template.updated", {"changes": changes})
    return shape.tenant_view(row)


@procedures.implement(spec.DELETE)
async def delete(node: Node, caller: Caller, data: spec.IdInput) -> dict[str, Any]:
    view = await _own(node, caller, data.id)
    async with node.write(caller) as uow:
        if not await repo.delete(uow.conn, caller.org_id, data.id):
            raise NotFound("template not found", details=[FieldError("id", "no such template")])
        await uow.activity("template", data.id, "template.deleted", {"name": view["name"]})
    return {"success": True, "id": data.id}
