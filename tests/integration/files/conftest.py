"""Uploading through the real routes (multipart, same-origin as a browser page would send it), and the one
helper that makes a form row directly (FORMS is another branch: swap it for `forms.create` after merging)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from protocol.ids import new_id
from tests.harness import Api, Org, Reply
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE

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
    """A form of `board_id` straight into `forms` (one file field `photos` unless `components` says otherwise)."""
    node = org.anonymous.client.server.app[NODE]
    form_id = new_id("frm")
    slug = f"form-{form_id[-8:].lower()}"
    schema = {"components": components if components is not None else
              [{"type": "textfield", "key": "title", "label": "Title"},
               {"type": "file", "key": "photos", "label": "Photos", "multiple": True}]}
    settings = {"successMessage": "Thanks", "redirectUrl": None, "notifyOnSubmit": [], "groupId": None,
                "requireAuth": require_auth, "allowMultiple": True}
    now = node.clock.now()
    await node.pool.execute(
        """INSERT INTO forms (id, organization_id, board_id, slug, name, status, schema, mappings, settings,
                              created_by, published_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'Defect report', $5, $6, '[]', $7, $8, $9, $9, $9)""",
        form_id, org.id, board_id, slug, status, schema, settings, org.owner_id, now)
    return {"id": form_id, "slug": slug}
