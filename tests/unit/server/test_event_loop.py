"""The event loop `obeya serve` runs on: uvloop when installed (it is a dependency), the asyncio loop when
OBEYA_EVENT_LOOP asks for it; any other value stops the start-up naming the variable."""

from __future__ import annotations

import asyncio
import os

import pytest
import uvloop

from server.config import Settings
from server.event_loop import new_event_loop


def test_uvloop_is_the_default_and_asyncio_can_be_chosen() -> None:
    assert Settings.from_env({}).event_loop == "uvloop"
    assert Settings.from_env({"OBEYA_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"
    assert Settings.from_env({"OBEYA_EVENT_LOOP": " UVLOOP "}).event_loop == "uvloop"


def test_another_loop_stops_the_start_naming_the_variable() -> None:
    with pytest.raises(SystemExit, match="OBEYA_EVENT_LOOP must be asyncio or uvloop, not 'trio'"):
        Settings.from_env({"OBEYA_EVENT_LOOP": "trio"})


@pytest.mark.parametrize(("name", "kind"), [("uvloop", uvloop.Loop), ("asyncio", asyncio.BaseEventLoop)])
def test_each_loop_runs_the_server_s_coroutines(name: str, kind: type) -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    loop = new_event_loop(name)
    try:
        assert isinstance(loop, kind)
        assert (name == "uvloop") == isinstance(loop, uvloop.Loop)
        assert loop.run_until_complete(answer()) == 42
    finally:
        loop.close()


async def test_the_suite_runs_on_the_loop_obeya_serve_would_pick() -> None:
    expected = uvloop.Loop if Settings.from_env(os.environ).event_loop == "uvloop" else asyncio.BaseEventLoop
    assert isinstance(asyncio.get_running_loop(), expected)
