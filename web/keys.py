"""Typed application and request keys."""

from __future__ import annotations

from aiohttp import web

from actors.kernel.node import Node
from protocol.caller import Caller

NODE = web.AppKey("node", Node)
CALLER = web.RequestKey("caller", Caller)
STYLE = web.RequestKey("style", str)            # "rpc" or "rest": how errors are rendered
PROCEDURE = web.RequestKey("procedure", str)
REQUEST_ID = web.RequestKey("request_id", str)
