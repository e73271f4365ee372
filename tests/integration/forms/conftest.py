"""Form fixtures: a board with the columns a form maps onto, a valid forms.create input, and the respondent's
side through the real public paths: uploads (`add_file`), a verified e-mail's form session (`add_form_session`,
forms.requestOtp + the code from the stored e-mail + forms.verifyOtp; the test's server runs the `form-otp`
worker) and a distribution recipient with the tracking token its e-mail carries (`add_recipient`)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from actors.kernel import sealing
from tests.harness import Api, Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.files.conftest import PNG, upload
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
                 query: str = "", session: str | None = None) -> Any:
    """POST the answers to the public submit path, with an Idempotency-Key and a form session's bearer token
    when given."""
    headers = {"Idempotency-Key": key} if key else {}
    if session is not None:
        headers["Authorization"] = f"Bearer {session}"
    return await api.rest("POST", f"/api/forms/{form_ref}/submit{query}", body, headers=headers)


async def submissions(board: Board, form_id: str) -> list[dict[str, Any]]:
    reply = await board.api.query("forms.submissions.list", {"formId": form_id})
    assert reply.status == 200, reply.body
    return list(reply.data["submissions"])


async def add_file(org: Org, *, form_id: str | None = None, name: str = "photo.png") -> str:
    """A PNG uploaded by an anonymous respondent to form `form_id` (`POST /api/forms/<id>/files`), or without
    one by the organization's owner (`POST /api/v1/files`); its id."""
    path = f"/api/forms/{form_id}/files" if form_id else "/api/v1/files"
    reply = await upload(org.anonymous if form_id else org.owner, PNG, name, path=path)
    assert reply.status == 201, reply.body
    return str(reply.data["id"])


async def mailed_text(org: Org, to: str, kind: str) -> str:
    """The text the newest e-mail of `kind` to `to` carries, secrets included (opened from its sealed copy, as
    the mail sender would: the stored body shows them redacted)."""
    pool = org.anonymous.client.server.app[NODE].pool
    sealed = await pool.fetchval(
        """SELECT sealed_body FROM emails WHERE organization_id = $1 AND lower(recipient) = lower($2) AND kind = $3
           ORDER BY created_at DESC LIMIT 1""", org.id, to, kind)
    assert sealed is not None, f"no {kind} e-mail to {to}"
    return await sealing.open_sealed(pool, sealed, None)


async def add_form_session(org: Org, form: dict[str, Any], email: str) -> str:
    """A session token for the form and e-mail the way a respondent gets one: forms.requestOtp, the code from
    the e-mail the `form-otp` worker queued, forms.verifyOtp."""
    requested = await org.anonymous.mutate("forms.requestOtp", {"formSlug": form["slug"],
                                                                 "organizationSlug": org.slug, "email": email})
    assert requested.status == 200 and requested.data == {"sent": True}, requested.body
    await org.anonymous.client.server.app[NODE].workers.idle()
    code = re.search(r": (\d{6})\n", await mailed_text(org, email, "form_otp"))
    assert code, "no code in the e-mail"
    verified = await org.anonymous.mutate("forms.verifyOtp", {"formId": form["id"], "email": email,
                                                               "code": code[1]})
    assert verified.status == 200 and verified.data["valid"] is True, verified.body
    return str(verified.data["sessionToken"])


async def add_recipient(org: Org, form_id: str, email: str) -> tuple[str, str]:
    """A distribution recipient made by forms.createDistribution, and the tracking token its e-mail links to."""
    sent = await org.owner.mutate("forms.createDistribution", {"formId": form_id, "recipients": [{"email": email}]})
    assert sent.status == 200, sent.body
    status = await org.owner.query("forms.getDistributionStatus", {"formId": form_id})
    [recipient_id] = [r["id"] for r in status.data["recipients"] if r["email"].lower() == email.lower()]
    token = re.search(r"/forms/\S+\?t=(\S+)", await mailed_text(org, email, "form_distribution"))
    assert token, "no link in the e-mail"
    return str(recipient_id), token[1]
