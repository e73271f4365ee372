"""`GET /api/v1/openapi.json`: generated from the registry and the route tables, public, valid OpenAPI 3.1."""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from openapi_spec_validator import validate

from protocol.registry import REGISTRY
from web.openapi import OPENAPI_DOCUMENT
from web.rest import REST_ROUTES


async def fetch_document(client: Any) -> tuple[Any, dict[str, Any]]:
    """The document as an anonymous caller gets it (no cookie, no bearer)."""
    async with client.get("/api/v1/openapi.json") as response:
        return response, json.loads(await response.read())


def schema_of(document: dict[str, Any], ref: dict[str, str]) -> dict[str, Any]:
    name = ref["$ref"].removeprefix("#/components/schemas/")
    schema: dict[str, Any] = document["components"]["schemas"][name]
    return schema


async def test_document_is_public_valid_openapi_31(client: Any) -> None:
    response, document = await fetch_document(client)
    assert response.status == 200
    assert response.content_type == "application/json"
    assert document["openapi"] == "3.1.0"
    # Seconds of CPU, in another process: a thread would hold the GIL, and with it the loop the server runs on.
    with ProcessPoolExecutor(max_workers=1) as validator:
        await asyncio.get_running_loop().run_in_executor(validator, validate, document)


async def test_document_is_built_once_and_served_as_is(client: Any) -> None:
    async with client.get("/api/v1/openapi.json") as first, client.get("/api/v1/openapi.json") as second:
        assert await first.read() == await second.read() == client.server.app[OPENAPI_DOCUMENT]


async def test_every_procedure_appears_with_its_rpc_method(client: Any) -> None:
    _, document = await fetch_document(client)
    paths = document["paths"]
    assert REGISTRY
    for name, procedure in REGISTRY.items():
        operations = paths[f"/api/trpc/{name}"]
        method = "get" if procedure.is_query else "post"
        assert list(operations) == [method], name
        operation = operations[method]
        assert operation["operationId"] == name
        assert operation["summary"] == procedure.summary
        assert operation["x-obeya-scopes"] == {"apiKey": procedure.key_scope, "token": procedure.token_scope}
        assert "$ref" in operation["responses"]["200"]["content"]["application/json"]["schema"]


async def test_every_rest_route_appears_with_its_method(client: Any) -> None:
    _, document = await fetch_document(client)
    routes = client.server.app[REST_ROUTES]
    assert routes
    for route in routes:
        operation = document["paths"][route.path][route.method.lower()]
        assert operation["summary"] == REGISTRY[route.procedure].summary
        assert str(route.status) in operation["responses"]
        path_parameters = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
        assert path_parameters == re.findall(r"\{(\w+)", route.path)
        assert ("requestBody" in operation) <= (route.method in ("POST", "PUT", "PATCH"))
    # Routes written by hand are described too: every /api/ path the server answers.
    served = {(r.method.lower(), r.resource.canonical) for r in client.server.app.router.routes()
              if r.resource and r.resource.canonical.startswith("/api/v1/") and r.method != "HEAD"}
    described = {(method, path) for path, operations in document["paths"].items() for method in operations}
    assert served <= described


async def test_query_input_travels_as_url_encoded_json(client: Any) -> None:
    _, document = await fetch_document(client)
    operation = document["paths"]["/api/trpc/auth.checkEmail"]["get"]
    (parameter,) = operation["parameters"]
    assert (parameter["name"], parameter["in"], parameter["required"]) == ("input", "query", True)
    wrapper = parameter["content"]["application/json"]["schema"]
    assert wrapper["required"] == ["json"]
    assert schema_of(document, wrapper["properties"]["json"])["required"] == ["email"]
    assert operation["security"] == []
    assert operation["responses"]["400"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RpcError"}


async def test_mutation_body_carries_the_spec_limits(client: Any) -> None:
    _, document = await fetch_document(client)
    body = document["paths"]["/api/trpc/auth.updateProfile"]["post"]["requestBody"]
    wrapper = body["content"]["application/json"]["schema"]
    profile = schema_of(document, wrapper["properties"]["json"])
    assert profile["title"] == "UpdateProfileInput"
    name = next(option for option in profile["properties"]["name"]["anyOf"] if option["type"] == "string")
    assert (name["minLength"], name["maxLength"]) == (2, 100)
    assert profile["properties"]["image"]["anyOf"][0]["maxLength"] == 2048


async def test_rest_get_takes_the_input_fields_as_query_parameters(client: Any) -> None:
    _, document = await fetch_document(client)
    check = document["paths"]["/api/v1/auth/check-email"]["get"]
    assert [(p["name"], p["in"], p["required"]) for p in check["parameters"]] == [("email", "query", True)]
    assert check["parameters"][0]["schema"]["maxLength"] == 254
    assert check["security"] == []
    assert check["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RestError"}
    me = document["paths"]["/api/v1/auth/me"]
    assert me["patch"]["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/UpdateProfileInput"}
    assert me["get"]["security"] == [{"bearerAuth": []}, {"sessionCookie": []}]
    assert me["get"]["x-obeya-scopes"] == {"apiKey": None, "token": "read"}


async def test_envelopes_and_security_schemes_are_described(client: Any) -> None:
    _, document = await fetch_document(client)
    schemas = document["components"]["schemas"]
    assert schemas["RestData"]["required"] == ["data"]
    assert set(schemas["RestPage"]["required"]) == {"data", "meta"}
    assert set(schemas["RestErrorBody"]["required"]) == {"code", "status", "message", "details"}
    assert set(schemas["RpcErrorData"]["required"]) == {"code", "httpStatus", "path"}
    assert "json" in schemas["RpcErrorBody"]["required"]
    assert document["components"]["securitySchemes"] == {
        "bearerAuth": {"type": "http", "scheme": "bearer",
                       "description": document["components"]["securitySchemes"]["bearerAuth"]["description"]},
        "sessionCookie": {"type": "apiKey", "in": "cookie", "name": "authjs.session-token"},
        "formSession": {"type": "http", "scheme": "bearer",
                        "description": document["components"]["securitySchemes"]["formSession"]["description"]},
    }
    signup = document["paths"]["/api/v1/auth/signup"]["post"]
    assert signup["security"] == [] and "201" in signup["responses"]
    assert signup["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SignupInput"}


def success(operation: dict[str, Any], status: str = "200") -> tuple[str, dict[str, Any]]:
    ((media, content),) = operation["responses"][status]["content"].items()
    return media, content["schema"]


def data_of(schema: dict[str, Any]) -> str:
    return str(schema["properties"]["data"]["$ref"].removeprefix("#/components/schemas/"))


async def test_the_file_form_and_decision_routes_say_what_they_take_and_give(client: Any) -> None:
    _, document = await fetch_document(client)
    paths, schemas = document["paths"], document["components"]["schemas"]
    described = {(method.upper(), path) for path, operations in paths.items() for method in operations}
    assert {("POST", "/api/v1/files"), ("GET", "/api/v1/files/{id}"), ("GET", "/api/forms/{formId}"),
            ("POST", "/api/forms/{formId}/submit"), ("POST", "/api/forms/{formId}/files"),
            ("GET", "/api/approvals/decide"), ("POST", "/api/approvals/decide")} <= described
    assert not any("form_id" in path for path in paths)

    upload = paths["/api/v1/files"]["post"]
    assert upload["security"] == [{"bearerAuth": []}, {"sessionCookie": []}]
    assert upload["x-obeya-scopes"] == {"apiKey": "write:items", "token": "write"}
    assert upload["requestBody"]["content"]["multipart/form-data"]["schema"]["required"] == ["file"]
    media, schema = success(upload, "201")
    assert media == "application/json" and data_of(schema) == "FileView"
    assert set(schemas["FileView"]["required"]) == {"id", "name", "size", "type", "url"}
    assert {"413", "422", "401", "403"} <= set(upload["responses"])
    download = paths["/api/v1/files/{id}"]["get"]
    assert success(download)[0] == "*/*" and download["x-obeya-scopes"] == {"apiKey": "read:items", "token": "read"}

    definition = paths["/api/forms/{formId}"]["get"]
    assert definition["security"] == [] and data_of(success(definition)[1]) == "PublicForm"
    assert [(p["name"], p["in"]) for p in definition["parameters"]] == [
        ("formId", "path"), ("t", "query"), ("revision", "query")]
    assert set(schemas["PublicForm"]["required"]) == {"id", "slug", "name", "description", "schema", "settings",
                                                      "requireAuth", "status"}
    submit = paths["/api/forms/{formId}/submit"]["post"]
    assert submit["security"] == [{}, {"sessionCookie": []}, {"formSession": []}]
    assert ("Idempotency-Key", "header") in [(p["name"], p["in"]) for p in submit["parameters"]]
    assert submit["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Answers"}
    assert success(submit)[1] == {"$ref": "#/components/schemas/SubmitReply"}
    assert "Idempotent-Replayed" in submit["responses"]["200"]["headers"]
    assert {"401", "404", "409", "422"} <= set(submit["responses"])
    form_upload = paths["/api/forms/{formId}/files"]["post"]
    assert form_upload["security"] == submit["security"] and "multipart/form-data" in form_upload["requestBody"][
        "content"]
    assert data_of(success(form_upload, "201")[1]) == "FileView" and "413" in form_upload["responses"]

    show, decide = paths["/api/approvals/decide"]["get"], paths["/api/approvals/decide"]["post"]
    assert show["security"] == decide["security"] == []
    assert success(show)[0] == success(decide)[0] == "text/html" and "requestBody" not in show
    assert [p["name"] for p in show["parameters"]] == ["token", "decision"]
    assert set(decide["requestBody"]["content"]) == {"application/x-www-form-urlencoded"}
    assert set(schemas["DecisionForm"]["required"]) == {"token", "csrf", "decision"}


async def test_the_routes_callers_reach_without_a_credential_say_so(client: Any) -> None:
    """Single sign-on's browser legs, an automation's inbound URL and the processor's callback take no credential:
    the sender proves itself otherwise (state cookie, the rule's secret, the processor's signature)."""
    _, document = await fetch_document(client)
    paths = document["paths"]
    start, callback = paths["/api/v1/auth/sso/start"]["get"], paths["/api/v1/auth/sso/callback"]["get"]
    inbound = paths["/api/v1/automations/{automationId}/webhook"]["post"]
    billing = paths["/api/v1/billing/webhook"]["post"]
    for operation in (start, callback, inbound, billing):
        assert operation["security"] == []
        assert operation["responses"].get("401", {}).get("description") != "credential missing or invalid"
    assert "302" in start["responses"] and "302" in callback["responses"]
    assert "202" in inbound["responses"] and {"X-Svc-Signature", "X-Svc-Token"} <= {
        p["name"] for p in inbound["parameters"]}
    assert "Stripe-Signature" in [p["name"] for p in billing["parameters"]] and "400" in billing["responses"]
