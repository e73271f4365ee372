"""The mail sender against a real SMTP server: an aiosmtpd sink on 127.0.0.1 that records or refuses mail."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import aiohttp
import asyncpg
import pytest
from structlog.testing import capture_logs

from actors.delivery.mail_sender import RETRY_BACKOFF_SECONDS
from actors.kernel import sealing
from actors.kernel.mailer import REDACTED, smtp_target
from actors.runtime.clock import ManualClock
from server.app import create_app
from server.config import DEFAULT_PORT, Settings
from storage import mail
from tests.harness import make_org
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink, _running, sink_fixture, smtp_url_fixture  # noqa: F401  (fixtures)
from web.keys import NODE

pytestmark = QUIET_PLAIN_AUTH


def _settings(smtp_url: str | None, secret_key: str | None = None) -> Settings:
    """A server that sends mail (and runs the automations that queue it), hashing at bcrypt's minimum cost."""
    settings = Settings.from_env({"OBEYA_SERVICE_HOST": "localhost", "OBEYA_BCRYPT_ROUNDS": "4",
                                  **({"OBEYA_SMTP_URL": smtp_url} if smtp_url else {}),
                                  **({"OBEYA_SECRET_KEY": secret_key} if secret_key else {})})
    return replace(settings, workers=frozenset({"mail-sender", "automations"}))


async def _client(aiohttp_client: Any, database_url: str, smtp_url: str | None, clock: Any = None,
                  secret_key: str | None = None) -> Any:
    return await aiohttp_client(create_app(_settings(smtp_url, secret_key), database_url, clock=clock),
                                cookie_jar=aiohttp.DummyCookieJar())


async def _email(pool: asyncpg.Pool, recipient: str, until: Callable[[asyncpg.Record], bool]) -> asyncpg.Record:
    """The newest e-mail to `recipient` once `until` holds for it (the sender works in the background)."""
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        row = await pool.fetchrow("SELECT * FROM emails WHERE recipient = $1 ORDER BY created_at DESC LIMIT 1",
                                  recipient)
        if row is not None and until(row):
            return row
        assert asyncio.get_running_loop().time() < deadline, dict(row) if row else "no e-mail"
        await asyncio.sleep(0.02)


async def test_invitation_is_sent_to_the_smtp_server(aiohttp_client: Any, database_url: str, smtp_url: str,
                                                     sink: Sink) -> None:
    client = await _client(aiohttp_client, database_url, smtp_url)
    org = await make_org(client)
    invited = await org.owner.mutate("organizations.members.invite", {"email": "mailed@example.test"})
    assert invited.status == 200, invited.body

    row = await _email(client.server.app[NODE].pool, "mailed@example.test", lambda row: row["status"] != "queued")
    assert row["status"] == "sent" and row["attempts"] == 1 and row["sent_at"] is not None
    [message] = sink.to("mailed@example.test")
    assert message["To"] == "mailed@example.test"
    assert message["From"] == "Obeya <no-reply@localhost>"
    assert message["Subject"] == row["subject"] and "on Obeya" in message["Subject"]
    content = message.get_content().replace("\r\n", "\n").removesuffix("\n")  # SMTP's line endings
    assert "Invitation token: " in content and "/invite?token=" in content
    # The stored copy shows the secret redacted, and the sealed text to send is wiped once sent.
    assert content != row["body"] and row["body"].count(REDACTED) == 2 and row["sealed_body"] is None
    assert content.replace(_token_of(content), REDACTED) == row["body"]
    await _holds_no_usable_token(org, row)

    link = re.search(r"(http://\S+/invite\?token=)(\S+)", content)
    assert link and link.group(1) == f"http://{org.slug}.localhost:{DEFAULT_PORT}/invite?token="
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": link.group(2), "name": "Mailed", "password": "a long password"})
    assert accepted.status == 200, accepted.body
    assert accepted.body["data"]["email"] == "mailed@example.test"


def _token_of(content: str) -> str:
    match = re.search(r"Invitation token: (\S+)", content)
    assert match, content
    return match.group(1)


async def _holds_no_usable_token(org: Any, row: asyncpg.Record) -> None:
    """No token-like string anywhere in the stored row (read with SQL) is taken by invitation acceptance."""
    text = " ".join(str(value) for value in dict(row).values())
    candidates = set(re.findall(r"[A-Za-z0-9_-]{16,}", text))
    assert candidates  # the e-mail id at least: the check below looks at something
    for candidate in candidates:
        tried = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                         {"token": candidate, "name": "Thief", "password": "a long password"})
        assert tried.status in (404, 422), (candidate, tried.body)  # 422: longer than any token


async def test_stored_invitation_keeps_the_link_redacted_and_sealed(org: Any) -> None:
    with capture_logs() as logs:
        invited = await org.owner.mutate("organizations.members.invite", {"email": "sealed@example.test"})
    assert invited.status == 200, invited.body
    pool = org.owner.client.server.app[NODE].pool
    row = await pool.fetchrow("SELECT * FROM emails WHERE recipient = 'sealed@example.test'")
    assert row["status"] == "stored"
    assert f"/invite?token={REDACTED}\nInvitation token: {REDACTED}\n" in row["body"]
    await _holds_no_usable_token(org, row)
    # Only the sealed text holds the link; it opens with the node's key, and the token it holds works.
    token = _token_of(await sealing.open_sealed(pool, row["sealed_body"], None))
    assert token not in repr(logs)
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": token, "name": "Sealed", "password": "a long password"})
    assert accepted.status == 200, accepted.body


async def test_mail_sealed_under_another_key_is_failed_naming_why(aiohttp_client: Any, database_url: str,
                                                                  smtp_url: str, sink: Sink) -> None:
    client = await _client(aiohttp_client, database_url, None, secret_key="k" * 40)
    org = await make_org(client)
    assert (await org.owner.mutate("organizations.members.invite", {"email": "rekeyed@example.test"})).status == 200
    pool = client.server.app[NODE].pool
    await pool.execute("UPDATE emails SET status = 'queued' WHERE recipient = 'rekeyed@example.test'")
    # Sealed under the configured key: the database alone cannot open it.
    with pytest.raises(sealing.Unopenable):
        await sealing.open_sealed(pool, await pool.fetchval(
            "SELECT sealed_body FROM emails WHERE recipient = 'rekeyed@example.test'"), None)
    sender = await _client(aiohttp_client, database_url, smtp_url, secret_key="z" * 40)

    row = await _email(sender.server.app[NODE].pool, "rekeyed@example.test", lambda row: row["status"] != "queued")
    assert row["status"] == "failed" and "another key" in row["last_error"] and row["sealed_body"] is None
    assert sink.to("rekeyed@example.test") == []


async def test_mail_queued_before_start_is_sent_at_start(aiohttp_client: Any, database_url: str, smtp_url: str,
                                                         sink: Sink, pool: asyncpg.Pool) -> None:
    await mail.store(pool, None, "test", "waiting@example.test", "Queued while down", "Hello", "queued")
    client = await _client(aiohttp_client, database_url, smtp_url)

    row = await _email(client.server.app[NODE].pool, "waiting@example.test", lambda row: row["status"] == "sent")
    assert row["attempts"] == 1
    [message] = sink.to("waiting@example.test")
    assert message["Subject"] == "Queued while down"


def _tried(times: int) -> Callable[[asyncpg.Record], bool]:
    return lambda row: bool(row["attempts"] == times)


@pytest.fixture
def refusing_url() -> Iterator[str]:
    yield from _running(Sink(refusal="550 5.7.1 Relaying refused"))


async def test_refused_mail_is_retried_with_backoff_then_failed(aiohttp_client: Any, database_url: str,
                                                                refusing_url: str, clock: ManualClock) -> None:
    client = await _client(aiohttp_client, database_url, refusing_url, clock=clock)
    pool = client.server.app[NODE].pool
    org = await make_org(client)
    assert (await org.owner.mutate("organizations.members.invite", {"email": "bounce@example.test"})).status == 200

    for attempt, backoff in enumerate(RETRY_BACKOFF_SECONDS, start=1):
        row = await _email(pool, "bounce@example.test", _tried(attempt))
        assert row["status"] == "queued" and "Relaying refused" in row["last_error"]
        assert row["next_attempt_at"] == clock.now() + timedelta(seconds=backoff)
        clock.advance(backoff)

    row = await _email(pool, "bounce@example.test", lambda row: row["status"] != "queued")
    assert row["status"] == "failed" and row["attempts"] == len(RETRY_BACKOFF_SECONDS) + 1
    assert row["sent_at"] is None and "Relaying refused" in row["last_error"]


async def test_without_smtp_mail_is_stored_not_sent(org: Any) -> None:
    assert (await org.owner.mutate("organizations.members.invite", {"email": "kept@example.test"})).status == 200
    row = await _email(org.owner.client.server.app[NODE].pool, "kept@example.test", lambda row: True)
    assert row["status"] == "stored" and row["attempts"] == 0


def test_smtp_url_forms() -> None:
    plain = smtp_target("smtp://mailer:s3cret%21@mail.example.test?starttls=true&from=Ops%20%3Cops%40x.test%3E",
                        "obeya.test")
    assert plain is not None
    assert (plain.hostname, plain.port, plain.use_tls, plain.start_tls) == ("mail.example.test", 25, False, True)
    assert (plain.username, plain.password, plain.sender) == ("mailer", "s3cret!", "Ops <ops@x.test>")
    assert "s3cret" not in repr(plain)
    implicit = smtp_target("smtps://mail.example.test", "obeya.test")
    assert implicit is not None and (implicit.port, implicit.use_tls, implicit.start_tls) == (465, True, None)
    assert implicit.sender == "Obeya <no-reply@obeya.test>" and implicit.username is None
    assert smtp_target(None, "obeya.test") is None
    for bad in ("http://mail.example.test", "smtp://mail.example.test:99999", "smtp://mail.example.test?starttls=maybe"):
        with pytest.raises(ValueError, match="OBEYA_SMTP_URL"):
            smtp_target(bad, "obeya.test")
