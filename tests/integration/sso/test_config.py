"""sso.getConfig and sso.updateConfig: admins only, sessions only to change, the enterprise plan's `sso`
feature, the client secret sealed at rest and never shown."""

from __future__ import annotations

import json
from typing import Any

from actors.kernel import sealing
from tests.harness import make_org
from web.keys import NODE

SECRET = "very-secret-client-secret-0123456789"
SETTINGS = {"issuer": "https://login.example.com", "clientId": "obeya", "clientSecret": SECRET,
            "enforce": False, "allowedDomains": ["Example.COM", "example.org"]}


async def test_an_admin_configures_sso_and_never_sees_the_secret(client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    before = await org.owner.query("sso.getConfig")
    assert before.status == 200 and before.data == {"configured": False, "enabled": False}

    first_without_secret = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "clientSecret": None})
    assert first_without_secret.status == 400 and "clientSecret" in json.dumps(first_without_secret.body)

    saved = await org.owner.mutate("sso.updateConfig", SETTINGS)
    assert saved.status == 200, saved.body
    view = (await org.owner.query("sso.getConfig")).data
    assert {k: view[k] for k in ("configured", "enabled", "issuer", "clientId", "enforce", "allowedDomains",
                                 "hasClientSecret")} == {
        "configured": True, "enabled": True, "issuer": "https://login.example.com", "clientId": "obeya",
        "enforce": False, "allowedDomains": ["example.com", "example.org"], "hasClientSecret": True}
    assert SECRET not in json.dumps(saved.body) and SECRET not in json.dumps(view)
    assert "clientSecret" not in view

    node = client.server.app[NODE]
    sealed = await node.pool.fetchval("SELECT client_secret_sealed FROM sso_configs WHERE organization_id = $1",
                                      org.id)
    assert SECRET.encode() not in bytes(sealed)
    assert await sealing.open_sealed(node.pool, sealed, node.settings.secret_key) == SECRET

    # An update without a secret keeps the one kept; the other fields change.
    kept = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "clientSecret": None, "enforce": True})
    assert kept.status == 200 and kept.data["enforce"] is True
    sealed = await node.pool.fetchval("SELECT client_secret_sealed FROM sso_configs WHERE organization_id = $1",
                                      org.id)
    assert await sealing.open_sealed(node.pool, sealed, node.settings.secret_key) == SECRET
    activity = await node.pool.fetch("SELECT action, metadata FROM activity WHERE organization_id = $1 "
                                     "AND action = 'sso.updated'", org.id)
    assert len(activity) == 2 and all(SECRET not in str(row["metadata"]) for row in activity)


async def test_the_business_plan_cannot_configure_sso(client: Any) -> None:
    org = await make_org(client, plan="business")
    refused = await org.owner.mutate("sso.updateConfig", SETTINGS)
    assert refused.status == 403 and "sso" in json.dumps(refused.body)
    assert (await org.owner.query("sso.getConfig")).data == {"configured": False, "enabled": False}


async def test_bad_settings_are_refused_naming_the_field(client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    for issuer in ("http://login.example.com", "ftp://login.example.com", "https://", "https://x.test/?a=1"):
        reply = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "issuer": issuer})
        assert reply.status == 400 and "issuer" in json.dumps(reply.body), issuer
    local = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "issuer": "http://127.0.0.1:5556"})
    assert local.status == 200  # a local provider outside production
    reply = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "allowedDomains": ["example.com", "not a domain"]})
    assert reply.status == 400 and "allowedDomains[1]" in json.dumps(reply.body)
    reply = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "clientId": ""})
    assert reply.status == 400 and "clientId" in json.dumps(reply.body)


async def test_a_public_mail_providers_domain_cannot_be_allowed(client: Any) -> None:
    """Anyone may open an address there: listing it would let the organization's provider join anyone."""
    org = await make_org(client, plan="enterprise")
    reply = await org.owner.mutate("sso.updateConfig", {**SETTINGS, "allowedDomains": ["example.com", "GMail.com"]})
    assert reply.status == 400 and "allowedDomains[1]" in json.dumps(reply.body)
    assert "public mail provider" in json.dumps(reply.body)
    assert (await org.owner.query("sso.getConfig")).data == {"configured": False, "enabled": False}


async def test_only_admins_with_a_session_may_change_it(client: Any) -> None:
    org = await make_org(client, plan="enterprise")
    _, member = await org.add_user("member")
    assert (await member.query("sso.getConfig")).status == 403
    assert (await member.mutate("sso.updateConfig", SETTINGS)).status == 403
    _, admin = await org.add_user("admin")
    assert (await admin.mutate("sso.updateConfig", SETTINGS)).status == 200
    key = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "sso"})
    assert key.status == 201, key.body
    by_key = await org.owner.with_bearer(key.data["key"]).mutate("sso.updateConfig", SETTINGS)
    assert by_key.status == 403 and "session" in json.dumps(by_key.body)
