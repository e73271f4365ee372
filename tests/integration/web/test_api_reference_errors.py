"""The refusals the API reference (docs/api/, web/api_reference_errors.py) lists that no declaration states: an
unknown id is 404 NOT_FOUND for every procedure the reference lists it for, and two refusals any request may get."""

from __future__ import annotations

import json
from typing import Any

from protocol.registry import REGISTRY, Procedure
from tests.harness import Api, make_org
from web.api_reference_errors import answers_not_found

UNKNOWN_ID = "zzz_aaaaaaaaaaaaaaaaaaaa"
# Fields given a value although optional: an update with nothing to change is refused before its id is looked up.
CHANGED = ("name", "title")
# Inputs whose synthesized values another check would refuse before the id is looked up.
PATCHES: dict[str, dict[str, Any]] = {
    "automations.create": {"trigger": {"type": "item.created"}},
    "meetings.markDiscussed": {"entry": "kpis/a"},
}


def input_schema(document: dict[str, Any], procedure: Procedure) -> dict[str, Any]:
    operation = document["paths"][f"/api/trpc/{procedure.name}"]["get" if procedure.is_query else "post"]
    content = (operation["parameters"][0] if procedure.is_query else operation["requestBody"])["content"]
    ref = content["application/json"]["schema"]["properties"]["json"]["$ref"]
    schema: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return schema


def synthesize(schema: dict[str, Any], components: dict[str, Any], name: str = "") -> Any:
    """A value that passes `schema`, every id in it unknown."""
    if "$ref" in schema:
        return synthesize(components[schema["$ref"].rsplit("/", 1)[1]], components, name)
    if "anyOf" in schema:
        return synthesize(next(o for o in schema["anyOf"] if o.get("type") != "null"), components, name)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {key: synthesize(value, components, key) for key, value in schema.get("properties", {}).items()
                if key in required or key in CHANGED}
    if kind == "array":
        return [synthesize(schema["items"], components, name) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return _string(schema, name)
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return False if kind == "boolean" else None


def _string(schema: dict[str, Any], name: str) -> str:
    if name == "id" or name.endswith("Id"):
        return UNKNOWN_ID
    if schema.get("format") == "date":
        return "2030-01-01"
    pattern = schema.get("pattern", "")
    for marker, value in (("\\d{4}", "2030-01-01"), ("@", "someone@example.com"), ("http", "https://example.com/a"),
                          ("[0-9]{6}", "123456"), ("^#", "#000000")):
        if marker in pattern:
            return value
    return "a" * max(1, schema.get("minLength", 1))


async def test_an_unknown_id_is_not_found_wherever_the_reference_says_so(client: Any) -> None:
    org = await make_org(client, plan="enterprise")  # every feature: no procedure refused for its plan first
    async with client.get("/api/v1/openapi.json") as response:
        document = json.loads(await response.read())
    checked, wrong = 0, {}
    for name, procedure in sorted(REGISTRY.items()):
        schema = input_schema(document, procedure)
        if not answers_not_found(procedure, schema):
            continue
        data = {**synthesize(schema, document["components"]["schemas"]), **PATCHES.get(name, {})}
        reply = await (org.owner.query(name, data) if procedure.is_query else org.owner.mutate(name, data))
        checked += 1
        if reply.status != 404:
            wrong[name] = (reply.status, data, reply.body)
    assert checked > 100
    assert not wrong, f"the reference lists 404 for an unknown id, the server answers otherwise: {wrong}"


async def test_an_unknown_organization_and_a_bad_bearer_are_refused_even_where_no_credential_is_needed(
        client: Any) -> None:
    anonymous = Api(client, "no-such-organization.localhost")
    reply = await anonymous.query("auth.checkEmail", {"email": "someone@example.com"})
    assert (reply.status, reply.error["json"]["data"]["code"]) == (404, "NOT_FOUND")
    org = await make_org(client)
    reply = await org.anonymous.with_bearer("svc_sk_live_" + "x" * 40).query(
        "auth.checkEmail", {"email": "someone@example.com"})
    assert (reply.status, reply.error["json"]["data"]["code"]) == (401, "UNAUTHORIZED")
