"""The access line: one per request, written by web/edge.py once the request is answered.

It goes through structlog like every other line, except while structlog runs exactly the configuration
server/logging_setup.py made (JSON lines on standard error): then the edge, which knows every field of the
line, renders it with that configuration's renderer and writes it itself. Same fields in the same order
(the request's own, `event`, `node`, `request_id`, `level`, `timestamp`), without structlog's per-call
machinery and its walk over the context variables: about a sixth of the edge's CPU per request (issue 13,
docs/decisions.md "One edge middleware"). The line's context is the edge's (request id, organization, user,
procedure); nothing else is bound to a request's context. Any other configuration (a test capturing lines,
structlog's defaults) gets the line through structlog as before.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import structlog

# structlog's last processor, the one that makes the line: (logger, method name, event dict) -> line.
Render = Callable[[Any, str, MutableMapping[str, Any]], str]


@dataclass(frozen=True)
class _Direct:
    processors: tuple[Any, ...]  # the configuration this holds for (capture_logs changes the list in place)
    node: str | None
    render: Render
    write: Callable[[str], None]


_direct: _Direct | None = None


def write_directly(processors: list[Any] | None, node: str | None = None,
                   render: Render | None = None,
                   write: Callable[[str], None] | None = None) -> None:
    """Write access lines with `render` and `write` while structlog's processors are `processors` (the
    line at level info passes the configured level); None: always through structlog."""
    global _direct
    _direct = None if processors is None or render is None or write is None else \
        _Direct(tuple(processors), node, render, write)


def access_line(request_id: str, **fields: Any) -> None:
    direct = _direct
    if direct is None or tuple(structlog.get_config()["processors"]) != direct.processors:
        # A logger made now, not one cached when first used: it follows whatever configuration holds now.
        structlog.get_logger("obeya.request").info("request", **fields)
        return
    fields["event"] = "request"
    if direct.node is not None:
        fields["node"] = direct.node
    fields["request_id"] = request_id
    direct.write(direct.render(None, "info", fields))
