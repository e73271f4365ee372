"""File routes (docs/forms-and-approvals.md): `POST /api/v1/files` (members who may write),
`GET /api/v1/files/{id}` (any member) and `POST /api/forms/{form_id}/files` (respondents of a published form
with a file field). Uploads are streamed: a declared or actual body past 25 MB is 413 before it is read in full
(the app's `client_max_size` only bounds whole-body reads). Files are served as downloads that no browser
renders in the organization's origin."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from urllib.parse import quote

from aiohttp import BodyPartReader, MultipartReader, web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from actors.files.sniff import DOCX, OCTET_STREAM, XLSX
from actors.files.uploads import MAX_FILE_BYTES, form_for_upload, open_file, store_file
from actors.kernel.authorization import authorize
from protocol.caller import Caller
from protocol.errors import BadRequest, PayloadTooLarge, ValidationFailed
from protocol.files import READ, UPLOAD
from protocol.registry import Procedure
from web.envelopes import json_response
from web.keys import CALLER, FORM_SESSION, NODE, PROCEDURE

# Room for the multipart framing (boundaries, part headers, other small fields) around the file itself.
MULTIPART_SLACK = 64 * 1024
CHUNK_BYTES = 256 * 1024
# Served as what they are; every other type (html, svg, xml, scripts, anything unknown) as a plain download.
SERVED_AS_IS = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf",
                          "application/zip", DOCX, XLSX, "text/plain", "text/csv"})


def _too_large() -> PayloadTooLarge:
    return PayloadTooLarge(f"a file may have at most {MAX_FILE_BYTES} bytes (25 MB)")


@contextlib.contextmanager
def malformed_multipart_refused() -> Iterator[None]:
    """While reading a multipart body: aiohttp's refusals of a malformed one are 400s, not 500s."""
    try:
        yield
    except (ValueError, AssertionError) as error:
        raise BadRequest(f"malformed multipart body: {error}") from None
    # A part header that is invalid (a NUL) or too long; a body that its Content-Encoding does not decode.
    except (HttpProcessingError, RequestPayloadError):
        raise BadRequest("malformed multipart body: a part header or the body's encoding is invalid") from None


async def next_part(reader: MultipartReader) -> BodyPartReader | None:
    """The body's next part (None after the closing boundary); a nested multipart body is refused."""
    part = await reader.next()
    if part is not None and not isinstance(part, BodyPartReader):
        raise BadRequest("nested multipart bodies are not accepted")
    return part


async def read_file_part(request: web.Request) -> tuple[str | None, bytes]:
    """The name and bytes of the multipart field `file`, read with a running cap over the whole body."""
    declared = request.content_length
    if declared is not None and declared > MAX_FILE_BYTES + MULTIPART_SLACK:
        raise _too_large()
    if not request.content_type.startswith("multipart/"):
        raise ValidationFailed.of("file", "send multipart/form-data with the file in the field `file`")
    found: tuple[str | None, bytes] | None = None
    with malformed_multipart_refused():
        reader = await request.multipart()
        total = 0
        # Read to the closing boundary even after the file: a body cut short must not store what came of it.
        while (part := await next_part(reader)) is not None:
            keep = part.name == "file" and found is None
            kept = bytearray()
            while chunk := await part.read_chunk(CHUNK_BYTES):
                total += len(chunk)
                if total > MAX_FILE_BYTES + MULTIPART_SLACK or len(kept) + len(chunk) > MAX_FILE_BYTES:
                    raise _too_large()
                if keep:
                    kept += chunk
            if keep:
                found = part.filename, bytes(kept)
    if found is None:
        raise ValidationFailed.of("file", "is missing")
    return found


def _caller(request: web.Request, procedure: Procedure | None) -> Caller:
    caller: Caller = request[CALLER]
    if procedure is not None:
        request[PROCEDURE] = procedure.name
        authorize(procedure, caller)
    return caller


async def upload(request: web.Request) -> web.Response:
    caller = _caller(request, UPLOAD)
    name, data = await read_file_part(request)
    return json_response({"data": await store_file(request.app[NODE], caller, name=name, data=data)}, 201)


async def upload_for_form(request: web.Request) -> web.Response:
    caller = _caller(request, None)
    node = request.app[NODE]
    form_id = await form_for_upload(node, caller, request.match_info["form_id"], request.get(FORM_SESSION),
                                    request.query.get("revision"))
    name, data = await read_file_part(request)
    view = await store_file(node, caller, name=name, data=data, form_id=form_id, token=request.query.get("t"))
    return json_response({"data": view}, 201)


def content_disposition(name: str) -> str:
    fallback = "".join(c if " " <= c < "\x7f" and c not in '"\\' else "_" for c in name)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def served_type(content_type: str) -> str:
    if content_type not in SERVED_AS_IS:
        return OCTET_STREAM
    return f"{content_type}; charset=utf-8" if content_type.startswith("text/") else content_type


async def download(request: web.Request) -> web.Response:
    caller = _caller(request, READ)
    row, data = await open_file(request.app[NODE], caller, request.match_info["id"])
    return web.Response(body=data, headers={
        "Content-Type": served_type(row["content_type"]), "Content-Disposition": content_disposition(row["name"]),
        "X-Content-Type-Options": "nosniff", "Cache-Control": "private",
        "Content-Security-Policy": "default-src 'none'; sandbox"})


def add_file_routes(app: web.Application) -> None:
    app.router.add_post("/api/v1/files", upload)
    app.router.add_get("/api/v1/files/{id}", download)
    app.router.add_post("/api/forms/{form_id}/files", upload_for_form)
