"""`/healthz` (the process is up) and `/readyz` (the database answers and every migration is applied)."""

from __future__ import annotations

from aiohttp import web

from web.envelopes import json_response
from web.keys import NODE
from web.readiness import unready_reason


async def healthz(request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    reason = await unready_reason(request.app[NODE])
    if reason is not None:
        return json_response({"status": "unavailable", "reason": reason}, 503)
    return json_response({"status": "ok"})
