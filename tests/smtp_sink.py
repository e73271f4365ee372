"""A real SMTP server for tests: an aiosmtpd sink on 127.0.0.1 that records or refuses mail, and the
`sink` / `smtp_url` fixtures (import `sink_fixture` and `smtp_url_fixture` into a test module to use them)."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.harness import free_port

# No TLS on a local test port, so the sink allows AUTH over plain text; aiosmtpd warns about that.
QUIET_PLAIN_AUTH = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")


class Sink:
    """Records every message it accepts, or refuses each one with `refusal`."""

    def __init__(self, refusal: str | None = None) -> None:
        self.refusal = refusal
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refusal:
            return self.refusal
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append((list(envelope.rcpt_tos), parsed))  # type: ignore[arg-type]
        return "250 OK"

    def to(self, recipient: str) -> list[EmailMessage]:
        return [message for rcpt_tos, message in self.messages if rcpt_tos == [recipient]]


def _only_the_configured_login(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
    return AuthResult(success=isinstance(auth_data, LoginPassword)
                      and (auth_data.login, auth_data.password) == (b"mailer", b"s3cret!"))


def _running(sink: Sink) -> Iterator[str]:
    """Serve `sink` on a free local port, requiring the login the yielded OBEYA_SMTP_URL carries."""
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port, authenticator=_only_the_configured_login,
                            auth_required=True, auth_require_tls=False)
    controller.start()
    try:
        yield f"smtp://mailer:s3cret%21@127.0.0.1:{port}"
    finally:
        controller.stop()


# Registered under their own names, so a module that imports these functions gets the fixtures `sink` and
# `smtp_url` without its test parameters shadowing an imported name.
@pytest.fixture(name="sink")
def sink_fixture() -> Sink:
    return Sink()


@pytest.fixture(name="smtp_url")
def smtp_url_fixture(sink: Sink) -> Iterator[str]:
    yield from _running(sink)
