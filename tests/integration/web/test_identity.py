"""Tenancy from the Host header, sign-up, login, logout, sessions, CSRF, and the profile procedures."""

from __future__ import annotations

import json
import secrets
from typing import Any

import aiohttp
import pytest

from tests.harness import PASSWORD, Api, Org, login, make_org


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


@pytest.mark.parametrize("slug", ["auth", "www", "WWW", "api", "admin", "mcp", "metrics", "static", "oauth"])
async def test_signup_refuses_reserved_slugs(client: object, slug: str) -> None:
    api = Api(client, "localhost")  # type: ignore[arg-type]
    reply = await api.rest("POST", "/api/v1/auth/signup", {
        "email": f"founder-{secrets.token_hex(4)}@example.test", "password": PASSWORD, "name": "Fay Founder",
        "organizationName": "Infra", "organizationSlug": slug})
    assert reply.status == 422, reply.body
    assert reply.error["code"] == "VALIDATION_ERROR"
    assert [d["field"] for d in reply.error["details"]] == ["organizationSlug"]
    assert "reserved" in reply.error["details"][0]["message"]
    assert "Set-Cookie" not in reply.headers


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


@pytest.mark.parametrize("image", [
    "javascript:alert(document.cookie)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "data:image/png;base64,iVBORw0KGgo=", "vbscript:msgbox(1)",
    "/avatars/me.png", "//evil.test/a.png", "avatar.png", "http://", "https:///a.png", "ftp://files.test/a.png",
    "https://exa mple.test/a.png", "https://example.test/a.png\nX-Injected: 1", "file_", "file_../../etc",
    "https://[::1/a.png", "",
])
async def test_update_profile_accepts_only_web_image_urls(org: Org, image: str) -> None:
    rest = await org.owner.rest("PATCH", "/api/v1/auth/me", {"image": image})
    assert rest.status == 422, (image, rest.body)
    assert [d["field"] for d in rest.error["details"]] == ["image"]
    rpc = await org.owner.mutate("auth.updateProfile", {"image": image})
    assert rpc.status == 400 and rpc.error["data"]["details"][0]["field"] == "image"
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).data["image"] is None


@pytest.mark.parametrize("image", ["https://cdn.example.test/a.png?s=64", "http://localhost:8080/a.png",
                                   "HTTPS://EXAMPLE.TEST/A.PNG", "file_abcdefghijklmnopqrst"])
async def test_update_profile_keeps_web_urls_and_file_ids(org: Org, image: str) -> None:
    reply = await org.owner.rest("PATCH", "/api/v1/auth/me", {"image": image})
    assert reply.status == 200, reply.body
    assert reply.data["image"] == image


async def test_cookie_writes_come_from_the_organizations_own_origin(org: Org, client: Any) -> None:
    other = await make_org(client)
    for origin in ("https://evil.example", f"http://{other.host}", f"http://{org.host}:8080", "null",
                   f"https://{org.host}"):
        refused = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Evil Name"}, headers={"Origin": origin})
        assert refused.status == 403, origin
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).data["name"] == "Olga Owner"
    same = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Same Site"},
                                headers={"Origin": f"http://{org.host}"})
    assert same.status == 200
    # Without Origin the Referer decides.
    referred = await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Referred"},
                                    headers={"Referer": f"http://{org.host}/boards/1?x=y"})
    assert referred.status == 200
    for referer in (f"http://{other.host}/boards", "https://evil.example/"):
        assert (await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Evil"},
                                     headers={"Referer": referer})).status == 403
    # Neither header: a JSON request is a non-browser client; a form or a bare POST is refused.
    assert (await org.owner.rest("PATCH", "/api/v1/auth/me", {"name": "Scripted"})).status == 200
    form = await _raw(org.owner, "/api/v1/notifications/mark-all-read", b"a=1",
                      {"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 403
    bare = await _raw(org.owner, "/api/v1/notifications/mark-all-read", None, {})
    assert bare.status == 403
    assert (await org.owner.rest("GET", "/api/v1/auth/me")).data["name"] == "Scripted"


async def test_same_origin_multipart_upload_passes_the_csrf_check(org: Org) -> None:
    form = aiohttp.FormData()
    form.add_field("file", b"name,value\nA,1\n", filename="rows.csv", content_type="text/csv")
    async with org.owner.client.post("/api/v1/auth/api-keys", data=form,
                                     headers=org.owner.headers({"Origin": f"http://{org.host}"})) as reply:
        body = await reply.json()
    # Past the CSRF layer the route's own decoder answers (it takes JSON), not 403/415 from the edge.
    assert reply.status == 400 and body["error"]["message"] == "body is not valid JSON", body
    async with org.owner.client.post("/api/v1/auth/api-keys", data=form,
                                     headers=org.owner.headers({"Origin": "https://evil.example"})) as refused:
        assert refused.status == 403


async def _raw(api: Api, path: str, body: bytes | None, headers: dict[str, str]) -> aiohttp.ClientResponse:
    async with api.client.post(path, data=body, headers=api.headers(headers)) as response:
        await response.read()
        return response


async def test_sign_in_sign_up_and_acceptance_refuse_cross_site_and_non_json(org: Org, client: Any) -> None:
    other = await make_org(client)
    credentials = {"email": org.owner_email, "password": PASSWORD}
    for origin in ("https://evil.example", f"http://{other.host}"):
        cross = await org.anonymous.rest("POST", "/api/v1/auth/login", credentials, headers={"Origin": origin})
        assert cross.status == 403 and "Set-Cookie" not in cross.headers
        accept = await org.anonymous.rest("POST", "/api/v1/invitations/accept",
                                          {"token": "x" * 43, "name": "N", "password": PASSWORD},
                                          headers={"Origin": origin})
        assert accept.status == 403
    referred = await org.anonymous.rest("POST", "/api/v1/auth/login", credentials,
                                        headers={"Referer": f"http://{other.host}/login"})
    assert referred.status == 403
    same = await org.anonymous.rest("POST", "/api/v1/auth/login", credentials,
                                    headers={"Origin": f"http://{org.host}"})
    assert same.status == 200
    assert (await org.anonymous.rest("POST", "/api/v1/auth/login", credentials)).status == 200  # JSON, no Origin

    # A form post is what a cross-site page sends: refused without an origin, and never read as JSON.
    as_form = json.dumps(credentials).encode()
    for content_type in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=b"):
        blind = await _raw(org.anonymous, "/api/v1/auth/login", as_form, {"Content-Type": content_type})
        assert blind.status == 403, content_type
        own = await _raw(org.anonymous, "/api/v1/auth/login", as_form,
                         {"Content-Type": content_type, "Origin": f"http://{org.host}"})
        assert own.status == 415 and "Set-Cookie" not in own.headers, content_type
    assert (await _raw(org.anonymous, "/api/v1/invitations/accept", b"token=x",
                       {"Content-Type": "application/x-www-form-urlencoded"})).status == 403

    slug = f"new-{secrets.token_hex(4)}"
    signup = {"email": f"founder@{slug}.test", "password": PASSWORD, "name": "Fay Founder",
              "organizationName": "New Co", "organizationSlug": slug}
    bare_host = Api(client, "localhost")
    tenant = await bare_host.rest("POST", "/api/v1/auth/signup", signup, headers={"Origin": f"http://{org.host}"})
    assert tenant.status == 403
    form_signup = await _raw(bare_host, "/api/v1/auth/signup", json.dumps(signup).encode(),
                             {"Content-Type": "text/plain"})
    assert form_signup.status == 403
    # On the bare service host its own origin is the service host.
    created = await bare_host.rest("POST", "/api/v1/auth/signup", signup, headers={"Origin": "http://localhost"})
    assert created.status == 201, created.body


async def test_responses_carry_a_request_id(org: Org) -> None:
    reply = await org.owner.rest("GET", "/api/v1/auth/me", headers={"X-Request-Id": "trace-123"})
    assert reply.headers["X-Request-Id"] == "trace-123"
    assert (await org.owner.rest("GET", "/healthz")).headers["X-Request-Id"].startswith("rid_")
