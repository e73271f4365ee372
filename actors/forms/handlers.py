"""Forms and submissions procedures: list, get, create, update and delete forms, and list, read
and move their submissions. Forms are a service of plain transactions (docs/architecture.md): each change writes its
row and an activity entry in one transaction; a form entering `published` emits `form.published` on its
board's stream. A form is found only through a board the caller sees (404 otherwise, also for another
organization's form)."""

from __future__ import annotations

import re
from typing import Any

import asyncpg
import msgspec

from actors.approvals.intake import blocks_form_deletion
from actors.forms.access import visible_form
from actors.forms.views import form_summary, form_view, submission_view, version_view
from actors.kernel.access import require_board_access
from actors.kernel.events import board_stream
from actors.kernel.handlers import Implementations
from actors.kernel.node import Node
from actors.kernel.partial_update import given_fields
from actors.kernel.write import UnitOfWork
from protocol import forms as proto
from protocol.caller import Caller
from protocol.errors import BadRequest, Conflict, FieldError, NotFound, ValidationFailed
from protocol.form_schema import FormSchema, FormSettings, Mapping
from protocol.ids import Prefix, new_id
from protocol.pagination import Page, decode_time_cursor, page_limit, time_page
from storage import access as access_repo
from storage import form_definitions as repo
from storage import form_submissions as submissions
from storage.connection import Conn
from storage.forms import get_submission

procedures = Implementations()

_UPDATABLE = ("name", "description", "slug", "status", "schema", "mappings", "settings")
_CHOICE_TYPES = ("select", "radio")
MAX_SLUG = 80



def _check_schema(schema: FormSchema) -> None:
    faults: list[FieldError] = []
    seen: set[str] = set()
    for index, component in enumerate(schema.components):
        if component.key in seen:
            faults.append(FieldError(f"schema.components.{index}.key", f"key {component.key!r} is used twice"))
        seen.add(component.key)
        if component.type in _CHOICE_TYPES and not (component.data and component.data.values):
            faults.append(FieldError(f"schema.components.{index}.data.values", "a choice needs its values"))
    if faults:
        raise ValidationFailed.naming(faults)


async def _mapping_faults(conn: Conn, org_id: str, board_id: str, schema: FormSchema,
                          mappings: list[Mapping]) -> list[FieldError]:
    keys = {component.key for component in schema.components}
    columns = set(await repo.board_columns(conn, org_id, board_id))
    faults: list[FieldError] = []
    for index, mapping in enumerate(mappings):
        if mapping.formField not in keys:
            faults.append(FieldError(f"mappings.{index}.formField", "is not a key of the form's schema"))
        if mapping.target == "column":
            if mapping.columnId not in columns:
                faults.append(FieldError(f"mappings.{index}.columnId", "is not a column of the form's board"))
        elif mapping.columnId is not None:
            faults.append(FieldError(f"mappings.{index}.columnId", f"must be null for target {mapping.target}"))
    return faults


async def _settings_faults(conn: Conn, org_id: str, board_id: str, settings: FormSettings) -> list[FieldError]:
    faults: list[FieldError] = []
    if settings.groupId is not None and settings.groupId not in await repo.board_groups(conn, org_id, board_id):
        faults.append(FieldError("settings.groupId", "is not a group of the form's board"))
    active = set(await access_repo.member_ids(conn, org_id))
    for index, user_id in enumerate(settings.notifyOnSubmit):
        if user_id not in active:
            faults.append(FieldError(f"settings.notifyOnSubmit.{index}", "must be an active member"))
    if settings.redirectUrl is not None and not settings.redirectUrl.lower().startswith(("http://", "https://")):
        faults.append(FieldError("settings.redirectUrl", "must be an http or https URL"))
    return faults


async def _check(conn: Conn, org_id: str, board_id: str, schema: FormSchema, mappings: list[Mapping] | None,
                 settings: FormSettings | None) -> None:
    """The mappings (when given) against the schema and board, and the settings (when given); one 422."""
    faults = [] if mappings is None else await _mapping_faults(conn, org_id, board_id, schema, mappings)
    if settings is not None:
        faults += await _settings_faults(conn, org_id, board_id, settings)
    if faults:
        raise ValidationFailed.naming(faults)


def slug_base(name: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_SLUG - 6].strip("-")
    return base or "form"


async def _free_slug(conn: Conn, org_id: str, name: str) -> str:
    base = slug_base(name)
    taken = await repo.slugs_like(conn, org_id, base)
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


async def _given_slug(conn: Conn, org_id: str, slug: str, form_id: str | None) -> str:
    slug = slug.lower()
    if await repo.slug_taken(conn, org_id, slug, form_id):
        raise Conflict("that slug is taken by another form", details=[FieldError("slug", "is taken")])
    return slug


def _json(value: Any) -> Any:
    return msgspec.to_builtins(value)


def _published(uow: UnitOfWork, row: asyncpg.Record, view: dict[str, Any]) -> None:
    uow.emit(board_stream(row["board_id"]), "form.published", {"form": view})


@procedures.implement(proto.LIST)
async def list_forms(node: Node, caller: Caller, data: proto.ListFormsInput) -> dict[str, Any]:
    await require_board_access(node, caller, data.boardId)
    async with node.pool.acquire() as conn:
        rows = await repo.of_board(conn, caller.org_id, data.boardId)
        counts = await repo.submission_counts(conn, caller.org_id, [row["id"] for row in rows])
    base = _base_url(node, caller)
    return {"forms": [form_summary(row, base, counts.get(row["id"], 0)) for row in rows]}


def _base_url(node: Node, caller: Caller) -> str:
    assert caller.organization is not None
    return node.base_url(caller.organization.slug)


async def _full_view(node: Node, caller: Caller, conn: Conn, row: asyncpg.Record) -> dict[str, Any]:
    counts = await repo.submission_counts(conn, caller.org_id, [row["id"]])
    return form_view(row, _base_url(node, caller), counts.get(row["id"], 0))


@procedures.implement(proto.GET)
async def get_form_view(node: Node, caller: Caller, data: proto.FormIdInput) -> dict[str, Any]:
    row = await visible_form(node, caller, data.id)
    return await _full_view(node, caller, node.pool, row)


@procedures.implement(proto.CREATE)
async def create_form(node: Node, caller: Caller, data: proto.CreateFormInput) -> dict[str, Any]:
    _check_schema(data.schema)
    await require_board_access(node, caller, data.boardId)
    async with node.write(caller, missing=NotFound("board not found")) as uow:
        conn = uow.conn
        await _check(conn, caller.org_id, data.boardId, data.schema, data.mappings, data.settings)
        slug = await (_given_slug(conn, caller.org_id, data.slug, None) if data.slug is not None
                      else _free_slug(conn, caller.org_id, data.name))
        row = await repo.insert(conn, form_id=new_id(Prefix.FORM), org_id=caller.org_id, board_id=data.boardId,
                                slug=slug, name=data.name, description=data.description, status=data.status,
                                schema=_json(data.schema), mappings=_json(data.mappings),
                                settings=_json(data.settings), created_by=caller.user_id,
                                published_at=uow.now if data.status == "published" else None, now=uow.now)
        view = await _full_view(node, caller, conn, row)
        await uow.activity("form", row["id"], "form.created", {"boardId": data.boardId, "name": data.name})
        if data.status == "published":
            _published(uow, row, view)
    return view


@procedures.implement(proto.UPDATE)
async def update_form(node: Node, caller: Caller, data: proto.UpdateFormInput) -> dict[str, Any]:
    given = given_fields(data, _UPDATABLE, clearable=("description",))
    if not given:
        raise BadRequest("nothing to change", details=[FieldError("input", "give at least one field to change")])
    if "schema" in given:
        _check_schema(given["schema"])
    await visible_form(node, caller, data.id)
    async with node.write(caller) as uow:
        conn = uow.conn
        before = await repo.locked(conn, caller.org_id, data.id)
        if before is None:
            raise NotFound("form not found")
        board_id = before["board_id"]
        if "settings" in given:  # the named settings over the stored ones
            given["settings"] = msgspec.convert({**before["settings"], **_json(given["settings"])}, FormSettings)
        schema = given.get("schema") or msgspec.convert(before["schema"], FormSchema)
        mappings = None
        if "schema" in given or "mappings" in given:
            mappings = given["mappings"] if "mappings" in given else \
                msgspec.convert(before["mappings"], list[Mapping])
        await _check(conn, caller.org_id, board_id, schema, mappings, given.get("settings"))
        fields: dict[str, Any] = {}
        for name, value in given.items():
            if name == "slug":
                value = await _given_slug(conn, caller.org_id, value, data.id)
            elif name in ("schema", "mappings", "settings"):
                value = _json(value)
            if before[name] != value:
                fields[name] = value
        publishing = fields.get("status") == "published"
        if publishing:
            fields["published_at"] = uow.now
        if not fields:
            return await _full_view(node, caller, conn, before)
        row = await repo.update(conn, caller.org_id, data.id, fields, uow.now)
        view = await _full_view(node, caller, conn, row)
        changes = {name: {"old": before[name], "new": row[name]} for name in fields
                   if name in ("name", "slug", "status", "description")}
        await uow.activity("form", row["id"], "form.updated", {"boardId": board_id, "fields": sorted(fields),
                                                               "changes": changes})
        if publishing:
            _published(uow, row, view)
    return view


@procedures.implement(proto.DELETE)
async def delete_form(node: Node, caller: Caller, data: proto.FormIdInput) -> dict[str, Any]:
    row = await visible_form(node, caller, data.id)
    async with node.write(caller) as uow:
        if not await repo.lock_for_deletion(uow.conn, caller.org_id, data.id):
            raise NotFound("form not found")
        reason = await blocks_form_deletion(uow.conn, caller.org_id, data.id)
        if reason is not None:
            raise Conflict(reason)
        await repo.delete(uow.conn, caller.org_id, data.id)
        await uow.activity("form", data.id, "form.deleted", {"boardId": row["board_id"], "name": row["name"]})
    return {"success": True, "id": data.id}


async def _submission(node: Node, caller: Caller, submission_id: str) -> asyncpg.Record:
    row = await get_submission(node.pool, caller.org_id, submission_id)
    if row is None:
        raise NotFound("submission not found")
    try:
        await visible_form(node, caller, row["form_id"])
    except NotFound:
        raise NotFound("submission not found") from None
    return row


@procedures.implement(proto.SUBMISSIONS_LIST)
async def list_submissions(node: Node, caller: Caller, data: proto.ListSubmissionsInput) -> Page:
    limit = page_limit(data.limit)
    after = decode_time_cursor(data.cursor)
    await visible_form(node, caller, data.formId)
    rows = await submissions.page(node.pool, caller.org_id, data.formId, status=data.status, after=after,
                                  limit=limit + 1)
    return time_page(rows, limit, submission_view, "submissions", at="submitted_at")


@procedures.implement(proto.SUBMISSIONS_GET)
async def get_submission_view(node: Node, caller: Caller, data: proto.SubmissionIdInput) -> dict[str, Any]:
    row = await _submission(node, caller, data.id)
    versions = await submissions.versions(node.pool, caller.org_id, data.id)
    return {**submission_view(row), "versions": [version_view(version) for version in versions]}


@procedures.implement(proto.SUBMISSIONS_UPDATE)
async def update_submission(node: Node, caller: Caller, data: proto.UpdateSubmissionInput) -> dict[str, Any]:
    before = await _submission(node, caller, data.id)
    if before["status"] == data.status:
        return submission_view(before)
    async with node.write(caller) as uow:
        row = await submissions.set_status(uow.conn, caller.org_id, data.id, data.status, uow.now)
        if row is None:
            raise NotFound("submission not found")
        await uow.activity("form_submission", data.id, "form_submission.updated",
                           {"formId": row["form_id"], "changes": {"status": {"old": before["status"],
                                                                             "new": data.status}}})
    return submission_view(row)
