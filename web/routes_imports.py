"""The CSV upload, step 1 of an import (docs/import.md): `POST /api/trpc/import.uploadCsv` with multipart/form-data
(fields `file`, `boardId`, optional `delimiter`), answered in the tRPC envelope like every RPC call. The body is
streamed: a declared or actual file past 10 MB is 413 before it is read in full, and each chunk is checked as
UTF-8 as it arrives, so a file in another encoding is refused (400 naming `file` and the problem) without being
read to its end. The other steps are JSON procedures served by the RPC router."""

from __future__ import annotations

from aiohttp import web

from actors.imports.csv_file import Utf8Check
from actors.imports.handlers import create_session
from actors.kernel.authorization import authorize
from protocol.caller import Caller
from protocol.errors import FieldError, PayloadTooLarge, ValidationFailed
from protocol.imports import MAX_CSV_BYTES, UPLOAD
from web.envelopes import json_response, rpc_result
from web.keys import CALLER, NODE, PROCEDURE
from web.routes_files import CHUNK_BYTES, MULTIPART_SLACK, malformed_multipart_refused, next_part

PATH = f"/api/trpc/{UPLOAD.name}"
# `boardId` and `delimiter` are short; a longer field is not one of them.
MAX_FIELD_BYTES = 1024
# A tab is awkward to type into a form field: its name is accepted for it.
_NAMED_DELIMITERS = {"tab": "\t", "\\t": "\t"}


def _too_large() -> PayloadTooLarge:
    return PayloadTooLarge(f"a CSV file may have at most {MAX_CSV_BYTES} bytes (10 MB)",
                           details=[FieldError("file", f"is larger than {MAX_CSV_BYTES} bytes")])


async def _read_upload(request: web.Request) -> tuple[str | None, bytearray, dict[str, str]]:
    """The file's name and bytes (kept as they came in: no copy of up to 10 MB), and the other fields' text."""
    declared = request.content_length
    if declared is not None and declared > MAX_CSV_BYTES + MULTIPART_SLACK:
        raise _too_large()
    if not request.content_type.startswith("multipart/"):
        raise ValidationFailed.of("file", "send multipart/form-data with the CSV file in the field `file`")
    found: tuple[str | None, bytearray] | None = None
    fields: dict[str, str] = {}
    with malformed_multipart_refused():
        reader = await request.multipart()
        total = 0
        # Read to the closing boundary: a body cut short must not leave a session of what came of it.
        while (part := await next_part(reader)) is not None:
            is_file = part.name == "file" and found is None
            check = Utf8Check() if is_file else None
            kept = bytearray()
            while chunk := await part.read_chunk(CHUNK_BYTES):
                total += len(chunk)
                if total > MAX_CSV_BYTES + MULTIPART_SLACK or len(kept) + len(chunk) > MAX_CSV_BYTES:
                    raise _too_large()
                if check is not None:
                    check.feed(chunk)
                    kept += chunk
                elif part.name in ("boardId", "delimiter") and part.name not in fields:
                    if len(kept) + len(chunk) > MAX_FIELD_BYTES:
                        raise ValidationFailed.of(part.name, "is too long")
                    kept += chunk
            if check is not None:
                check.close()
                found = part.filename, kept
            elif part.name in ("boardId", "delimiter") and part.name not in fields:
                try:
                    fields[part.name] = kept.decode("utf-8")
                except UnicodeDecodeError:
                    raise ValidationFailed.of(part.name, "is not UTF-8 text") from None
    if found is None:
        raise ValidationFailed.of("file", "is missing")
    return found[0], found[1], fields


async def upload_csv(request: web.Request) -> web.Response:
    request[PROCEDURE] = UPLOAD.name
    caller: Caller = request[CALLER]
    authorize(UPLOAD, caller)
    name, content, fields = await _read_upload(request)
    board_id = fields.get("boardId", "").strip()
    if not board_id or len(board_id) > 64 or "\x00" in board_id:
        raise ValidationFailed.of("boardId", "is required" if not board_id else "is not a board id")
    delimiter = fields.get("delimiter") or None
    delimiter = _NAMED_DELIMITERS.get(delimiter, delimiter) if delimiter is not None else None
    view = await create_session(request.app[NODE], caller, board_id=board_id, file_name=name, content=content,
                                delimiter=delimiter)
    return json_response(rpc_result(view))


def add_import_routes(app: web.Application) -> None:
    app.router.add_post(PATH, upload_csv)
