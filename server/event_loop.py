"""The event loop `obeya serve` runs on: uvloop (libuv under asyncio's interface, a drop-in and faster loop)
when it is installed, the standard asyncio loop otherwise or when `OBEYA_EVENT_LOOP=asyncio` asks for it
(to compare the two, or to rule uvloop out)."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Mapping

LOOPS = ("asyncio", "uvloop")


def uvloop_installed() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def default_event_loop() -> str:
    return "uvloop" if uvloop_installed() else "asyncio"


def event_loop_from(env: Mapping[str, str]) -> str:
    """The loop `OBEYA_EVENT_LOOP` in `env` names (default: uvloop when installed); a value that cannot be used
    stops the start-up with a message naming the variable."""
    value = env.get("OBEYA_EVENT_LOOP", "").strip().lower()
    if not value:
        return default_event_loop()
    if value not in LOOPS:
        raise SystemExit(f"OBEYA_EVENT_LOOP must be {' or '.join(LOOPS)}, not {value!r}")
    if value == "uvloop" and not uvloop_installed():
        raise SystemExit("OBEYA_EVENT_LOOP is uvloop, but uvloop is not installed (pip install uvloop)")
    return value


def new_event_loop(name: str) -> asyncio.AbstractEventLoop:
    """A new loop of kind `name` (one of LOOPS; uvloop must be installed when asked for)."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    return asyncio.new_event_loop()
