"""Uploading through the real routes (multipart, same-origin as a browser page would send it), and the forms
respondents upload to, made with `forms.create`."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from tests.harness import Api, Org, Reply
from tests.integration.boards.conftest import Board, make_board

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 4


@pytest.fixture
async def board(org: Org) -> Board:
    return await make_board(org)


async def upload(api: Api, data: bytes, name: str = "photo.png", content_type: str = "image/png",
                 path: str = "/api/v1/files", headers: dict[str, str] | None = None) -> Reply:
    form = aiohttp.FormData()
    form.add_field("file", data, filename=name, content_type=content_type)
    async with api.client.post(path, data=form, headers=api.headers(
            {"Origin": f"http://{api.host}", **(headers or {})})) as response:
        return await api._reply(response)


async def uploaded(api: Api, data: bytes = PNG, name: str = "photo.png") -> dict[str, Any]:
    reply = await upload(api, data, name)
    assert reply.status == 201, reply.body
    return dict(reply.data)


async def insert_form(org: Org, board_id: str, *, status: str = "published", require_auth: bool = False,
                      components: list[dict[str, Any]] | None = None) -> dict[str, str]:
    """A form of `board_id` made by its owner with `forms.create` (one file field `photos` unless `components`
    says otherwise) and moved to `status` with `forms.update`."""
    schema = {"components": components if components is not None else
              [{"type": "textfield", "key": "title", "label": "Title"},
               {"type": "file", "key": "photos", "label": "Photos", "multiple": True}]}
    made = await org.owner.mutate("forms.create", {"boardId": board_id, "name": "Defect report", "schema": schema,
                                                   "settings": {"successMessage": "Thanks",
                                                                "requireAuth": require_auth}})
    assert made.status == 200, made.body
    if status != "draft":
        moved = await org.owner.mutate("forms.update", {"id": made.data["id"], "status": status})
        assert moved.status == 200, moved.body
    return {"id": made.data["id"], "slug": made.data["slug"]}


async def status_of_a_declared_upload(org: Org, path: str, length: int, within: float) -> bytes:
    """The status line the server answers, within `within` seconds, to the headers of a multipart POST to `path`
    declaring `length` bytes: not one byte of the body is sent."""
    server = org.owner.client.server
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write((f"POST {path} HTTP/1.1\r\nHost: {org.host}\r\n"
                  f"Cookie: authjs.session-token={org.owner.session}\r\nOrigin: http://{org.host}\r\n"
                  "Content-Type: multipart/form-data; boundary=xyz\r\n"
                  f"Content-Length: {length}\r\n\r\n").encode())
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.readline(), within)
    finally:
        writer.close()
