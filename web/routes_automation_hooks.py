"""The inbound URL of `webhook.received` automations: `POST /api/v1/automations/{automationId}/webhook` on the
organization's host. No credential: the sender proves it knows the rule's secret (actors/automations/
triggers.py). Answers 202 once the run is stored."""

from __future__ import annotations

from aiohttp import web

from actors.automations.triggers import receive_webhook
from protocol.caller import Caller
from web.envelopes import json_response
from web.keys import CALLER, NODE

INBOUND_PATH = "/api/v1/automations/{automationId}/webhook"


async def receive(request: web.Request) -> web.Response:
    caller: Caller = request[CALLER]
    job_id = await receive_webhook(
        request.app[NODE], automation_id=request.match_info["automationId"],
        org_id=caller.organization.id if caller.organization else None, body=await request.read(),
        signature=request.headers.get("X-Svc-Signature"), token=request.headers.get("X-Svc-Token"),
        delivery_id=request.headers.get("webhook-id") or request.headers.get("X-Svc-Delivery"))
    return json_response({"data": {"accepted": True, "duplicate": job_id is None}}, 202)


def add_automation_hook_routes(app: web.Application) -> None:
    app.router.add_post(INBOUND_PATH, receive)
