"""structlog as JSON lines on standard error, one per event, with the context variables (request id,
organization, user, procedure) the web edge binds per request."""

from __future__ import annotations

import logging
import sys
from typing import Any

import msgspec
import structlog


class _StderrLogger:
    """Writes to whatever `sys.stderr` is at the time of the call, so a redirected stream is honoured."""

    def msg(self, message: str) -> None:
        # Standard error is line-buffered, so each line still goes out whole and at once.
        sys.stderr.write(message + "\n")

    log = debug = info = warning = warn = error = critical = exception = fatal = msg


def _stderr_logger(*args: Any) -> _StderrLogger:
    return _StderrLogger()


# One log line per request: msgspec encodes it several times faster than the json module (bench/README.md).
_encoder = msgspec.json.Encoder(enc_hook=repr)


def _dumps(event: Any, **_: Any) -> str:
    return _encoder.encode(event).decode()


def configure_logging(level: int = logging.INFO, *, node_id: str | None = None) -> None:
    """JSON lines on stderr; each names `node_id` when given (several nodes log to one place)."""
    logging.basicConfig(format="%(message)s", stream=sys.stderr, level=level)
    static: list[structlog.types.Processor] = [] if node_id is None else [_named(node_id)]
    structlog.configure(
        processors=[
            *static,
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=True,
    )


def _named(node_id: str) -> structlog.types.Processor:
    def add_node(_logger: Any, _method: str, event: structlog.types.EventDict) -> structlog.types.EventDict:
        event.setdefault("node", node_id)
        return event
    return add_node
