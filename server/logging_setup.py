"""structlog as JSON lines on standard error, one per event, with the context variables (request id,
organization, user, procedure) the web edge binds per request."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import msgspec
import structlog

from web.access_log import Render, write_directly


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


class _UtcStamp:
    """The time as `datetime.now(UTC).isoformat()` writes it, with `Z` for `+00:00` (what structlog's ISO
    TimeStamper wrote), at a fraction of the cost: the part down to the second is formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self) -> str:
        now = time.time()
        second = int(now)
        if second != self._second:
            self._second, self._prefix = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        micros = int((now - second) * 1_000_000)
        return f"{self._prefix}.{micros:06d}Z" if micros else f"{self._prefix}Z"


def _renderer() -> Render:
    """The last processor: level, timestamp and traceback added, then the line encoded. One processor for
    what were four (a request's access line went through each: issue 13)."""
    stamp = _UtcStamp()

    def render(logger: Any, method: str, event: structlog.types.EventDict) -> str:
        event = structlog.processors.add_log_level(logger, method, event)
        event["timestamp"] = stamp()
        if "exc_info" in event:
            event = structlog.processors.format_exc_info(logger, method, event)
        return _encoder.encode(event).decode()

    return render


def configure_logging(level: int = logging.INFO, *, node_id: str | None = None, cache: bool = True) -> None:
    """JSON lines on stderr; each names `node_id` when given (several nodes log to one place). A process keeps
    this configuration for good and caches each logger on first use; a test passes `cache=False`, since a
    module's logger cached under it would ignore every later configuration in that process."""
    logging.basicConfig(format="%(message)s", stream=sys.stderr, level=level)
    static: list[structlog.types.Processor] = [] if node_id is None else [_named(node_id)]
    render = _renderer()
    processors = [*static, structlog.contextvars.merge_contextvars, render]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=cache,
    )
    # The edge writes its access lines (level info) itself while this configuration holds (web/access_log.py).
    if level <= logging.INFO:
        write_directly(processors, node_id, render, _StderrLogger().msg)
    else:
        write_directly(None)


def _named(node_id: str) -> structlog.types.Processor:
    def add_node(_logger: Any, _method: str, event: structlog.types.EventDict) -> structlog.types.EventDict:
        event.setdefault("node", node_id)
        return event
    return add_node
