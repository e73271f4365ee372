"""The /mcp transport as the MCP specification fixes it (Streamable HTTP, 2025-03-26 .. 2025-11-25), the plan's API
access gate, the org's rate limit and the Idempotency-Key header, seen as an assistant's HTTP client sees them."""

from __future__ import annotations

import json
from typing import Any

import pytest

import web.mcp_resources
from protocol.errors import ServiceUnavailable
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board
from tests.integration.kpis.conftest import define, kpi_input
from tests.integration.mcp.test_mcp import _create, _session

pytestmark = pytest.mark.filterwarnings("ignore:Use `streamable_http_client`:DeprecationWarning")
ACCEPT = "application/json, text/event-stream"


async def _post(org: Org, key: str, body: Any, **headers: str) -> tuple[int, dict[str, str], Any]:
    sent = {"Host": org.host, "Authorization": f"Bearer {key}", "Content-Type": "application/json",
            "Accept": ACCEPT, **{name.replace("_", "-"): value for name, value in headers.items()}}
    data = body if isinstance(body, bytes) else json.dumps(body)
    async with org.owner.client.post("/mcp", data=data, headers=sent) as response:
        text = await response.text()
        return response.status, dict(response.headers), json.loads(text) if text else None


def _request(method: str, params: dict[str, Any] | None = None, ident: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, **({"params": params} if params else {})}


async def test_get_and_delete_are_405_with_allow_post(org: Org) -> None:
    key, _ = await _create(org)
    headers = {"Host": org.host, "Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
    for method in ("GET", "DELETE"):
        async with org.owner.client.request(method, "/mcp", headers=headers) as response:
            assert response.status == 405 and response.headers["Allow"] == "POST"


async def test_the_header_rules_of_the_transport(org: Org) -> None:
    key, _ = await _create(org)
    ping = _request("ping")
    status, _, body = await _post(org, key, ping, Origin="http://evil.example")
    assert status == 403 and body["error"]["code"] == -32600 and "Origin" in body["error"]["message"]
    status, _, body = await _post(org, key, ping, Origin=f"http://{org.host}")
    assert status == 200 and body == {"jsonrpc": "2.0", "id": 1, "result": {}}
    status, _, body = await _post(org, key, ping, MCP_Protocol_Version="1999-01-01")
    assert status == 400 and "MCP-Protocol-Version" in body["error"]["message"]
    status, _, body = await _post(org, key, ping, MCP_Protocol_Version="2025-06-18")
    assert status == 200
    status, _, body = await _post(org, key, ping, Accept="text/html")
    assert status == 406 and "Accept" in body["error"]["message"]
    status, _, body = await _post(org, key, b"{not json")
    assert status == 400 and body["error"]["code"] == -32700 and body["id"] is None
    status, _, body = await _post(org, key, b"[" * 200 + b"]" * 200)
    assert status == 400 and body["error"]["code"] == -32600
    status, _, body = await _post(org, key, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert status == 202 and body is None
    status, _, body = await _post(org, key, {"jsonrpc": "2.0", "id": 7, "result": {}})
    assert status == 202 and body is None


async def test_a_plan_without_api_access_refuses_the_key_with_403(client: Any) -> None:
    org = await make_org(client, plan="starter")
    key, _ = await _create(org)
    status, _, body = await _post(org, key, _request("tools/list"))
    assert status == 403
    assert body["error"]["code"] == -32600 and "API access" in body["error"]["message"]


async def test_mcp_requests_count_against_the_plan_rate_limit(client: Any) -> None:
    org = await make_org(client, plan="free")  # 60 a minute; refused for API access, counted all the same
    key, _ = await _create(org)
    statuses = [(await _post(org, key, _request("ping")))[0] for _ in range(60)]
    assert statuses == [403] * 60
    status, headers, _ = await _post(org, key, _request("ping"))
    assert status == 429 and 1 <= int(headers["Retry-After"]) <= 60


async def test_a_repeated_write_with_one_idempotency_key_is_applied_once(board: Board) -> None:
    org = board.org
    key, _ = await _create(org, allowedTools=["items.create"])
    call = _request("tools/call", {"name": "items_create", "arguments": {
        "boardId": board.id, "groupId": board.group_id, "name": "Only once"}})
    first = await _post(org, key, call, Idempotency_Key="mcp-write-1")
    again = await _post(org, key, call, Idempotency_Key="mcp-write-1")
    assert first[0] == again[0] == 200 and not first[2]["result"]["isError"]
    assert first[2] == again[2]
    listed = await org.owner.query("items.list", {"boardId": board.id})
    assert [i["name"] for i in listed.data["items"]] == ["Only once"]


async def test_a_key_without_resources_lists_every_board_and_kpi_its_member_reads(board: Board) -> None:
    org = board.org
    kpi = await define(board)
    key, _ = await _create(org)
    async with _session(org, key) as session:
        listed = await session.list_resources()
        uris = {str(r.uri): r.name for r in listed.resources}
        assert uris == {f"obeya://board/{board.id}": (await board.refresh())["name"],
                        f"obeya://kpi/{kpi['id']}": "On-time delivery"}
        assert listed.nextCursor is None
        templates = (await session.list_resource_templates()).resourceTemplates
        assert {t.uriTemplate for t in templates} == {"obeya://board/{id}", "obeya://kpi/{id}"}
        contents = (await session.read_resource(f"obeya://kpi/{kpi['id']}")).contents  # type: ignore[arg-type]
        assert json.loads(contents[0].text)["id"] == kpi["id"]  # type: ignore[union-attr]
    status, _, body = await _post(org, key, _request("resources/list", {"cursor": "nope"}))
    assert status == 200 and body["error"]["code"] == -32602


async def test_openapi_describes_mcp(client: Any) -> None:
    document = await (await client.get("/api/v1/openapi.json")).json()
    item = document["paths"]["/mcp"]
    assert set(item) == {"post", "get", "delete"}
    assert item["post"]["security"] == [{"bearerAuth": []}]
    assert {"200", "202", "400", "401", "403", "406", "429"} <= set(item["post"]["responses"])
    assert "405" in item["get"]["responses"] and "405" in item["delete"]["responses"]
    assert "svc_mcp_live_" in document["components"]["securitySchemes"]["bearerAuth"]["description"]


async def test_resources_come_in_pages_of_50_followed_by_cursor(board: Board) -> None:
    org = board.org
    expected = {f"obeya://board/{board.id}"}
    for n in range(25):  # 26 boards in one project, each with a KPI: 52 resources
        made = await org.owner.mutate("boards.create", {"projectId": board.project_id, "name": f"Cell {n}"})
        assert made.status == 200, made.body
        expected.add(f"obeya://board/{made.data['id']}")
    for board_uri in list(expected):
        kpi = await org.owner.mutate("kpis.define", kpi_input(board_uri.rsplit("/", 1)[1]))
        assert kpi.status == 200, kpi.body
        expected.add(f"obeya://kpi/{kpi.data['id']}")
    key, _ = await _create(org)
    async with _session(org, key) as session:
        first = await session.list_resources()
        assert len(first.resources) == 50 and first.nextCursor is not None
        second = await session.list_resources(cursor=first.nextCursor)
        assert len(second.resources) == 2 and second.nextCursor is None
    assert {str(r.uri) for r in [*first.resources, *second.resources]} == expected


async def test_an_unreadable_origin_or_cursor_is_refused_not_a_500(org: Org) -> None:
    key, _ = await _create(org)
    for origin in ("http://[", "null", f"http://{org.host}:8443", f"ftp://{org.host}"):
        status, _, body = await _post(org, key, _request("ping"), Origin=origin)
        assert status == 403 and "Origin" in body["error"]["message"], origin
    for cursor in ("²", "-1", "1e3", 5):  # a superscript digit passes str.isdigit but not int()
        status, _, body = await _post(org, key, _request("resources/list", {"cursor": cursor}))
        assert status == 200 and body["error"]["code"] == -32602 and "cursor" in body["error"]["message"], cursor


async def test_a_batch_holds_at_most_50_messages(org: Org) -> None:
    # Counted once against the rate limit, a batch without bound would run any number of tool calls.
    key, _ = await _create(org)
    status, _, body = await _post(org, key, [_request("ping", ident=n) for n in range(50)])
    assert status == 200 and [answer["id"] for answer in body] == list(range(50))
    for batch in ([_request("ping", ident=n) for n in range(51)], []):
        status, _, body = await _post(org, key, batch)
        assert status == 400 and body["error"]["code"] == -32600 and "batch" in body["error"]["message"]


async def test_a_refused_tool_call_leaves_its_idempotency_key_free_for_the_retry(board: Board) -> None:
    # Over HTTP a refused write (4xx, 5xx) releases its key, so its retry runs again; a refused tool call is an
    # HTTP 200 whose result has isError, and must do the same, not replay the refusal for good.
    org = board.org
    viewer_id, viewer = await org.add_user("guest")
    made = await viewer.mutate("mcpKeys.create", {"name": "a guest's assistant", "allowedTools": ["items.create"]})
    assert made.status == 200, made.body
    call = _request("tools/call", {"name": "items_create", "arguments": {
        "boardId": board.id, "groupId": board.group_id, "name": "After the promotion"}})
    refused = await _post(org, made.data["key"], call, Idempotency_Key="mcp-retry-1")
    assert refused[0] == 200 and refused[2]["result"]["isError"]
    promoted = await org.owner.mutate("organizations.members.updateRole", {"userId": viewer_id, "role": "member"})
    assert promoted.status == 200, promoted.body
    retried = await _post(org, made.data["key"], call, Idempotency_Key="mcp-retry-1")
    assert retried[0] == 200 and not retried[2]["result"]["isError"], (retried[1], refused[2])
    assert "Idempotent-Replayed" not in retried[1]
    listed = await org.owner.query("items.list", {"boardId": board.id})
    assert [i["name"] for i in listed.data["items"]] == ["After the promotion"]
    again = await _post(org, made.data["key"], call, Idempotency_Key="mcp-retry-1")
    assert again[1].get("Idempotent-Replayed") == "true" and again[2] == retried[2]


async def test_messages_that_are_not_requests_notifications_or_responses_are_invalid(org: Org) -> None:
    key, _ = await _create(org)
    pings = [{"jsonrpc": "2.0", "id": ident, "method": "ping"} for ident in (None, {"a": 1}, True, 1.5)]
    for message in ({"jsonrpc": "2.0", "id": 3}, {"jsonrpc": "2.0", "id": 3, "result": {}, "error": {}}, *pings,
                    {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": []}):
        status, _, body = await _post(org, key, message)
        assert status == 200 and body["error"]["code"] == -32600, message
        assert body["id"] is None or body["id"] == 4, message
    status, _, body = await _post(org, key, {"jsonrpc": "2.0", "id": "a", "method": "ping"})
    assert status == 200 and body == {"jsonrpc": "2.0", "id": "a", "result": {}}


async def test_initialize_offers_the_latest_version_when_the_asked_one_is_unknown(org: Org) -> None:
    key, _ = await _create(org)
    hello = {"capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
    status, _, body = await _post(org, key, _request("initialize", {**hello, "protocolVersion": "2099-01-01"}))
    assert status == 200 and body["result"]["protocolVersion"] == "2025-11-25"
    status, _, body = await _post(org, key, _request("initialize", {**hello, "protocolVersion": "2025-03-26"}))
    assert status == 200 and body["result"]["protocolVersion"] == "2025-03-26"


async def test_a_resource_walk_that_meets_an_outage_says_retry_rather_than_listing_less(
        board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only a plan without KPIs (403) or a resource gone or out of reach (404, 403) leaves a resource out; a 503
    # is the request's, with Retry-After, not a shorter list the assistant takes for the whole.
    org = board.org
    await define(board)
    named, _ = await _create(org, allowedResources=[f"obeya://board/{board.id}", "obeya://kpi/kpi_gone"])
    everything, _ = await _create(org)
    status, _, body = await _post(org, named, _request("resources/list"))
    assert status == 200 and [r["uri"] for r in body["result"]["resources"]] == [f"obeya://board/{board.id}"]
    real = web.mcp_resources.call_procedure

    async def away(request: Any, procedure: Any, arguments: Any) -> Any:
        if procedure.name in ("kpis.list", "boards.get"):
            raise ServiceUnavailable("the board's actor is moving")
        return await real(request, procedure, arguments)

    monkeypatch.setattr(web.mcp_resources, "call_procedure", away)
    for key in (named, everything):
        status, headers, body = await _post(org, key, _request("resources/list"))
        assert status == 503 and headers["Retry-After"] == "1", body
