"""Assistant (MCP) keys (docs/assistants.md): inputs and procedure declarations.

Like API keys, managing them is session-only: a key that could mint keys would be a privilege escalation. An
MCP key acts as the member who made it, so any member may make one; it is theirs to list and revoke (an
admin may revoke anyone's).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from protocol.fields import Id
from protocol.registry import EmptyInput, declare

MCP_KEY_PREFIX = "svc_mcp_live_"
# A resource an assistant may read: `obeya://board/<id>` or `obeya://kpi/<id>`.
RESOURCE_PATTERN = r"^obeya://(board|kpi)/[A-Za-z0-9_-]{1,64}$"
ResourceUri = Annotated[str, msgspec.Meta(pattern=RESOURCE_PATTERN)]
# A procedure name, dotted (`items.setValue`) or as its tool name (`items_setValue`); checked by the service.
ToolName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
KeyName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class CreateMcpKeyInput(msgspec.Struct):
    name: KeyName
    allowedTools: Annotated[list[ToolName], msgspec.Meta(max_length=500)] = msgspec.field(default_factory=list)
    allowedResources: Annotated[list[ResourceUri], msgspec.Meta(max_length=500)] = msgspec.field(
        default_factory=list)
    expiresAt: datetime | None = None  # none: until revoked


class McpKeyIdInput(msgspec.Struct):
    id: Id


CREATE_MCP_KEY = declare("mcpKeys.create", "mutation", CreateMcpKeyInput, key_scope="manage_settings",
                         token_scope="admin", session_only=True, returns_secret=True,
                         summary="Create an assistant (MCP) key acting as the caller; the key is returned once")
LIST_MCP_KEYS = declare("mcpKeys.list", "query", EmptyInput, key_scope="manage_settings", token_scope="admin",
                        session_only=True, summary="The caller's assistant (MCP) keys, without their secrets")
REVOKE_MCP_KEY = declare("mcpKeys.revoke", "mutation", McpKeyIdInput, key_scope="manage_settings",
                         token_scope="admin", session_only=True, summary="Revoke an assistant (MCP) key for good")
