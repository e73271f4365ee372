"""The tRPC wire format: reads by GET, writes by POST, batches, error envelopes and codes."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from tests.harness import Org
from tests.integration.boards.conftest import make_board


async def test_query_returns_result_data_json(org: Org) -> None:
    reply = await org.owner.query("auth.me")
    assert reply.status == 200
    me = reply.body["result"]["data"]["json"]
    assert me["email"] == org.owner_email
    assert me["memberships"] == [{"organizationId": org.id, "organizationSlug": org.slug, "role": "owner"}]
    assert "passwordHash" not in me and "password_hash" not in me


async def test_mutation_by_get_is_method_not_supported(org: Org) -> None:
    reply = await org.owner.query("auth.updateProfile", {"name": "New Name"})
    assert reply.status == 405
    assert reply.error["data"]["code"] == "METHOD_NOT_SUPPORTED"


async def test_unknown_procedure_is_not_found_with_trpc_code(org: Org) -> None:
    reply = await org.owner.query("nothing.here")
    assert reply.status == 404
    error = reply.error
    assert error["code"] == -32004
    assert error["data"] == {"code": "NOT_FOUND", "httpStatus": 404, "path": "nothing.here"}
    assert error["json"]["message"] == error["message"]


async def test_invalid_input_is_bad_request_naming_the_field(org: Org) -> None:
    reply = await org.owner.mutate("auth.updateProfile", {"name": "x"})
    assert reply.status == 400
    assert reply.error["code"] == -32600
    assert reply.error["data"]["code"] == "BAD_REQUEST"
    assert reply.error["data"]["details"][0]["field"] == "name"


async def test_missing_credential_is_unauthorized(org: Org) -> None:
    reply = await org.anonymous.query("auth.me")
    assert reply.status == 401
    assert reply.error["code"] == -32001


async def test_get_batch_answers_each_call_on_its_own(org: Org) -> None:
    taken = {"json": {"email": org.owner_email}}
    free = {"json": {"email": "nobody-yet@example.test"}}
    inputs = quote(json.dumps({"0": {}, "1": taken, "2": free}))
    async with org.owner.client.get(f"/api/trpc/auth.me,auth.checkEmail,auth.checkEmail?batch=1&input={inputs}",
                                    headers=org.owner.headers()) as response:
        body = await response.json()
        assert response.status == 207
    assert len(body) == 3
    assert body[0]["result"]["data"]["json"]["email"] == org.owner_email
    assert body[1]["error"]["data"]["httpStatus"] == 409
    assert body[2]["result"]["data"]["json"] == {"available": True}


async def test_post_batch_runs_mutations_in_order(org: Org) -> None:
    body = json.dumps({"0": {"json": {"name": "First Name"}}, "1": {"json": {"name": "Second Name"}}})
    async with org.owner.client.post("/api/trpc/auth.updateProfile,auth.updateProfile?batch=1", data=body,
                                     headers=org.owner.headers({"Content-Type": "application/json"})) as response:
        assert response.status == 200
        results = await response.json()
    assert [r["result"]["data"]["json"]["name"] for r in results] == ["First Name", "Second Name"]
    assert (await org.owner.query("auth.me")).data["name"] == "Second Name"


async def test_malformed_input_json_is_bad_request(org: Org) -> None:
    async with org.owner.client.get("/api/trpc/auth.me?input=%7Bnot-json",
                                    headers=org.owner.headers()) as response:
        assert response.status == 400
        assert (await response.json())["error"]["data"]["code"] == "BAD_REQUEST"


async def _raw_call(org: Org, name: str, text: str, *, post: bool) -> dict[str, Any]:
    api = org.owner
    if post:
        request = api.client.post(f"/api/trpc/{name}", data=text,
                                  headers=api.headers({"Content-Type": "application/json"}))
    else:
        request = api.client.get(f"/api/trpc/{name}?input={quote(text)}", headers=api.headers())
    async with request as response:
        body: dict[str, Any] = await response.json()
        assert response.status == 200, body
    return body["result"]["data"]["json"]


async def test_each_input_form_reaches_the_procedure_alike(org: Org) -> None:
    """`{"json": x}`, the bare input, and superjson's `meta` marking a field undefined: the typed decoder takes the
    first two (web/inputs.py `typed_input`), the general way the third; all three are the same call."""
    board = await make_board(org)
    status = board.column("status")
    item = await board.add_item("Pump")
    call = {"itemId": item["id"], "columnId": status["id"]}
    forms = [
        {"json": {**call, "value": "Done"}},
        {**call, "value": "Stuck"},
        {"json": {**call, "value": "Working on it", "expectedVersion": None},
         "meta": {"values": {"expectedVersion": ["undefined"]}}},
    ]
    for form in forms:
        label = (form.get("json") or form)["value"]
        updated = await _raw_call(org, "items.setValue", json.dumps(form), post=True)
        assert updated["values"][status["id"]]["label"] == label
    listed = [await _raw_call(org, "items.list", json.dumps(form), post=False) for form in (
        {"json": {"boardId": board.id}}, {"boardId": board.id},
        {"json": {"boardId": board.id, "cursor": None}, "meta": {"values": {"cursor": ["undefined"]}}})]
    assert listed[0] == listed[1] == listed[2]
    assert [i["values"][status["id"]]["label"] for i in listed[0]["items"]] == ["Working on it"]
