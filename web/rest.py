"""The REST router: each route maps a method and `/api/v1/...` path onto a registered procedure.

Input is the path parameters, plus the query string (GET, DELETE) or the JSON body (POST, PATCH, PUT);
output is the `data`/`meta` envelope. A route may reshape the output where the spec gives the REST
style another shape than the RPC one (auth.me).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from protocol.errors import BadRequest
from protocol.registry import REGISTRY
from web.dispatch import call_procedure
from web.envelopes import json_response, rest_body
from web.inputs import decode_json


@dataclass(frozen=True)
class RestRoute:
    method: str
    path: str
    procedure: str
    status: int = 200
    view: Callable[[Any], Any] | None = None
    # path parameter -> input field, where the names differ
    rename: dict[str, str] = field(default_factory=dict)


async def json_body(request: web.Request) -> dict[str, Any]:
    raw = await request.read()
    if not raw.strip():
        return {}
    body = decode_json(raw, "body")
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    return body


def rest_handler(route: RestRoute) -> Callable[[web.Request], Any]:
    procedure = REGISTRY[route.procedure]

    async def handle(request: web.Request) -> web.Response:
        from_query = request.method in ("GET", "DELETE", "HEAD")
        raw: dict[str, Any] = dict(request.query) if from_query else await json_body(request)
        for name, value in request.match_info.items():
            raw[route.rename.get(name, name)] = value
        result = await call_procedure(request, procedure, raw, from_query=from_query)
        if route.view is not None:
            result = route.view(result)
        return json_response(rest_body(result), route.status)

    return handle


# Every RestRoute added to an application, in order.
REST_ROUTES = web.AppKey("rest_routes", list[RestRoute])


def add_rest_routes(app: web.Application, routes: Iterable[RestRoute]) -> None:
    for route in routes:
        app.router.add_route(route.method, route.path, rest_handler(route))
        app.setdefault(REST_ROUTES, []).append(route)  # read by web/openapi.py
