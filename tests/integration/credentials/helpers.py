"""Creating credentials through the public interface, for the tests of this folder."""

from __future__ import annotations

from typing import Any

from tests.harness import Api


async def create_key(api: Api, name: str = "CI key", **fields: Any) -> tuple[str, dict[str, Any]]:
    """Create an API key through REST; returns (full key, apiKey object)."""
    reply = await api.rest("POST", "/api/v1/auth/api-keys", {"name": name, **fields})
    assert reply.status == 201, reply.body
    return reply.data["key"], reply.data["apiKey"]


async def create_token(api: Api, name: str = "script", scopes: list[str] | None = None,
                       **fields: Any) -> dict[str, Any]:
    """Create a personal access token at POST /api/auth/tokens; returns the created token object."""
    body = {"json": {"name": name, "scopes": scopes or ["read"], **fields}}
    reply = await api.rest("POST", "/api/auth/tokens", body)
    assert reply.status == 200, reply.body
    return dict(reply.data)
