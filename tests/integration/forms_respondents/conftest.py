"""Respondent fixtures: a server on the test's clock that mails through the real SMTP sink and runs the
`form-otp` worker, a form made in ONE helper (`make_form`, rows inserted directly until forms.create
exists on this branch), and reading what the sink received."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from typing import Any

import aiohttp
import pytest

from actors.runtime.clock import ManualClock
from protocol.ids import new_id
from tests.conftest import server_settings
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.smtp_sink import Sink, _running
from web.keys import NODE

MAIL_WAIT_SECONDS = 10.0


@pytest.fixture(name="sink")
def sink_fixture() -> Sink:
    return Sink()


@pytest.fixture(name="smtp_url")
def smtp_url_fixture(sink: Sink) -> Iterator[str]:
    yield from _running(sink)


@pytest.fixture
async def mailing_client(aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest, smtp_url: str,
                         clock: ManualClock) -> Any:
    """A server on the test's clock whose mail goes to the sink, running the OTP worker and the mail sender."""
    from dataclasses import replace

    from server.app import create_app

    settings = replace(server_settings(request, OBEYA_SMTP_URL=smtp_url),
                       workers=frozenset({"form-otp", "mail-sender"}))
    return await aiohttp_client(create_app(settings, database_url, clock=clock), cookie_jar=aiohttp.DummyCookieJar())


@pytest.fixture
async def board(mailing_client: Any) -> Board:
    return await make_board(await make_org(mailing_client))


@pytest.fixture
async def quiet_board(client: Any) -> Board:
    """A board on a server without SMTP: its e-mails are stored, never claimed by a sender. For tests that
    queue many (the 500 recipients) or need none, which must not flood the outbox every mailing server of the
    run shares."""
    return await make_board(await make_org(client))


async def make_form(on: Board, *, status: str = "published", name: str = "Supplier audit") -> dict[str, Any]:
    """A form of the board (`id`, `slug`, `name`): the ONE place a form is made until forms.create is here."""
    node = on.org.anonymous.client.server.app[NODE]
    form_id, slug = new_id("form"), f"supplier-audit-{secrets.token_hex(3)}"
    now: datetime = node.clock.now()
    schema = {"components": [{"type": "textfield", "key": "supplier", "label": "Supplier"}]}
    settings = {"successMessage": "Thank you", "redirectUrl": None, "notifyOnSubmit": [], "groupId": None,
                "requireAuth": False, "allowMultiple": True}
    await node.pool.execute(
        """INSERT INTO forms (id, organization_id, board_id, slug, name, status, schema, settings, created_by,
                              published_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $11)""",
        form_id, on.org.id, on.id, slug, name, status, json.dumps(schema), json.dumps(settings), on.org.owner_id,
        now if status == "published" else None, now)
    return {"id": form_id, "slug": slug, "name": name}


async def settle(api: Api) -> None:
    """Wait until the node's workers (the OTP worker, the mail sender) have done what they were given."""
    await api.client.server.app[NODE].workers.idle()


async def mailed(sink: Sink, address: str, count: int = 1) -> list[EmailMessage]:
    """The messages the sink received for `address` once there are `count` of them (the sender works in the
    background); fails when more arrive or none within MAIL_WAIT_SECONDS."""
    deadline = asyncio.get_running_loop().time() + MAIL_WAIT_SECONDS
    while len(sink.to(address)) < count:
        assert asyncio.get_running_loop().time() < deadline, f"{len(sink.to(address))} of {count} e-mails"
        await asyncio.sleep(0.02)
    messages = sink.to(address)
    assert len(messages) == count, [m["Subject"] for m in messages]
    return messages


def content(message: EmailMessage) -> str:
    return str(message.get_content()).replace("\r\n", "\n")


def link_token(message: EmailMessage, on: Board, form: dict[str, Any]) -> str:
    """The tracking token of the form link in a distribution e-mail."""
    found = re.search(rf"http://{re.escape(on.org.host)}/forms/{re.escape(form['slug'])}\?t=(\S+)", content(message))
    assert found, content(message)
    return found.group(1)


def otp_code(message: EmailMessage) -> str:
    found = re.search(r": (\d{6})\n", content(message))
    assert found, content(message)
    return found.group(1)
