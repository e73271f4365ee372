"""Respondents upload through `POST /api/forms/<form_id>/files`: only to a published form with a file field,
without a credential unless the form requires one, recorded with the form; a distribution token marks its
recipient started; another organization's form is not found."""

from __future__ import annotations

from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.files.conftest import PNG, insert_form, upload
from tests.integration.forms.conftest import add_recipient
from web.keys import NODE


def form_path(form_ref: str) -> str:
    return f"/api/forms/{form_ref}/files"


async def test_an_anonymous_respondent_uploads_to_a_published_form(board: Board) -> None:
    form = await insert_form(board.org, board.id)
    for ref in (form["id"], form["slug"]):
        reply = await upload(board.org.anonymous, PNG, "scratch.png", path=form_path(ref))
        assert reply.status == 201, reply.body
        assert reply.data["type"] == "image/png" and reply.data["name"] == "scratch.png"
        row = await board.org.anonymous.client.server.app[NODE].pool.fetchrow(
            "SELECT * FROM files WHERE id = $1", reply.data["id"])
        assert row["form_id"] == form["id"] and row["uploaded_by"] is None and row["organization_id"] == board.org.id
    # The respondent cannot read it back: downloads are for members.
    async with board.org.anonymous.client.get(f"/api/v1/files/{reply.data['id']}",
                                              headers=board.org.anonymous.headers()) as response:
        assert response.status == 401


async def test_only_published_forms_with_a_file_field_take_files(board: Board) -> None:
    anonymous = board.org.anonymous
    draft = await insert_form(board.org, board.id, status="draft")
    assert (await upload(anonymous, PNG, path=form_path(draft["id"]))).status == 404
    closed = await insert_form(board.org, board.id, status="closed")
    assert (await upload(anonymous, PNG, path=form_path(closed["id"]))).status == 409
    no_files = await insert_form(board.org, board.id, components=[{"type": "textfield", "key": "title"}])
    assert (await upload(anonymous, PNG, path=form_path(no_files["id"]))).status == 400
    assert (await upload(anonymous, PNG, path=form_path("frm_" + "A" * 20))).status == 404
    open_form = await insert_form(board.org, board.id)
    empty = await upload(anonymous, b"", path=form_path(open_form["id"]))
    assert empty.status == 422 and empty.error["details"][0]["field"] == "file"
    count = await anonymous.client.server.app[NODE].pool.fetchval(
        "SELECT count(*) FROM files WHERE organization_id = $1", board.org.id)
    assert count == 0


async def test_a_form_that_requires_authentication_takes_members_only(board: Board) -> None:
    form = await insert_form(board.org, board.id, require_auth=True)
    refused = await upload(board.org.anonymous, PNG, path=form_path(form["id"]))
    assert refused.status == 401, refused.body
    _, member = await board.org.add_user("member")
    accepted = await upload(member, PNG, path=form_path(form["id"]))
    assert accepted.status == 201, accepted.body


async def test_a_distribution_token_marks_its_recipient_started(board: Board) -> None:
    form = await insert_form(board.org, board.id)
    pool = board.org.anonymous.client.server.app[NODE].pool
    recipient_id, token = await add_recipient(board.org, form["id"], "supplier@example.com")
    reply = await upload(board.org.anonymous, PNG, path=form_path(form["id"]) + f"?t={token}")
    assert reply.status == 201, reply.body
    row = await pool.fetchrow("SELECT status, opened_at, started_at FROM form_recipients WHERE id = $1", recipient_id)
    assert row["status"] == "started" and row["started_at"] is not None and row["opened_at"] is not None
    unknown = await upload(board.org.anonymous, PNG, path=form_path(form["id"]) + "?t=nobody")
    assert unknown.status == 201


async def test_another_organizations_form_is_not_found(board: Board) -> None:
    form = await insert_form(board.org, board.id)
    other = await make_org(board.org.anonymous.client)
    assert (await upload(other.anonymous, PNG, path=form_path(form["id"]))).status == 404
    assert (await upload(other.anonymous, PNG, path=form_path(form["slug"]))).status == 404
