"""`GET /forms/{slug}`, the page every form link leads to (web/ui/form_page.py): served with a fresh CSP nonce
and headers that keep the URL's tokens from leaking, a plain 404 page for what respondents may not see, and the
HTTP contract its script relies on, called exactly as the script calls it (no browser on this machine)."""

from __future__ import annotations

import re
from typing import Any

from server.config import DEFAULT_PORT
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG, upload
from tests.integration.forms.conftest import (
    create_form,
    fboard,  # noqa: F401  (fixture)
    form_board,
    published_form,
)
from tests.integration.forms_respondents.conftest import (  # noqa: F401  (fixtures)
    link_token,
    mailed,
    mailing_client,
    otp_code,
    settle,
    sink_fixture,
    smtp_url_fixture,
)
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink

_NONCE = re.compile(r"script-src 'nonce-([A-Za-z0-9_-]+)'")


async def page(api: Api, path: str) -> tuple[Any, str]:
    async with api.client.get(path, headers=api.headers()) as response:
        return response, await response.text()


def assert_private(response: Any) -> None:
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Cache-Control"] == "no-store"


async def test_the_page_carries_a_fresh_nonce_and_strict_headers(fboard: Board) -> None:  # noqa: F811
    form = await published_form(fboard, name='Defect <script>alert(1)</script> & "more"')
    anonymous = fboard.org.anonymous
    response, text = await page(anonymous, f"/forms/{form['slug']}")
    assert response.status == 200 and response.content_type == "text/html"
    assert_private(response)
    csp = response.headers["Content-Security-Policy"]
    nonce = _NONCE.search(csp)
    assert nonce, csp
    assert csp.startswith("default-src 'none';") and f"style-src 'nonce-{nonce[1]}'" in csp
    assert "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp and "base-uri 'none'" in csp
    tags = re.findall(r"<(script|style)\b([^>]*)>", text)
    assert {tag for tag, _ in tags} == {"script", "style"}
    assert all(attributes == f' nonce="{nonce[1]}"' for _, attributes in tags), tags
    # Self-contained: nothing loaded from anywhere, the form's name escaped, the script building nodes only.
    assert not re.search(r"\b(src|href)=|https?://|@import|url\(", text)
    assert "<title>Defect &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;</title>" in text
    assert "<script>alert" not in text and "innerHTML" not in text and "eval(" not in text
    assert f'data-organization="{fboard.org.slug}" data-form="{form["slug"]}"' in text

    again, _ = await page(anonymous, f"/forms/{form['slug'].upper()}?t=abc&revision=def")
    assert again.status == 200
    second = _NONCE.search(again.headers["Content-Security-Policy"])
    assert second and second[1] != nonce[1]


async def test_a_closed_form_has_its_page(fboard: Board) -> None:  # noqa: F811
    form = await create_form(fboard, status="closed")
    response, text = await page(fboard.org.anonymous, f"/forms/{form['slug']}")
    assert response.status == 200 and "nonce-" in response.headers["Content-Security-Policy"]
    assert "no longer takes responses" in text  # what the script shows for a closed form


async def test_what_a_respondent_may_not_see_is_a_plain_404_page(fboard: Board) -> None:  # noqa: F811
    anonymous = fboard.org.anonymous
    draft = await create_form(fboard)
    other = await make_org(anonymous.client)
    elsewhere = await published_form(await form_board(other))
    for api, path in ((anonymous, f"/forms/{draft['slug']}"),
                      (anonymous, "/forms/no-such-form"),
                      (anonymous, f"/forms/{elsewhere['slug']}"),      # another organization's form
                      (anonymous, f"/forms/{draft['id']}"),            # by slug only
                      (anonymous, "/forms/%3Cscript%3E"),
                      (anonymous.on_host("localhost"), f"/forms/{draft['slug']}"),
                      (anonymous.on_host("no-such-org.localhost"), f"/forms/{draft['slug']}"),
                      (fboard.api, f"/forms/{draft['slug']}")):           # a member's session does not show drafts
        response, text = await page(api, path)
        assert response.status == 404 and response.content_type == "text/html", (api.host, path)
        assert "<h1>Form not found</h1>" in text and "<script" not in text
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert_private(response)
    response, _ = await page(other.anonymous, f"/forms/{elsewhere['slug']}")
    assert response.status == 200


@QUIET_PLAIN_AUTH
async def test_a_distribution_link_opens_the_page_and_only_the_script_marks_it_opened(
        mailing_client: Any, sink: Sink) -> None:  # noqa: F811
    board = await form_board(await make_org(mailing_client))
    form = await published_form(board)
    reply = await board.api.mutate("forms.createDistribution", {"formId": form["id"],
                                                                "recipients": [{"email": "r@outside.test"}]})
    assert reply.status == 200, reply.body
    await settle(board.org.anonymous)
    token = link_token((await mailed(sink, "r@outside.test"))[0], board, form)
    assert form["publicUrl"] == f"http://{board.org.host}:{DEFAULT_PORT}/forms/{form['slug']}"

    response, _ = await page(board.org.anonymous, f"/forms/{form['slug']}?t={token}")
    assert response.status == 200
    assert (await stats(board, form))["opened"] == 0  # the page holds the token; its script makes the call
    definition = await board.org.anonymous.rest("GET", f"/api/forms/{form['slug']}", params={"t": token})
    assert definition.status == 200 and definition.data["id"] == form["id"]
    assert (await stats(board, form))["opened"] == 1


async def stats(board: Board, form: dict[str, Any]) -> dict[str, Any]:
    reply = await board.api.query("forms.getDistributionStatus", {"formId": form["id"]})
    assert reply.status == 200, reply.body
    return dict(reply.data["stats"])


async def trpc(api: Api, name: str, input: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A call as the page's script makes it: POST, `{"json": input}`, no cookie, no credential."""
    async with api.client.post(f"/api/trpc/{name}", json={"json": input}, headers=api.headers()) as response:
        return response.status, await response.json()


@QUIET_PLAIN_AUTH
async def test_the_calls_of_the_page_on_a_form_that_requires_a_verified_email(
        mailing_client: Any, sink: Sink) -> None:  # noqa: F811
    board = await form_board(await make_org(mailing_client))
    form = await published_form(board, settings={"requireAuth": True, "allowMultiple": False,
                                                 "successMessage": "Thanks!", "redirectUrl": "https://example.test/ok"})
    anonymous, email = board.org.anonymous, "tablet@outside.test"
    definition = await anonymous.rest("GET", f"/api/forms/{form['slug']}")
    assert definition.data["requireAuth"] is True and definition.data["schema"] == form["schema"]

    status, body = await trpc(anonymous, "forms.requestOtp", {"formSlug": form["slug"],
                                                              "organizationSlug": board.org.slug, "email": email})
    assert (status, body["result"]["data"]["json"]) == (200, {"sent": True})
    await settle(anonymous)
    code = otp_code((await mailed(sink, email))[0])
    status, body = await trpc(anonymous, "forms.verifyOtp", {"formId": form["id"], "email": email, "code": "12"})
    assert status == 400 and body["error"]["json"]["data"]["details"][0]["field"] == "code"  # the page's errorOf
    status, body = await trpc(anonymous, "forms.verifyOtp", {"formId": form["id"], "email": email, "code": code})
    session = body["result"]["data"]["json"]["sessionToken"]
    bearer = {"Authorization": f"Bearer {session}"}

    files_path = f"/api/forms/{form['id']}/files"
    refused = await upload(anonymous, PNG, path=files_path)
    assert refused.status == 401 and refused.error["message"]
    stored = await upload(anonymous, PNG, name="leak.png", path=files_path, headers=bearer)
    assert stored.status == 201 and stored.data["name"] == "leak.png"

    submit_path = f"/api/forms/{form['id']}/submit"
    answers = {"title": "Leak", "quantity": 300, "photos": [stored.data["id"]]}
    assert (await anonymous.rest("POST", submit_path, answers)).status == 401
    invalid = await anonymous.rest("POST", submit_path, {**answers, "title": "", "severity": "none"},
                                   headers={"Idempotency-Key": "k1", **bearer})
    assert invalid.status == 422
    assert {d["field"] for d in invalid.error["details"]} == {"title", "severity"}  # shown next to their fields
    answers["quantity"] = 3
    first = await anonymous.rest("POST", submit_path, answers, headers={"Idempotency-Key": "k2", **bearer})
    assert first.status == 200, first.body
    assert first.body == {"success": True, "message": "Thanks!", "submissionId": first.body["submissionId"],
                          "redirectUrl": "https://example.test/ok"}
    retried = await anonymous.rest("POST", submit_path, answers, headers={"Idempotency-Key": "k2", **bearer})
    assert retried.body == first.body and retried.headers["Idempotent-Replayed"] == "true"
    again = await anonymous.rest("POST", submit_path, answers, headers={"Idempotency-Key": "k3", **bearer})
    assert again.status == 409 and again.error["message"]
