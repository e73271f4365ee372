"""Form fixtures: a board with the columns a form maps onto, a valid forms.create input, and the respondent's
side (the public paths). Files and form sessions belong to other parts of issue 11: `add_file` and
`add_form_session` insert their rows directly, in one place each, until the real upload and OTP paths land."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

import pytest

from protocol.ids import new_id
from tests.harness import Api, Org
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE

COLUMNS = [{"name": "Status", "type": "status"}, {"name": "Quantity", "type": "number", "config": {"max": 100}},
           {"name": "Photos", "type": "file"}, {"name": "Line", "type": "text"}]


def schema() -> dict[str, Any]:
    return {"components": [
        {"type": "textfield", "key": "title", "label": "What happened?", "validate": {"required": True}},
        {"type": "textarea", "key": "details", "label": "Details"},
        {"type": "select", "key": "severity", "label": "Severity",
         "data": {"values": [{"label": "Low", "value": "low"}, {"label": "High", "value": "high"}]}},
        {"type": "number", "key": "quantity", "label": "Parts affected"},
        {"type": "email", "key": "contact", "label": "Your e-mail"},
        {"type": "file", "key": "photos", "label": "Photos", "multiple": True},
        {"type": "textfield", "key": "line", "label": "Line"},
    ]}


async def form_board(org: Org) -> Board:
    return await make_board(org, columns=COLUMNS)


@pytest.fixture
async def fboard(org: Org) -> Board:
    return await form_board(org)


def column_id(board: Board, name: str) -> str:
    return str(next(c["id"] for c in board.view["columns"] if c["name"] == name))


def form_input(board: Board, **fields: Any) -> dict[str, Any]:
    """A valid forms.create input mapping title, details, quantity, photos and line onto the board."""
    return {"boardId": board.id, "name": "Defect report", "schema": schema(),
            "mappings": [{"formField": "title", "target": "item_name", "columnId": None},
                         {"formField": "details", "target": "item_description", "columnId": None},
                         {"formField": "quantity", "target": "column", "columnId": column_id(board, "Quantity")},
                         {"formField": "photos", "target": "column", "columnId": column_id(board, "Photos")},
                         {"formField": "line", "target": "column", "columnId": column_id(board, "Line")}],
            "settings": {"successMessage": "Thanks, we are on it."}, **fields}


async def create_form(board: Board, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or board.api).mutate("forms.create", form_input(board, **fields))
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def published_form(board: Board, **fields: Any) -> dict[str, Any]:
    return await create_form(board, status="published", **fields)


async def submit(api: Api, form_ref: str, body: dict[str, Any], *, key: str | None = None,
                 query: str = "") -> Any:
    headers = {"Idempotency-Key": key} if key else None
    return await api.rest("POST", f"/api/forms/{form_ref}/submit{query}", body, headers=headers)


async def submissions(board: Board, form_id: str) -> list[dict[str, Any]]:
    reply = await board.api.query("forms.submissions.list", {"formId": form_id})
    assert reply.status == 200, reply.body
    return list(reply.data["submissions"])


async def add_file(org: Org, *, form_id: str | None = None, uploaded_by: str | None = None,
                   name: str = "photo.png") -> str:
    """A stored file description (the files part owns uploads)."""
    node = org.anonymous.client.server.app[NODE]
    file_id = new_id("file")
    async with node.pool.acquire() as conn:
        await conn.execute(
            """INSERT INTO files (id, organization_id, name, content_type, size, sha256, uploaded_by, form_id,
                                  created_at) VALUES ($1, $2, $3, 'image/png', 4, $4, $5, $6, $7)""",
            file_id, org.id, name, hashlib.sha256(b"\x89PNG").hexdigest(), uploaded_by, form_id,
            node.clock.now())
    return file_id


async def add_form_session(org: Org, form_id: str, email: str) -> str:
    """A forms.verifyOtp session token for the form and e-mail (the respondents part owns OTP)."""
    node = org.anonymous.client.server.app[NODE]
    token = "svc_fst_" + secrets.token_urlsafe(32)
    async with node.pool.acquire() as conn:
        await conn.execute(
            """INSERT INTO form_sessions (token_hash, organization_id, form_id, email, expires_at, created_at)
               VALUES ($1, $2, $3, $4, $5, $6)""", hashlib.sha256(token.encode()).hexdigest(), org.id, form_id,
            email, node.clock.now() + timedelta(hours=24), node.clock.now())
    return token


async def add_recipient(org: Org, form_id: str, email: str) -> tuple[str, str]:
    """A distribution recipient and its tracking token (the respondents part owns distribution)."""
    node = org.anonymous.client.server.app[NODE]
    token, recipient_id = secrets.token_urlsafe(24), new_id("rcp")
    async with node.pool.acquire() as conn:
        await conn.execute(
            """INSERT INTO form_recipients (id, organization_id, form_id, email, token_hash, sent_at)
               VALUES ($1, $2, $3, $4, $5, $6)""", recipient_id, org.id, form_id, email,
            hashlib.sha256(token.encode()).hexdigest(), node.clock.now())
    return recipient_id, token
