"""A removed member's credentials in the organization (issue 14): their API keys, assistant (MCP) keys and
personal access tokens there are revoked with the removal, so joining again later brings none of them back."""

from __future__ import annotations

from tests.harness import PASSWORD, Org
from tests.integration.billing.test_limits import invitation_token
from tests.integration.credentials.helpers import create_key, create_token
from web.keys import NODE

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


async def test_keys_of_a_removed_member_stay_revoked_when_they_return(org: Org) -> None:
    member_id, member = await org.add_user("admin")  # API keys are made by admins (manage_settings)
    api_key, made_key = await create_key(member)
    mcp = await member.mutate("mcpKeys.create", {"name": "assistant"})
    assert mcp.status == 200, mcp.body
    token = await create_token(member)
    keeps = await org.owner.mutate("mcpKeys.create", {"name": "the owner's"})  # another member's key stays
    assert keeps.status == 200, keeps.body

    async def statuses() -> tuple[int, int, int, int]:
        return ((await member.with_bearer(api_key).query("auth.me")).status,
                (await member.with_bearer(mcp.data["key"]).rest("POST", "/mcp", PING)).status,
                (await member.with_bearer(token["token"]).query("auth.me")).status,
                (await org.owner.with_bearer(keeps.data["key"]).rest("POST", "/mcp", PING)).status)

    assert await statuses() == (200, 200, 200, 200)
    removed = await org.owner.mutate("organizations.members.remove", {"userId": member_id})
    assert removed.status == 200, removed.body
    assert await statuses() == (401, 401, 401, 200)
    trail = (await org.owner.query("activity.listByOrg", {"limit": 200})).data["entries"]
    revoked = {(entry["entityId"], entry["action"]) for entry in trail
               if (entry["metadata"] or {}).get("reason") == "member.removed"}
    assert revoked == {(made_key["id"], "api_key.revoked"), (mcp.data["mcpKey"]["id"], "mcp_key.revoked"),
                       (token["id"], "personal_token.revoked")}

    email = await org.owner.client.server.app[NODE].pool.fetchval("SELECT email FROM users WHERE id = $1",
                                                                  member_id)
    accepted = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                        {"token": await invitation_token(org, email), "name": "Back",
                                         "password": PASSWORD})
    assert accepted.status == 200, accepted.body
    raised = await org.owner.mutate("organizations.members.updateRole", {"userId": member_id, "role": "admin"})
    assert raised.status == 200, raised.body
    assert await statuses() == (401, 401, 401, 200)

    keys = {key["id"]: key["status"] for key in (await org.owner.rest("GET", "/api/v1/auth/api-keys")).data}
    assert keys[made_key["id"]] == "revoked"
    assert [key["status"] for key in (await member.query("mcpKeys.list")).data] == ["revoked"]
    assert [t["status"] for t in (await member.query("auth.tokens.list")).data] == ["revoked"]
    assert [key["status"] for key in (await org.owner.query("mcpKeys.list")).data] == ["active"]
