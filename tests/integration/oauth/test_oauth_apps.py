"""oauthApps.* (docs/sign-in.md): registration with its checks, the secret shown once, updates,
secret rotation and deletion, for organization admins with a session only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import Org

APP = {"name": "Shop floor app", "redirectUris": ["https://app.example.com/callback"], "scopes": ["read", "write"]}


async def test_create_list_update_delete(org: Org) -> None:
    created = await org.owner.mutate("oauthApps.create", APP)
    assert created.status == 200, created.body
    app = created.data
    assert app["clientId"].startswith("oac_") and len(app["clientSecret"]) >= 43
    assert app["public"] is False and app["scopes"] == ["read", "write"]
    listed = await org.owner.query("oauthApps.list")
    assert [a["id"] for a in listed.data] == [app["id"]] and "clientSecret" not in listed.data[0]
    updated = await org.owner.mutate("oauthApps.update", {"id": app["id"], "name": "Renamed",
                                                          "redirectUris": ["http://localhost:8000/cb"]})
    assert updated.status == 200 and updated.data["name"] == "Renamed"
    assert updated.data["redirectUris"] == ["http://localhost:8000/cb"] and updated.data["scopes"] == ["read", "write"]
    rotated = await org.owner.mutate("oauthApps.rotateSecret", {"id": app["id"]})
    assert rotated.status == 200 and rotated.data["clientSecret"] != app["clientSecret"]
    deleted = await org.owner.mutate("oauthApps.delete", {"id": app["id"]})
    assert deleted.status == 200
    assert (await org.owner.query("oauthApps.list")).data == []
    assert (await org.owner.mutate("oauthApps.delete", {"id": app["id"]})).status == 404


async def test_public_app_has_no_secret(org: Org) -> None:
    app = (await org.owner.mutate("oauthApps.create", {**APP, "public": True})).data
    assert app["public"] is True and "clientSecret" not in app
    assert (await org.owner.mutate("oauthApps.rotateSecret", {"id": app["id"]})).status == 400


@pytest.mark.parametrize(("change", "field"), [
    ({"redirectUris": ["http://app.example.com/cb"]}, "redirectUris[0]"),
    ({"redirectUris": ["https://app.example.com/cb#frag"]}, "redirectUris[0]"),
    ({"redirectUris": ["https://ok.example.com/cb", "/relative"]}, "redirectUris[1]"),
    ({"redirectUris": []}, "redirectUris"),
    ({"redirectUris": ["https://user:pw@app.example.com/cb"]}, "redirectUris[0]"),
    ({"redirectUris": ["https://a;b.example.com/cb"]}, "redirectUris[0]"),
    ({"redirectUris": ["https://app.example.com:port/cb"]}, "redirectUris[0]"),
    ({"redirectUris": [f"https://a.example.com/{n}" for n in range(11)]}, "redirectUris"),
    ({"scopes": []}, "scopes"),
    ({"scopes": ["read", "root"]}, "scopes"),
    ({"name": ""}, "name"),
    ({"name": "x" * 101}, "name"),
])
async def test_bad_input_names_the_field(org: Org, change: dict[str, Any], field: str) -> None:
    reply = await org.owner.mutate("oauthApps.create", {**APP, **change})
    assert reply.status == 400, reply.body
    assert field in str(reply.body)


async def test_admins_with_a_session_only(org: Org) -> None:
    _, member = await org.add_user("member")
    assert (await member.mutate("oauthApps.create", APP)).status == 403
    _, admin = await org.add_user("admin")
    assert (await admin.mutate("oauthApps.create", APP)).status == 200
    token = await org.owner.mutate("auth.tokens.create", {"name": "t", "scopes": ["admin"]})
    assert token.status == 200, token.body
    refused = await org.owner.with_bearer(token.data["token"]).query("oauthApps.list")
    assert refused.status == 403, refused.body
