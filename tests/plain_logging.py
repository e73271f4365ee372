"""How the tests' processes log when a test has not configured logging itself: structlog's development
console output, with tracebacks formatted plainly.

structlog's default console renderer formats a logged exception with `rich` when that package is installed
(a lint tool brings it in), and `rich` renders every frame with its local variables: hundreds of
milliseconds per traceback on the test's event loop, which the loop guard then reports as a blocked loop.
A plain traceback costs a fraction of a millisecond and says the same.
"""

from __future__ import annotations

import structlog


def use_plain_tracebacks() -> None:
    """structlog's defaults, but with the console renderer's exception formatter set to a plain traceback."""
    structlog.reset_defaults()
    processors = list(structlog.get_config()["processors"])
    processors[-1] = structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)
    structlog.configure(processors=processors)
