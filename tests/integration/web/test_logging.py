"""Every request is one structured JSON log line with request id, organization, user, procedure, status
and duration, and no secret (password, session token, bearer) ever appears in the logs."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from server.logging_setup import configure_logging
from tests.harness import PASSWORD, Org, login
from tests.plain_logging import use_plain_tracebacks


@pytest.fixture
def json_logs(capsys: pytest.CaptureFixture[str]) -> Iterator[pytest.CaptureFixture[str]]:
    configure_logging(cache=False)
    try:
        yield capsys
    finally:
        use_plain_tracebacks()


async def test_request_lines_carry_context_and_no_secret(org: Org, json_logs: pytest.CaptureFixture[str]) -> None:
    api = await login(org.anonymous, org.owner_email)
    reply = await api.query("auth.me", headers={"X-Request-Id": "log-check-1"})
    assert reply.status == 200
    output = json_logs.readouterr().err
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    me = [line for line in lines if line.get("request_id") == "log-check-1"]
    assert len(me) == 1
    assert me[0]["event"] == "request" and me[0]["status"] == 200
    assert me[0]["organization"] == org.slug and me[0]["user"] == org.owner_id
    assert me[0]["procedure"] == "auth.me" and isinstance(me[0]["duration_ms"], float)
    assert PASSWORD not in output
    assert api.session is not None and api.session not in output
