"""Respondent fixtures: a server on the test's clock that mails through the real SMTP sink and runs the
`form-otp` worker, a form made with `forms.create` (`make_form`), and reading what the sink received."""

from __future__ import annotations

import asyncio
import re
from email.message import EmailMessage
from typing import Any

import aiohttp
import pytest

from actors.runtime.clock import ManualClock
from server.config import DEFAULT_PORT
from tests.conftest import server_settings
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.smtp_sink import Sink, sink_fixture, smtp_url_fixture  # noqa: F401  (fixtures)
from web.keys import NODE

MAIL_WAIT_SECONDS = 10.0



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
    """A form of the board (`id`, `slug`, `name`) made by its owner with `forms.create`, moved to `status`."""
    schema = {"components": [{"type": "textfield", "key": "supplier", "label": "Supplier"}]}
    made = await on.api.mutate("forms.create", {"boardId": on.id, "name": name, "schema": schema,
                                                "settings": {"successMessage": "Thank you"}})
    assert made.status == 200, made.body
    if status != "draft":
        moved = await on.api.mutate("forms.update", {"id": made.data["id"], "status": status})
        assert moved.status == 200, moved.body
    return {"id": made.data["id"], "slug": made.data["slug"], "name": name}


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
    link = rf"http://{re.escape(on.org.host)}:{DEFAULT_PORT}/forms/{re.escape(form['slug'])}\?t=(\S+)"
    found = re.search(link, content(message))
    assert found, content(message)
    return found.group(1)


def otp_code(message: EmailMessage) -> str:
    found = re.search(r": (\d{6})\n", content(message))
    assert found, content(message)
    return found.group(1)
