"""Storing an upload and opening a file for download, for members (`/api/v1/files`) and for the respondents of a
published form with a file field (`/api/forms/<form_id>/files`). The route streams the body under
`MAX_FILE_BYTES`; here the bytes are checked, typed by their content (sniff.py), kept in the node's FileStore,
then described in `files`."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any
from urllib.parse import unquote

import asyncpg
import msgspec

from actors.approvals.intake import revision_answers
from actors.files.sniff import sniff
from actors.files.store import FILE_STORE
from actors.files.views import file_view
from actors.forms.access import find_form
from actors.forms.respondents import recipient_stage, session_email
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import BadRequest, Conflict, NotFound, Unauthorized, ValidationFailed
from protocol.form_schema import FormSchema, FormSettings
from protocol.ids import Prefix, new_id
from storage import files as repo

MAX_FILE_BYTES = 25 * 1024 * 1024
MAX_NAME_CHARS = 255
# Dropped from names: control characters, format characters (bidi overrides make `exe.pdf` of `fdp.exe`),
# line and paragraph separators, and the surrogates that stand for bytes that were not UTF-8 (not storable).
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def clean_name(claimed: str | None) -> str:
    """The file's name as given, without directories or invisible characters, at most 255 characters.
    Percent escapes are decoded: browsers send `"` as %22 and aiohttp's client escapes every non-ASCII byte."""
    name = re.split(r"[\\/]", unquote(claimed or ""))[-1]
    name = "".join(c for c in name if unicodedata.category(c) not in _UNSAFE_CATEGORIES).strip()
    return name[:MAX_NAME_CHARS] or "file"


async def store_file(node: Node, caller: Caller, *, name: str | None, data: bytes,
                     form_id: str | None = None, token: str | None = None) -> dict[str, Any]:
    """Keep an upload of the caller's organization; with `token`, the form's recipient has started."""
    if not data:
        raise ValidationFailed.of("file", "is empty")
    if len(data) > MAX_FILE_BYTES:
        raise ValidationFailed.of("file", f"is larger than {MAX_FILE_BYTES} bytes")
    org = caller.organization
    assert org is not None
    file_id = new_id(Prefix.FILE)
    await node.plugins[FILE_STORE].put(org.id, file_id, data)
    async with node.write(caller, org_id=org.id) as uow:
        row = await repo.insert_file(uow.conn, id=file_id, org_id=org.id, name=clean_name(name),
                                     content_type=sniff(data), size=len(data),
                                     sha256=hashlib.sha256(data).hexdigest(),
                                     uploaded_by=caller.user_id if caller.is_member else None,
                                     form_id=form_id, now=uow.now)
        if form_id is not None and token:
            await recipient_stage(uow.conn, org.id, form_id, token, "started", uow.now)
    return file_view(node.base_url(org.slug), row)


async def open_file(node: Node, caller: Caller, file_id: str) -> tuple[asyncpg.Record, bytes]:
    """The description and bytes of a file of the caller's organization (another's is not found)."""
    org = caller.organization
    # An id holding U+0000 names no file (and PostgreSQL refuses the character).
    row = await repo.get_file(node.pool, org.id, file_id) if org is not None and "\x00" not in file_id else None
    data = await node.plugins[FILE_STORE].read(org.id, file_id) if org is not None and row is not None else None
    if row is None or data is None:
        raise NotFound("file not found")
    return row, data


async def form_for_upload(node: Node, caller: Caller, form_ref: str, form_session: str | None,
                          revision: str | None = None) -> str:
    """The id of the published form `form_ref` (id or slug) a respondent may upload to, or why not: an unknown
    or draft form is 404, a closed one 409 unless `revision` is a live revision link of it (a respondent
    revising an answer taken before the form closed may add a file), one without a file field 400; a
    `requireAuth` form needs a member or a live form session (401)."""
    org = caller.organization
    if org is None:
        raise NotFound("form not found")
    form = await find_form(node.pool, org.id, form_ref)
    if form is None or form["status"] == "draft":
        raise NotFound("form not found")
    if form["status"] == "closed" and (
            not revision or await revision_answers(node, org.id, form["id"], revision) is None):
        raise Conflict("form is closed")
    schema = msgspec.convert(form["schema"], FormSchema)
    if not any(component.type == "file" for component in schema.components):
        raise BadRequest("this form takes no files")
    settings = msgspec.convert(form["settings"], FormSettings)
    if settings.requireAuth and not caller.is_member and (
            form_session is None
            or await session_email(node.pool, org.id, form["id"], form_session, node.clock.now()) is None):
        raise Unauthorized("this form needs a signed-in member or a verified e-mail session")
    form_id: str = form["id"]
    return form_id
