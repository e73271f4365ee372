"""Typed application and request keys."""

from __future__ import annotations

from aiohttp import web

from actors.env import Env
from protocol.caller import Caller

ENV = web.AppKey("env", Env)
CALLER = "obeya.caller"  # request key: the resolved Caller (aiohttp request keys are plain strings)
STYLE = "obeya.style"    # request key: "rpc" or "rest", how errors are rendered
PROCEDURE = "obeya.procedure"
REQUEST_ID = "obeya.request_id"

__all__ = ["ENV", "CALLER", "STYLE", "PROCEDURE", "REQUEST_ID", "Caller"]
