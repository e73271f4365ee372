"""Tenancy from the Host header, sign-up, login, logout, sessions, CSRF, and the profile procedures."""

from __future__ import annotations

import secrets

from tests.harness import PASSWORD, Api, Org, login


async def test_unknown_organization_is_not_found(org: Org) -> None:
    reply = await org.owner.on_host("no-such-org.localhost").rest("GET", "/api/v1/auth/me")
    assert reply.status == 404
    assert reply.error["code"] == "NOT_FOUND"


async def test_slug_is_matched_case_insensitively(org: Org) -> None:
    reply = await org.owner.on_host(org.slug.upper() + ".LOCALHOST:8080").rest("GET", "/api/v1/auth/me")
    assert reply.status == 200
    assert reply.data["email"] == org.owner_email


async def test_signup_creates_owner_and_logs_in(client: object) -> None:
    slug = f"new-{secrets.token_hex(4)}"
    api = Api(client, "localhost")  # type: ignore[arg-type]
    reply = await api.rest("POST", "/api/v1/auth/signup", {
        "email": f"founder@{slug}.test", "password": PASSWORD, "name": "Fay Founder",
        "organizationName": "New Co", "organizationSlug": slug})
    assert reply.status == 201, reply.body
    cookie = reply.headers["Set-Cookie"]
    assert "authjs.session-token=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    token = cookie.split(";", 1)[0].split("=", 1)[1]
    me = await api.on_host(f"{slug}.localhost").with_session(token).query("auth.me")
    assert me.status == 200
    assert me.data["memberships"][0]["role"] == "owner"
    again = await api.rest("POST", "/api/v1/auth/signup", {
        "email": f"other@{slug}.test", "password": PASSWORD, "name": "Other", "organizationName": "Dup",
        "organizationSlug": slug})
    assert again.status == 409


async def test_wrong_password_is_unauthorized(org: Org) -> None:
    reply = await org.anonymous.rest("POST", "/api/v1/auth/login", {"email": org.owner_email, "password": "nope"})
    assert reply.status == 401


async def test_login_on_another_organization_is_refused(client: object, org: Org) -> None:
    from tests.harness import make_org

    other = await make_org(client)  # type: ignore[arg-type]
    reply = await other.anonymous.rest("POST", "/api/v1/auth/login",
                                       {"email": org.owner_email, "password": PASSWORD})
    assert reply.status == 401


async def test_session_cookie_of_a_non_member_is_forbidden_on_org_procedures(client: object, org: Org) -> None:
    from tests.harness import make_org

    other = await make_org(client)  # type: ignore[arg-type]
    stranger = org.owner.on_host(other.host)
    assert (await stranger.query("auth.me")).status == 200  # user-scoped: no membership needed
    assert (await stranger.rest("GET", "/api/v1/audit")).status == 403


async def test_logout_ends_the_session(org: Org) -> None:
    api = await login(org.anonymous, org.owner_email)
    assert (await api.rest("POST", "/api/v1/auth/logout", {})).status == 200
    assert (await api.rest("GET", "/api/v1/auth/me")).status == 401


async def test_check_email(org: Org) -> None:
    taken = await org.anonymous.rest("GET", "/api/v1/auth/check-email", params={"email": org.owner_email.upper()})
    assert taken.status == 409
    free = await org.anonymous.rest("GET", "/api/v1/auth/check-email", params={"email": "free@x.test"})
    assert free.status == 200 and free.data == {"available": True}
    bad = await org.anonymous.rest("GET", "/api/v1/auth/check-email", params={"email": "not-an-email"})
    assert bad.status == 422
    assert bad.error["code"] == "VALIDATION_ERROR"
    assert bad.error["details"][0]["field"] == "email"


async def test_me_shapes_differ_between_styles(org: Org) -> None:
    rest = await org.owner.rest("GET", "/api/v1/auth/me")
    assert set(rest.data) == {"id", "name", "email", "image", "createdAt", "updatedAt"}
    rpc = await org.owner.query("auth.me")
    assert {"id", "email", "name", "avatar", "memberships"} <= set(rpc.data)


async def test_update_profile_validates_and_saves(org: Org) -> None:
    bad = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "x" * 101, "image": 5})
    assert bad.status == 422
    assert {d["field"] for d in bad.error["details"]} == {"name", "image"}
    good = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Renamed Owner", "image": "https://i/a.png"})
    assert good.status == 200
    assert good.data["name"] == "Renamed Owner"
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).data["image"] == "https://i/a.png"


async def test_cookie_writes_need_json_and_same_site_origin(org: Org) -> None:
    form = await org.owner.rest("PATCH", "/api/v1/auth/me", None,
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 415
    async with org.owner.client.post("/api/v1/notifications/mark-all-read", headers=org.owner.headers()) as bare:
        assert bare.status == 415  # a POST without Content-Type is what a cross-site page can send
    evil = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Evil Name"},
                                headers={"Origin": "https://evil.example"})
    assert evil.status == 403
    same = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Same Site"},
                                headers={"Origin": f"http://{org.host}:8080"})
    assert same.status == 200


async def test_responses_carry_a_request_id(org: Org) -> None:
    reply = await org.owner.rest("GET", "/api/v1/auth/me", headers={"X-Request-Id": "trace-123"})
    assert reply.headers["X-Request-Id"] == "trace-123"
    assert (await org.owner.rest("GET", "/healthz")).headers["X-Request-Id"].startswith("req_")
