"""`GET /api/v1/openapi.json`: an OpenAPI 3.1 document of every REST path and every RPC procedure.

Generated once per application at start-up from the procedure registry (protocol/registry.py), the REST
route tables recorded by web/rest.py and the application's router; schemas come from the same msgspec
Structs that validate the inputs, so the document cannot drift from what the server accepts.
"""

from __future__ import annotations

import functools
import re
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec
from aiohttp import web

from protocol.auth import LoginInput, SignupInput
from protocol.errors import FieldError
from protocol.registry import REGISTRY, Access, Procedure
from web.context import MCP_PATH, SESSION_COOKIE, style_of
from web.envelopes import JSON
from web.keys import NODE
from web.openapi_mcp import mcp_path_item
from web.openapi_routes import DOCUMENTED, HTML, ROUTES, Described
from web.rest import REST_ROUTES, RestRoute

OPENAPI_PATH = "/api/v1/openapi.json"
OPENAPI_DOCUMENT = web.AppKey("openapi_document", bytes)
_REF = "#/components/schemas/{name}"
_PATH_PARAMETER = re.compile(r"\{([^}:]+)(?::[^}]*)?\}")
# Routes written by hand in web/auth_routes.py rather than as RestRoutes, and the input each decodes.
_HAND_WRITTEN_INPUTS: dict[tuple[str, str], tuple[type[msgspec.Struct], int]] = {
    ("POST", "/api/v1/auth/signup"): (SignupInput, 201),
    ("POST", "/api/v1/auth/login"): (LoginInput, 200),
}
# Hand-written routes that need no credential: sign-up, login, accepting an invitation.
_PUBLIC_PATHS = {OPENAPI_PATH, "/api/v1/auth/signup", "/api/v1/auth/login", "/api/v1/invitations/accept"}
_BODY_METHODS = {"POST", "PUT", "PATCH"}


# The two envelopes of web/envelopes.py, as Structs only so that msgspec can write their schemas.
class PageMeta(msgspec.Struct):
    cursor: str | None
    has_more: bool
    limit: int


class RestData(msgspec.Struct):
    """A REST success: the payload under `data`."""

    data: Any


class RestPage(msgspec.Struct):
    """A REST success of a cursor-paged list."""

    data: list[Any]
    meta: PageMeta


class RestErrorBody(msgspec.Struct):
    code: str
    status: int
    message: str
    details: list[FieldError]


class RestError(msgspec.Struct):
    """A REST failure: 422 VALIDATION_ERROR names each bad field in `details`."""

    error: RestErrorBody


class RpcErrorData(msgspec.Struct):
    code: str
    httpStatus: int
    path: str | None
    details: list[FieldError] = msgspec.field(default_factory=list)


class RpcErrorShape(msgspec.Struct):
    message: str
    code: int
    data: RpcErrorData


class RpcErrorBody(RpcErrorShape):
    json: RpcErrorShape


class RpcError(msgspec.Struct):
    """An RPC failure; the same object again under `error.json` for superjson clients."""

    error: RpcErrorBody


class RpcResultData(msgspec.Struct):
    json: Any


class RpcResultBody(msgspec.Struct):
    data: RpcResultData


class RpcResult(msgspec.Struct):
    """An RPC success: the payload at `result.data.json`."""

    result: RpcResultBody


_ENVELOPES = (RestData, RestPage, RestError, RpcResult, RpcError, *DOCUMENTED)


def _ref(struct: type) -> dict[str, str]:
    return {"$ref": _REF.format(name=struct.__name__)}


def _path_parameters(path: str) -> list[str]:
    return _PATH_PARAMETER.findall(path)


def _response(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


@functools.cache
def _components(inputs: tuple[type[msgspec.Struct], ...]) -> tuple[tuple[dict[str, Any], ...], dict[str, Any]]:
    """The JSON Schemas of the envelopes and `inputs` (refs, components), computed once per process: over 100 ms,
    which an application started again in the same process (the tests start one per test) need not pay again.
    Read only."""
    refs, schemas = msgspec.json.schema_components([*_ENVELOPES, *inputs], ref_template=_REF)
    return tuple(refs), schemas


def _inputs() -> tuple[type[msgspec.Struct], ...]:
    return tuple(dict.fromkeys([procedure.input for procedure in REGISTRY.values()]
                               + [struct for struct, _ in _HAND_WRITTEN_INPUTS.values()]))


def prepare_openapi_schemas() -> None:
    """Compute the schemas of every registered input now, as the application is made (before it listens), not
    in its start-up (a no-op after the first call)."""
    _components(_inputs())


class _Builder:
    def __init__(self, inputs: tuple[type[msgspec.Struct], ...]) -> None:
        refs, self.schemas = _components(inputs)
        self.input_refs = dict(zip(inputs, refs[len(_ENVELOPES):], strict=True))
        self.paths: dict[str, dict[str, Any]] = {}

    def input_schema(self, struct: type[msgspec.Struct]) -> dict[str, Any]:
        schema: dict[str, Any] = self.schemas[self.input_refs[struct]["$ref"].rsplit("/", 1)[1]]
        return schema

    def add(self, method: str, path: str, operation: dict[str, Any]) -> None:
        self.paths.setdefault(path, {})[method.lower()] = operation

    def errors(self, *, public: bool, takes_input: bool, rpc: bool) -> dict[str, Any]:
        schema = _ref(RpcError if rpc else RestError)
        responses: dict[str, Any] = {}
        if takes_input:
            invalid = "400" if rpc else "422"
            responses[invalid] = _response("the input failed its schema; each bad field is named", schema)
        if not public:
            responses["401"] = _response("credential missing or invalid", schema)
            responses["403"] = _response("role, scope, plan or organization refused", schema)
        responses["429"] = _response("rate limit exceeded; see the X-RateLimit-* headers", schema)
        responses["default"] = _response("any other failure", schema)
        return responses

    def rest(self, route: RestRoute) -> None:
        procedure = REGISTRY[route.procedure]
        schema = self.input_schema(procedure.input)
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        path_names = _path_parameters(route.path)
        from_path = {route.rename.get(name, name) for name in path_names}
        parameters = [{"name": name, "in": "path", "required": True,
                       "schema": properties.get(route.rename.get(name, name), {"type": "string"})}
                      for name in path_names]
        operation = _operation(procedure, f"{route.method.lower()}_{_slug(route.path)}")
        if route.method in _BODY_METHODS:
            if set(properties) - from_path:
                operation["requestBody"] = self.body(procedure.input, from_path)
        else:
            parameters += [{"name": name, "in": "query", "required": name in required, "schema": field_schema}
                           for name, field_schema in properties.items() if name not in from_path]
        if parameters:
            operation["parameters"] = parameters
        paged = "cursor" in properties and route.view is None
        operation["responses"] = {
            str(route.status): _response("success", _ref(RestPage if paged else RestData)),
            **self.errors(public=procedure.access is Access.PUBLIC, takes_input=bool(properties), rpc=False)}
        self.add(route.method, _openapi_path(route.path), operation)

    def body(self, struct: type[msgspec.Struct], from_path: set[str]) -> dict[str, Any]:
        """The JSON body of a write: the input Struct without the fields the path supplies."""
        schema = self.input_schema(struct)
        required = [name for name in schema.get("required", ()) if name not in from_path]
        if from_path & set(schema.get("properties", {})):
            body_schema: dict[str, Any] = {
                **schema, "required": required,
                "properties": {k: v for k, v in schema["properties"].items() if k not in from_path}}
        else:
            body_schema = self.input_refs[struct]
        return {"required": bool(required), "content": {JSON: {"schema": body_schema}}}

    def rpc(self, procedure: Procedure) -> None:
        schema = self.input_schema(procedure.input)
        wrapped = {"type": "object", "properties": {"json": self.input_refs[procedure.input]},
                   "required": ["json"] if schema.get("required") else []}
        operation = _operation(procedure, procedure.name)
        if procedure.is_query:
            operation["parameters"] = [{
                "name": "input", "in": "query", "required": bool(schema.get("required")),
                "description": 'URL-encoded JSON `{"json": <input>}`',
                "content": {JSON: {"schema": wrapped}}}]
        else:
            operation["requestBody"] = {"required": bool(schema.get("required")),
                                        "content": {JSON: {"schema": wrapped}}}
        operation["responses"] = {"200": _response("success", _ref(RpcResult)),
                                  **self.errors(public=procedure.access is Access.PUBLIC,
                                                takes_input=bool(schema.get("properties")), rpc=True)}
        self.add("GET" if procedure.is_query else "POST", f"/api/trpc/{procedure.name}", operation)

    def described(self, method: str, path: str, route: Described) -> None:
        """A route web/openapi_routes.py describes: its access, query tokens, headers, body and replies."""
        names = _path_parameters(path)
        doc_path = _openapi_path(path)
        for name in names:
            doc_path = doc_path.replace(f"{{{name}}}", f"{{{_camel(name)}}}")
        operation: dict[str, Any] = (_operation(route.procedure, f"{method.lower()}_{_slug(doc_path)}")
                                     if route.procedure else
                                     {"operationId": f"{method.lower()}_{_slug(doc_path)}", "tags": [_area(path)]})
        operation["summary"] = route.summary
        parameters = [{"name": _camel(name), "in": "path", "required": True, "schema": {"type": "string"}}
                      for name in names]
        parameters += [{"name": name, "in": where, "required": False, "description": text,
                        "schema": {"type": "string"}}
                       for where, pairs in (("query", route.query), ("header", route.headers)) for name, text in pairs]
        if parameters:
            operation["parameters"] = parameters
        if route.body is not None:
            media, body = route.body
            operation["requestBody"] = {"required": True, "content": {media: {
                "schema": body if isinstance(body, dict) else _ref(body)}}}
        if route.data is not None:
            schema: dict[str, Any] = {"type": "object", "required": ["data"], "properties": {"data": _ref(route.data)}}
        elif route.bare is not None:
            schema = _ref(route.bare)
        else:
            schema = {"type": "string", **({"contentMediaType": route.reply} if "*" not in route.reply else {})}
        success: dict[str, Any] = {"description": "success", "content": {route.reply: {"schema": schema}}}
        if route.reply_headers:
            success["headers"] = {name: {"description": text, "schema": {"type": "string"}}
                                  for name, text in route.reply_headers}
        refused = ({"description": "refused: a page saying why", "content": {HTML: {"schema": {"type": "string"}}}}
                   if route.reply == HTML else None)
        operation["responses"] = {
            str(route.status): success,
            **self.errors(public=route.procedure is None, takes_input=False, rpc=False),
            **{str(status): {**(refused or _response(text, _ref(RestError))), "description": text}
               for status, text in route.refusals.items()}}
        if route.procedure is None:
            operation["security"] = [{}, {"sessionCookie": []}, {"formSession": []}] if route.form_session else []
        self.add(method, doc_path, operation)

    def hand_written(self, method: str, path: str, handler: Any) -> None:
        """A route outside the REST tables: described by its handler, and its input where known."""
        if (method, path) in ROUTES:
            self.described(method, path, ROUTES[(method, path)])
            return
        summary = (handler.__doc__ or handler.__name__.replace("_", " ")).strip().splitlines()[0]
        operation: dict[str, Any] = {"operationId": f"{method.lower()}_{_slug(path)}", "summary": summary,
                                     "tags": [_area(path)]}
        if _path_parameters(path):
            operation["parameters"] = [{"name": name, "in": "path", "required": True,
                                        "schema": {"type": "string"}} for name in _path_parameters(path)]
        struct, status = _HAND_WRITTEN_INPUTS.get((method, path), (None, 200))
        if struct is not None:
            operation["requestBody"] = self.body(struct, set())
        rpc = style_of(path) == "rpc"
        public = path in _PUBLIC_PATHS
        operation["responses"] = {str(status): _response("success", _ref(RpcResult if rpc else RestData)),
                                  **self.errors(public=public, takes_input=struct is not None, rpc=rpc)}
        if public:
            operation["security"] = []
        self.add(method, _openapi_path(path), operation)


def _area(path: str) -> str:
    return path.removeprefix("/api/").removeprefix("v1/").split("/")[0].removesuffix(".json")


def _camel(name: str) -> str:
    """A route's path parameter as the API spells names (`form_id` -> `formId`)."""
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", _openapi_path(path).removeprefix("/api/v1/")).strip("_").lower()


def _openapi_path(path: str) -> str:
    return _PATH_PARAMETER.sub(r"{\1}", path)


def _security(procedure: Procedure) -> list[dict[str, list[str]]]:
    if procedure.access is Access.PUBLIC:
        return []
    if procedure.session_only:
        return [{"sessionCookie": []}]
    return [{"bearerAuth": []}, {"sessionCookie": []}]


def _operation(procedure: Procedure, operation_id: str) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": procedure.summary,
        "tags": [procedure.name.split(".", 1)[0]],
        "security": _security(procedure),
        # What a bearer credential needs (null: any credential of the organization will do).
        "x-obeya-scopes": {"apiKey": procedure.key_scope, "token": procedure.token_scope},
        "x-obeya-access": {"level": procedure.access.value, "minRole": procedure.min_role.label,
                           "sessionOnly": procedure.session_only, "planFeature": procedure.feature},
    }


def _service_version() -> str:
    try:
        return version("obeya")
    except PackageNotFoundError:
        return "0.0.0"


def openapi_document(app: web.Application) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `app`: its REST routes and every registered procedure."""
    rest_routes: list[RestRoute] = app.get(REST_ROUTES, [])
    builder = _Builder(_inputs())
    described = {(route.method, route.path) for route in rest_routes}
    for route in rest_routes:
        builder.rest(route)
    for served in app.router.routes():
        path = served.resource.canonical if served.resource else ""
        if served.method in ("HEAD", "*") or not path.startswith("/api/") or path.startswith("/api/trpc/"):
            continue
        if (served.method, path) not in described:
            builder.hand_written(served.method, path, served.handler)
    for procedure in sorted(REGISTRY.values(), key=lambda p: p.name):
        builder.rpc(procedure)
    builder.paths[MCP_PATH] = mcp_path_item()
    node = app.get(NODE)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Obeya API",
            "version": _service_version(),
            "description": (
                "Two styles on the organization's host. RPC (tRPC wire format): `/api/trpc/<procedure>`, "
                'reads by GET with `input` = URL-encoded `{"json": ...}`, writes by POST with body '
                '`{"json": ...}`; `<a>,<b>?batch=1` runs several calls with input keyed "0", "1", ... and '
                "answers an array. REST: `/api/v1/...` with `data`/`meta` envelopes. "
                "`x-obeya-scopes` names the API-key and token scope an operation needs."),
        },
        # The organization's address as this server prints it (OBEYA_PUBLIC_URL, actors/kernel/node.py base_url).
        "servers": [{"url": node.base_url("{organization}") if node else "http://{organization}.localhost",
                     "variables": {"organization": {"default": "acme", "description": "the organization's slug"}}}],
        "security": [{"bearerAuth": []}, {"sessionCookie": []}],
        "paths": dict(sorted(builder.paths.items())),
        "components": {
            "schemas": builder.schemas,
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "API key (`svc_sk_live_...`), personal access token "
                                              "(`svc_pat_...`) or OAuth access token; on /mcp only, an "
                                              "assistant (MCP) key (`svc_mcp_live_...`)"},
                "sessionCookie": {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE},
                "formSession": {"type": "http", "scheme": "bearer",
                                "description": "a form session (`svc_fst_...`) from forms.verifyOtp, for that "
                                               "form's paths under /api/forms/ only"},
            },
        },
    }


async def serve_openapi(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI_DOCUMENT], content_type=JSON)


def add_openapi_route(app: web.Application) -> None:
    """Serve the document at OPENAPI_PATH, built once when the application starts (routes are final then)."""
    prepare_openapi_schemas()

    async def build(app: web.Application) -> None:
        app[OPENAPI_DOCUMENT] = msgspec.json.encode(openapi_document(app))

    app.on_startup.append(build)
    app.router.add_get(OPENAPI_PATH, serve_openapi)
