"""Paths of the API-key, personal-token and activity-trail procedures.

`POST /api/auth/tokens` is the one RPC-style path outside `/api/trpc/`: it takes `{"json": input}` and
answers the tRPC envelope, running `auth.tokens.create` (also served at /api/trpc/auth.tokens.create).
"""

from __future__ import annotations

from aiohttp import web

from protocol.credentials import CREATE_TOKEN
from web.dispatch import call_procedure
from web.envelopes import json_response, rpc_result
from web.rest import RestRoute, add_rest_routes, json_body
from web.rpc import unwrap_input

CREDENTIAL_ROUTES = [
    RestRoute("POST", "/api/v1/auth/api-keys", "apiKeys.create", status=201),
    RestRoute("GET", "/api/v1/auth/api-keys", "apiKeys.list"),
    RestRoute("POST", "/api/v1/auth/api-keys/{id}/revoke", "apiKeys.revoke"),
    RestRoute("POST", "/api/v1/auth/api-keys/{id}/rotate", "apiKeys.rotate"),
    RestRoute("DELETE", "/api/v1/auth/api-keys/{id}", "apiKeys.delete"),
    RestRoute("GET", "/api/v1/audit", "activity.listByOrg"),
    RestRoute("GET", "/api/v1/audit/entity", "activity.listByEntity"),
]


async def create_personal_token(request: web.Request) -> web.Response:
    result = await call_procedure(request, CREATE_TOKEN, unwrap_input(await json_body(request)))
    return json_response(rpc_result(result))


def add_credential_routes(app: web.Application) -> None:
    add_rest_routes(app, CREDENTIAL_ROUTES)
    app.router.add_post("/api/auth/tokens", create_personal_token)
