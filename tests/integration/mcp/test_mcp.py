"""Assistants over MCP (docs/assistants.md): keys made by a member's session, and the official MCP client
talking Streamable HTTP to the real server on 127.0.0.1: initialize, list tools, call a read and a write, be
refused a tool outside the key, read a resource, and a revoked key refused with 401."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
import pytest
import socketio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from actors.identity.last_used import flush
from actors.runtime.clock import ManualClock
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen
from web.keys import NODE

# The brief names the client's streamablehttp_client, which mcp 1.30 marks deprecated for streamable_http_client.
pytestmark = pytest.mark.filterwarnings("ignore:Use `streamable_http_client`:DeprecationWarning")
KEY_FORMAT = re.compile(r"^svc_mcp_live_[0-9a-f]{40}$")


async def _create(org: Org, **fields: Any) -> tuple[str, dict[str, Any]]:
    reply = await org.owner.mutate("mcpKeys.create", {"name": "Claude on line 3", **fields})
    assert reply.status == 200, reply.body
    return reply.data["key"], reply.data["mcpKey"]


def _plain_http_client(headers: dict[str, str] | None = None, timeout: httpx.Timeout | None = None,
                       auth: httpx.Auth | None = None) -> httpx.AsyncClient:
    """The SDK's client without TLS set up: its default loads the CA bundle on the event loop (about 70 ms,
    which the suite's loop guard counts as a blocked loop), and the test server speaks plain HTTP."""
    return httpx.AsyncClient(headers=headers, timeout=timeout or httpx.Timeout(30, read=300), auth=auth,
                             follow_redirects=True, verify=False)


@asynccontextmanager
async def _session(org: Org, key: str) -> AsyncIterator[ClientSession]:
    url = str(org.owner.client.server.make_url("/mcp"))
    headers = {"Host": org.host, "Authorization": f"Bearer {key}"}
    async with streamablehttp_client(url, headers=headers, httpx_client_factory=_plain_http_client) as streams:
        read, write, _ = streams
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def test_keys_are_made_listed_and_checked_by_sessions_only(org: Org) -> None:
    key, made = await _create(org, allowedTools=["items_create", "boards.get"],
                              allowedResources=["obeya://board/brd_x"])
    assert KEY_FORMAT.match(key) and made["prefix"] == key[13:21]
    assert made["allowedTools"] == ["items.create", "boards.get"] and made["status"] == "active"
    listed = await org.owner.query("mcpKeys.list")
    assert listed.status == 200 and [k["id"] for k in listed.data] == [made["id"]]
    assert key not in json.dumps(listed.body)
    bad = await org.owner.mutate("mcpKeys.create", {"name": "x", "allowedTools": ["nope.nothing"]})
    assert bad.status == 400 and "allowedTools[0]" in json.dumps(bad.body)
    bad = await org.owner.mutate("mcpKeys.create", {"name": "x", "allowedResources": ["http://board/1"]})
    assert bad.status == 400 and "allowedResources" in json.dumps(bad.body)
    # The key is no credential for the HTTP API, nor for making keys.
    assert (await org.owner.with_bearer(key).query("mcpKeys.list")).status == 401
    assert (await org.owner.with_bearer(key).rest("GET", "/api/v1/auth/me")).status == 401


async def test_the_official_client_lists_and_calls_read_tools_of_a_key_without_tools(board: Board) -> None:
    org = board.org
    key, _ = await _create(org)
    async with _session(org, key) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert "boards_get" in tools and "items_list" in tools
        assert "items_create" not in tools and "mcpKeys_create" not in tools and "apiKeys_list" not in tools
        assert tools["boards_get"].inputSchema["type"] == "object"
        assert "id" in tools["boards_get"].inputSchema["properties"]

        read = await session.call_tool("boards_get", {"id": board.id})
        assert not read.isError
        assert json.loads(read.content[0].text)["id"] == board.id  # type: ignore[union-attr]

        refused = await session.call_tool("items_create", {"boardId": board.id, "groupId": board.group_id,
                                                           "name": "Not allowed"})
        assert refused.isError and "FORBIDDEN" in refused.content[0].text  # type: ignore[union-attr]
        invalid = await session.call_tool("boards_get", {})
        assert invalid.isError and "id" in invalid.content[0].text  # type: ignore[union-attr]
    listed = await org.owner.query("items.list", {"boardId": board.id})
    assert listed.status == 200 and listed.data["items"] == []


async def test_a_key_with_tools_writes_as_its_member_and_reads_its_resources(board: Board) -> None:
    org = board.org
    uri = f"obeya://board/{board.id}"
    key, _ = await _create(org, allowedTools=["items.create", "boards.get"], allowedResources=[uri])
    async with _session(org, key) as session:
        assert {tool.name for tool in (await session.list_tools()).tools} == {"items_create", "boards_get"}
        made = await session.call_tool("items_create", {"boardId": board.id, "groupId": board.group_id,
                                                        "name": "Fix the jam on line 3"})
        assert not made.isError, made.content
        item = json.loads(made.content[0].text)  # type: ignore[union-attr]
        refused = await session.call_tool("items_list", {"boardId": board.id})
        assert refused.isError

        resources = (await session.list_resources()).resources
        assert [str(r.uri) for r in resources] == [uri]
        contents = (await session.read_resource(uri)).contents  # type: ignore[arg-type]
        assert json.loads(contents[0].text)["id"] == board.id  # type: ignore[union-attr]
    listed = await org.owner.query("items.list", {"boardId": board.id})
    assert [i["id"] for i in listed.data["items"]] == [item["id"]]
    assert listed.data["items"][0]["createdBy"] == org.owner_id


async def test_a_key_naming_only_resources_has_no_tools_to_reach_other_boards(board: Board) -> None:
    """Named resources and no tools: the key reads those resources only; the read tools (the default of a key
    naming neither) would reach every board of its member."""
    org = board.org
    other = await make_board(org)
    uri = f"obeya://board/{board.id}"
    key, _ = await _create(org, allowedResources=[uri])
    async with _session(org, key) as session:
        assert (await session.list_tools()).tools == []
        refused = await session.call_tool("boards_get", {"id": other.id})
        assert refused.isError and "FORBIDDEN" in refused.content[0].text  # type: ignore[union-attr]
        contents = (await session.read_resource(uri)).contents  # type: ignore[arg-type]
        assert json.loads(contents[0].text)["id"] == board.id  # type: ignore[union-attr]
    everything, _ = await _create(org)
    async with _session(org, everything) as session:
        read = await session.call_tool("boards_get", {"id": other.id})
        assert not read.isError and json.loads(read.content[0].text)["id"] == other.id  # type: ignore[union-attr]


async def test_a_revoked_key_is_refused_with_401(org: Org) -> None:
    key, made = await _create(org)
    client = org.owner.client
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    headers = {"Host": org.host, "Authorization": f"Bearer {key}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    async with client.post("/mcp", data=body, headers=headers) as response:
        assert response.status == 200 and (await response.json())["result"]["tools"]
    revoked = await org.owner.mutate("mcpKeys.revoke", {"id": made["id"]})
    assert revoked.status == 200 and revoked.data["status"] == "revoked"
    async with client.post("/mcp", data=body, headers=headers) as response:
        assert response.status == 401
    async with client.post("/mcp", data=body, headers={**headers, "Authorization": "Bearer nope"}) as response:
        assert response.status == 401


async def test_a_key_shows_its_last_use_and_is_refused_once_expired(clocked_client: Any,
                                                                   clock: ManualClock) -> None:
    org = await make_org(clocked_client)
    node = clocked_client.app[NODE]
    expires = (clock.now() + timedelta(hours=1)).isoformat()
    key, made = await _create(org, expiresAt=expires)
    assert made["lastUsedAt"] is None and made["expiresAt"] is not None and made["status"] == "active"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert (await org.owner.with_bearer(key).rest("POST", "/mcp", ping)).status == 200
    listed = await org.owner.query("mcpKeys.list")
    assert listed.data[0]["lastUsedAt"] is not None
    await flush(node)
    assert await node.pool.fetchval("SELECT last_used_at FROM mcp_keys WHERE id = $1", made["id"]) is not None

    clock.advance(3600)
    assert (await org.owner.with_bearer(key).rest("POST", "/mcp", ping)).status == 401
    assert (await org.owner.query("mcpKeys.list")).data[0]["status"] == "expired"
    past = await org.owner.mutate("mcpKeys.create", {"name": "late", "expiresAt": "2000-01-01T00:00:00Z"})
    assert past.status == 400 and "expiresAt" in json.dumps(past.body)


async def test_an_expiry_beyond_what_utc_holds_is_refused_naming_expires_at(org: Org) -> None:
    # 9999-12-31T23:59:59-23:59 is in year 10000 in UTC: it failed to be stored (500) for MCP and API keys alike.
    for procedure in ("mcpKeys.create", "apiKeys.create"):
        for moment in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"):
            reply = await org.owner.mutate(procedure, {"name": "far", "expiresAt": moment})
            assert reply.status == 400 and "expiresAt" in json.dumps(reply.body), (procedure, moment, reply.body)
    latest = await org.owner.mutate("mcpKeys.create", {"name": "far", "expiresAt": "9999-12-31T23:59:59Z"})
    assert latest.status == 200 and latest.data["mcpKey"]["expiresAt"] == "9999-12-31T23:59:59.000Z"


async def test_a_key_opens_no_live_socket(board: Board) -> None:
    # Valid on /mcp only: on the socket the key would follow every board its member reads, whatever its
    # allowedResources, and on a plan without API access.
    org = board.org
    key, _ = await _create(org, allowedTools=["boards.get"], allowedResources=[f"obeya://board/{board.id}"])
    screen, reasons = Screen(), []
    screen.client.on("connect_error", reasons.append)
    try:
        with pytest.raises(socketio.exceptions.ConnectionError):
            await screen.connect(org.owner, token=key, cookie=False)
    finally:
        await screen.close()
    assert [r["data"] for r in reasons] == [{"code": "UNAUTHORIZED",
                                             "message": "an assistant (MCP) key is valid on /mcp only"}]
