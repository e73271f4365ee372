"""The JSON lines of server/logging_setup.py: the access line the edge writes itself (web/access_log.py) is the
line structlog writes for the same request, field for field and in the same order, and every line's timestamp
is ISO 8601 UTC as structlog's TimeStamper wrote it."""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from server.logging_setup import configure_logging
from tests.plain_logging import use_plain_tracebacks
from web.access_log import access_line, write_directly

FIELDS: dict[str, Any] = {"method": "POST", "path": "/api/trpc/items.setValue", "status": 200,
                          "duration_ms": 1.25, "organization": "acme", "user": "usr_1",
                          "procedure": "items.setValue"}


@pytest.fixture
def reset() -> Iterator[None]:
    try:
        yield
    finally:
        write_directly(None)
        use_plain_tracebacks()


def _line(node_id: str | None, *, direct: bool, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    configure_logging(node_id=node_id, cache=False)
    if not direct:
        write_directly(None)

    def request() -> None:
        structlog.contextvars.bind_contextvars(request_id="req-1")
        structlog.contextvars.bind_contextvars(organization="acme", user="usr_1", procedure="items.setValue")
        access_line("req-1", **FIELDS)

    contextvars.copy_context().run(request)
    [line] = capsys.readouterr().err.splitlines()
    parsed: dict[str, Any] = json.loads(line)
    return parsed


@pytest.mark.parametrize("node_id", [None, "node-a"])
def test_the_access_line_written_directly_is_structlogs_line(
        node_id: str | None, capsys: pytest.CaptureFixture[str], reset: None) -> None:
    direct = _line(node_id, direct=True, capsys=capsys)
    through_structlog = _line(node_id, direct=False, capsys=capsys)
    assert list(direct) == list(through_structlog)
    assert {**direct, "timestamp": None} == {**through_structlog, "timestamp": None}
    assert direct["request_id"] == "req-1" and direct["level"] == "info" and direct["event"] == "request"
    assert ("node" in direct) is (node_id is not None)


def test_timestamps_are_iso_utc_with_z(capsys: pytest.CaptureFixture[str], reset: None) -> None:
    before = datetime.now(UTC)
    line = _line(None, direct=True, capsys=capsys)
    stamp = line["timestamp"]
    assert stamp.endswith("Z") and "+" not in stamp
    assert before - timedelta(seconds=1) <= datetime.fromisoformat(stamp) <= datetime.now(UTC)


def test_other_configurations_get_the_access_line_through_structlog(reset: None) -> None:
    configure_logging(cache=False)
    with capture_logs() as logs:
        access_line("req-2", **FIELDS)
    assert logs == [{**FIELDS, "event": "request", "log_level": "info"}]


def test_a_level_above_info_drops_the_access_line(capsys: pytest.CaptureFixture[str], reset: None) -> None:
    configure_logging(logging.WARNING, cache=False)
    access_line("req-3", **FIELDS)
    assert capsys.readouterr().err == ""
