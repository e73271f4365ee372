"""The forms procedures: create (slug, mappings, settings and schema checks), get, list, update (status and
form.published), delete, the submissions procedures, who may call them, and tenant isolation."""

from __future__ import annotations

from typing import Any

from server.config import DEFAULT_PORT
from tests.harness import make_org
from tests.integration.boards.conftest import Board
from tests.integration.forms.conftest import (
    column_id,
    create_form,
    form_board,
    form_input,
    published_form,
    submissions,
    submit,
)

ANSWERS = {"title": "Leak at press 4", "quantity": 3}


def fields_of(reply: Any) -> list[str]:
    return sorted(d["field"] for d in reply.error["data"]["details"])


async def board_events(board: Board, name: str) -> list[dict[str, Any]]:
    feed = await board.api.query("events.list", {"stream": f"board:{board.id}", "limit": 200})
    assert feed.status == 200, feed.body
    return [event for event in feed.data["events"] if event["event"] == name]


async def test_create_returns_the_form_with_its_slug_and_counts(fboard: Board) -> None:
    form = await create_form(fboard, description="For the floor")
    assert form["id"].startswith("frm_") and len(form["id"]) == 24
    assert form["slug"] == "defect-report" and form["status"] == "draft" and form["publishedAt"] is None
    assert form["publicUrl"] == f"http://{fboard.org.slug}.localhost:{DEFAULT_PORT}/forms/defect-report"
    assert form["fieldCount"] == 7 and form["submissionCount"] == 0 and form["requireAuth"] is False
    assert form["createdBy"] == fboard.org.owner_id and form["description"] == "For the floor"
    assert form["settings"]["allowMultiple"] is True and form["settings"]["successMessage"] == "Thanks, we are on it."
    assert form["mappings"][0] == {"formField": "title", "target": "item_name", "columnId": None}
    second = await create_form(fboard)
    assert second["slug"] == "defect-report-2"
    taken = await fboard.api.mutate("forms.create", form_input(fboard, slug="Defect-Report"))
    assert taken.status == 409
    given = await create_form(fboard, slug="Intake-Form")
    assert given["slug"] == "intake-form"
    assert (await fboard.api.query("forms.get", {"id": form["id"]})).data == form


async def test_create_checks_mappings_settings_and_schema_naming_every_field(fboard: Board) -> None:
    other = await form_board(fboard.org)
    bad = form_input(fboard, mappings=[
        {"formField": "nope", "target": "item_name", "columnId": None},
        {"formField": "title", "target": "item_description", "columnId": column_id(fboard, "Line")},
        {"formField": "line", "target": "column", "columnId": column_id(other, "Line")}],
        settings={"groupId": other.group_id, "notifyOnSubmit": ["usr_nobody"]})
    reply = await fboard.api.mutate("forms.create", bad)
    assert reply.status == 400
    assert fields_of(reply) == ["mappings.0.formField", "mappings.1.columnId", "mappings.2.columnId",
                                "settings.groupId", "settings.notifyOnSubmit.0"]
    schema = {"components": [{"type": "textfield", "key": "a"}, {"type": "number", "key": "a"},
                             {"type": "select", "key": "s"}]}
    dupes = await fboard.api.mutate("forms.create", form_input(fboard, schema=schema, mappings=[]))
    assert dupes.status == 400 and fields_of(dupes) == ["schema.components.1.key", "schema.components.2.data.values"]
    unknown_type = await fboard.api.mutate("forms.create", form_input(
        fboard, schema={"components": [{"type": "signature", "key": "a"}]}, mappings=[]))
    assert unknown_type.status == 400
    rest = await fboard.api.rest("POST", "/api/trpc/forms.create", {"json": bad})
    assert rest.status == 400


async def test_list_gives_summaries_newest_first(fboard: Board) -> None:
    first = await published_form(fboard)
    second = await create_form(fboard, name="Near miss")
    assert (await submit(fboard.org.anonymous, first["id"], ANSWERS)).status == 200
    reply = await fboard.api.query("forms.list", {"boardId": fboard.id})
    assert reply.status == 200
    assert [f["id"] for f in reply.data["forms"]] == [second["id"], first["id"]]
    assert "schema" not in reply.data["forms"][0] and "mappings" not in reply.data["forms"][0]
    assert reply.data["forms"][1]["submissionCount"] == 1 and reply.data["forms"][1]["fieldCount"] == 7


async def test_update_changes_given_fields_and_publishing_emits_form_published(fboard: Board) -> None:
    form = await create_form(fboard)
    assert await board_events(fboard, "form.published") == []
    renamed = await fboard.api.mutate("forms.update", {"id": form["id"], "name": "Defects", "description": None})
    assert renamed.status == 200 and renamed.data["name"] == "Defects" and renamed.data["slug"] == "defect-report"
    published = await fboard.api.mutate("forms.update", {"id": form["id"], "status": "published"})
    assert published.data["status"] == "published" and published.data["publishedAt"] is not None
    [event] = await board_events(fboard, "form.published")
    assert event["data"]["form"]["id"] == form["id"] and event["data"]["form"]["status"] == "published"
    again = await fboard.api.mutate("forms.update", {"id": form["id"], "status": "published"})
    assert again.data["publishedAt"] == published.data["publishedAt"]
    for status in ("closed", "draft", "published"):
        moved = await fboard.api.mutate("forms.update", {"id": form["id"], "status": status})
        assert moved.status == 200 and moved.data["status"] == status
    assert len(await board_events(fboard, "form.published")) == 2
    nothing = await fboard.api.mutate("forms.update", {"id": form["id"]})
    assert nothing.status == 400
    bad_mapping = await fboard.api.mutate("forms.update", {"id": form["id"], "schema": {"components": []}})
    assert bad_mapping.status == 400 and "mappings.0.formField" in fields_of(bad_mapping)
    other = await create_form(fboard, slug="taken")
    clash = await fboard.api.mutate("forms.update", {"id": form["id"], "slug": "taken"})
    assert clash.status == 409 and other["slug"] == "taken"
    created_published = await published_form(fboard, name="Live at once")
    assert created_published["publishedAt"] is not None
    assert len(await board_events(fboard, "form.published")) == 3


async def test_delete_keeps_the_items_its_submissions_made(fboard: Board) -> None:
    form = await published_form(fboard)
    submitted = await submit(fboard.org.anonymous, form["id"], ANSWERS)
    [submission] = await submissions(fboard, form["id"])
    reply = await fboard.api.mutate("forms.delete", {"id": form["id"]})
    assert reply.status == 200 and reply.data == {"success": True, "id": form["id"]}
    assert (await fboard.api.query("forms.get", {"id": form["id"]})).status == 404
    assert (await fboard.api.query("forms.submissions.get", {"id": submitted.body["submissionId"]})).status == 404
    assert (await fboard.api.query("items.get", {"id": submission["itemId"]})).status == 200
    assert (await fboard.api.mutate("forms.delete", {"id": form["id"]})).status == 404


async def test_submissions_list_get_and_update(fboard: Board) -> None:
    form = await published_form(fboard)
    ids = [(await submit(fboard.org.anonymous, form["id"], {**ANSWERS, "title": f"t{n}"})).body["submissionId"]
           for n in range(3)]
    page = await fboard.api.query("forms.submissions.list", {"formId": form["id"], "limit": 2})
    assert [s["id"] for s in page.data["submissions"]] == ids[::-1][:2]
    rest = await fboard.api.query("forms.submissions.list", {"formId": form["id"], "limit": 2,
                                                             "cursor": page.data["nextCursor"]})
    assert [s["id"] for s in rest.data["submissions"]] == [ids[0]] and rest.data["nextCursor"] is None
    got = await fboard.api.query("forms.submissions.get", {"id": ids[0]})
    assert got.status == 200
    assert got.data["data"] == {"title": "t0", "quantity": 3} and got.data["status"] == "new"
    assert got.data["version"] == 1 and got.data["formId"] == form["id"]
    [version] = got.data["versions"]
    assert version["version"] == 1 and version["reason"] == "submitted" and version["data"] == got.data["data"]
    assert version["changedBy"] is None
    moved = await fboard.api.mutate("forms.submissions.update", {"id": ids[0], "status": "reviewed"})
    assert moved.status == 200 and moved.data["status"] == "reviewed"
    wrong = await fboard.api.mutate("forms.submissions.update", {"id": ids[0], "status": "deleted"})
    assert wrong.status == 400
    reviewed = await fboard.api.query("forms.submissions.list", {"formId": form["id"], "status": "reviewed"})
    assert [s["id"] for s in reviewed.data["submissions"]] == [ids[0]]
    bad_cursor = await fboard.api.query("forms.submissions.list", {"formId": form["id"], "cursor": "!!"})
    assert bad_cursor.status == 400


async def test_guests_read_forms_but_neither_change_them_nor_read_submissions(fboard: Board) -> None:
    form = await published_form(fboard)
    guest_id, guest = await fboard.org.add_user("guest")
    assert (await guest.query("forms.get", {"id": form["id"]})).status == 404  # not in the board's workspace
    project = await fboard.api.query("projects.get", {"id": fboard.project_id})
    added = await fboard.api.mutate("workspaces.members.add", {"workspaceId": project.data["workspaceId"],
                                                               "userId": guest_id})
    assert added.status == 200, added.body
    assert (await guest.query("forms.get", {"id": form["id"]})).status == 200
    assert (await guest.query("forms.list", {"boardId": fboard.id})).status == 200
    assert (await guest.mutate("forms.create", form_input(fboard))).status == 403
    assert (await guest.mutate("forms.update", {"id": form["id"], "name": "x"})).status == 403
    assert (await guest.query("forms.submissions.list", {"formId": form["id"]})).status == 403
    _, member = await fboard.org.add_user("member")
    assert (await member.query("forms.submissions.list", {"formId": form["id"]})).status == 200


async def test_another_organizations_ids_are_404_everywhere(fboard: Board) -> None:
    form = await published_form(fboard)
    submission_id = (await submit(fboard.org.anonymous, form["id"], ANSWERS)).body["submissionId"]
    stranger = await make_org(fboard.org.owner.client)
    api = stranger.owner
    assert (await api.query("forms.get", {"id": form["id"]})).status == 404
    assert (await api.query("forms.list", {"boardId": fboard.id})).status == 404
    assert (await api.mutate("forms.create", form_input(fboard))).status == 404
    assert (await api.mutate("forms.update", {"id": form["id"], "name": "Mine"})).status == 404
    assert (await api.mutate("forms.delete", {"id": form["id"]})).status == 404
    assert (await api.query("forms.submissions.list", {"formId": form["id"]})).status == 404
    assert (await api.query("forms.submissions.get", {"id": submission_id})).status == 404
    assert (await api.mutate("forms.submissions.update", {"id": submission_id, "status": "archived"})).status == 404
    # The public paths, on the stranger's host: neither the id nor the slug is found.
    for ref in (form["id"], form["slug"]):
        assert (await stranger.anonymous.rest("GET", f"/api/forms/{ref}")).status == 404
        assert (await submit(stranger.anonymous, ref, ANSWERS)).status == 404
    assert len(await submissions(fboard, form["id"])) == 1
