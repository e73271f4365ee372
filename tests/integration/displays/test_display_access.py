"""What a display may do: read its own board (items, KPIs, actions, meetings), start and complete its meetings;
another board's or a resource on it is 404, any other procedure 403. It acts as its creator, and the plan's
features apply to it, its API access does not."""

from __future__ import annotations

from typing import Any

from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.displays.conftest import Display, create_display
from tests.integration.files.conftest import PNG, upload
from tests.integration.forms.conftest import form_board, published_form, submissions, submit
from tests.integration.kpis.conftest import define, set_value


async def _furnished(board: Board) -> dict[str, Any]:
    """An item, a KPI with a value and an alert-raising target, an action and a completed meeting on the board."""
    item = await board.add_item("Fix the leak")
    kpi = await define(board)
    await set_value(board.api, kpi["id"], 70)  # red: raises an alert
    target = await board.api.mutate("kpis.setTarget", {"kpiId": kpi["id"], "value": 95, "deadline": "2031-01-01"})
    assert target.status == 200, target.body
    action = await board.api.mutate("actions.create", {"boardId": board.id, "title": "Tighten the valve",
                                                       "priority": "high", "dueDate": "2031-01-01",
                                                       "assigneeId": board.org.owner_id})
    assert action.status == 200, action.body
    meeting = await board.api.mutate("meetings.start", {"boardId": board.id, "tier": 2})
    assert meeting.status == 200, meeting.body
    return {"item": item, "kpi": kpi, "action": action.data, "meeting": meeting.data}


def _reads(board_id: str, kpi_id: str, meeting_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Every read a display may make, about one board and its KPI and meeting."""
    return [("boards.get", {"id": board_id}), ("items.list", {"boardId": board_id}),
            ("kpis.list", {"boardId": board_id}), ("kpis.listByCategory", {"boardId": board_id}),
            ("kpis.getHistory", {"kpiId": kpi_id}), ("kpis.getAlerts", {"boardId": board_id}),
            ("kpis.getTargets", {"kpiId": kpi_id}), ("actions.list", {"boardId": board_id}),
            ("actions.getStats", {"boardId": board_id}), ("meetings.get", {"id": meeting_id}),
            ("meetings.list", {"boardId": board_id}), ("meetings.replay", {"id": meeting_id})]


async def test_a_display_reads_what_its_board_shows_as_the_owner_does(org: Org, board: Board) -> None:
    made = await _furnished(board)
    display = await create_display(board)

    for name, data in _reads(board.id, made["kpi"]["id"], made["meeting"]["id"]):
        seen = await display.api.query(name, data)
        owner = await org.owner.query(name, data)
        assert seen.status == 200, (name, seen.body)
        assert seen.data == owner.data, name
    items = await display.api.query("items.list", {"boardId": board.id})
    assert [item["id"] for item in items.data["items"]] == [made["item"]["id"]]


async def test_another_boards_reads_are_404_for_a_display(org: Org, board: Board) -> None:
    other = await make_board(org)
    made = await _furnished(other)
    display = await create_display(board)

    for name, data in _reads(other.id, made["kpi"]["id"], made["meeting"]["id"]):
        reply = await display.api.query(name, data)
        assert reply.status == 404, (name, reply.body)
    assert (await display.api.mutate("meetings.start", {"boardId": other.id, "tier": 1})).status == 404
    completed = await display.api.mutate("meetings.complete", {"id": made["meeting"]["id"]})
    assert completed.status == 404, completed.body
    assert (await display.api.query("displays.get", {"id": (await create_display(other)).id})).status == 404


async def test_a_display_may_not_write_or_call_another_procedure(org: Org, board: Board) -> None:
    display = await create_display(board)
    item = await board.add_item()

    refused = [
        ("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "Graffiti"}, "mutate"),
        ("items.update", {"id": item["id"], "name": "Renamed"}, "mutate"),
        ("actions.create", {"boardId": board.id, "title": "x", "priority": "low", "dueDate": "2031-01-01",
                            "assigneeId": org.owner_id}, "mutate"),
        ("boards.list", {"projectId": board.project_id}, "query"),
        ("events.list", {"stream": f"board:{board.id}"}, "query"),
        ("organizations.members.list", {}, "query"),
        ("displays.list", {}, "query"),
        ("displays.create", {"name": "Another", "boardId": board.id}, "mutate"),
        ("displays.revoke", {"id": display.id}, "mutate"),
        ("meetings.focus", {"id": "mtg_any", "entry": None}, "mutate"),
        ("apiKeys.list", {}, "query"),
    ]
    for name, data, kind in refused:
        call = display.api.mutate if kind == "mutate" else display.api.query
        reply = await call(name, data)
        assert reply.status == 403, (name, reply.body)
        assert reply.error["json"]["message"] == (f"a display link may not call {name}: it reads its board and "
                                                  "runs the board's meetings only"), name
    unchanged = await board.api.query("items.list", {"boardId": board.id})
    assert [i["name"] for i in unchanged.data["items"]] == [item["name"]]


async def test_a_display_starts_and_completes_its_boards_meeting_as_its_creator(org: Org, board: Board) -> None:
    admin_id, admin = await org.add_user("admin", name="Ada Admin")
    display = await create_display(board, api=admin)

    started = await display.api.mutate("meetings.start", {"boardId": board.id, "tier": 1})
    assert started.status == 200, started.body
    assert started.data["startedBy"] == admin_id
    completed = await display.api.mutate("meetings.complete", {"id": started.data["id"], "notes": "Done at the wall"})
    assert completed.status == 200, completed.body
    assert (completed.data["status"], completed.data["completedBy"]) == ("completed", admin_id)


async def test_a_display_completes_the_meeting_a_member_started(org: Org, board: Board) -> None:
    _, member = await org.add_user("member")
    display = await create_display(board)
    started = await member.mutate("meetings.start", {"boardId": board.id, "tier": 3})
    assert started.status == 200, started.body

    completed = await display.api.mutate("meetings.complete", {"id": started.data["id"]})

    assert completed.status == 200, completed.body
    assert completed.data["status"] == "completed"


async def test_the_plan_features_apply_to_a_display_and_its_api_access_does_not(org: Org) -> None:
    starter = await make_org(org.owner.client, plan="starter")  # KPIs, no API access
    board = await make_board(starter)
    await define(board)
    display = await create_display(board)
    assert (await display.api.query("kpis.list", {"boardId": board.id})).status == 200
    assert (await display.api.query("items.list", {"boardId": board.id})).status == 200

    free = await make_org(org.owner.client, plan="free")  # neither
    free_board = await make_board(free)
    free_display = await create_display(free_board)
    assert (await free_display.api.query("items.list", {"boardId": free_board.id})).status == 200
    refused = await free_display.api.query("kpis.list", {"boardId": free_board.id})
    assert refused.status == 403, refused.body
    assert refused.error["json"]["message"] == "the free plan does not include kpis"


async def test_a_display_reads_itself_and_stops_when_its_creator_leaves(org: Org, board: Board) -> None:
    admin_id, admin = await org.add_user("admin")
    display: Display = await create_display(board, api=admin)
    itself = await display.api.query("displays.get", {"id": display.id})
    assert itself.status == 200 and itself.data["id"] == display.id, itself.body

    removed = await org.owner.mutate("organizations.members.remove", {"userId": admin_id})
    assert removed.status == 200, removed.body

    assert (await display.api.query("boards.get", {"id": board.id})).status == 401
    after = await org.owner.query("displays.get", {"id": display.id})
    assert after.data["revokedAt"] is not None


async def test_a_display_answers_no_form_in_its_creators_name(org: Org) -> None:
    """The public form paths take a member's credential as the respondent; a display's is not a member's, so a
    form that requires a sign-in refuses it (submitting and uploading) as it refuses an anonymous visitor."""
    board = await form_board(org)
    form = await published_form(board, settings={"requireAuth": True})
    display = await create_display(board)

    submitted = await submit(display.api, form["id"], {"title": "Written by the wall"})
    assert submitted.status == 401, submitted.body
    uploaded = await upload(display.api, PNG, path=f"/api/forms/{form['id']}/files")
    assert uploaded.status == 401, uploaded.body
    assert await submissions(board, form["id"]) == []
    assert (await submit(org.owner, form["id"], {"title": "Written by the owner"})).status == 200


async def test_the_activity_trail_names_the_display_beside_its_creator(org: Org, board: Board) -> None:
    display = await create_display(board)
    started = await display.api.mutate("meetings.start", {"boardId": board.id, "tier": 1})
    assert started.status == 200, started.body
    by_owner = await board.api.mutate("meetings.complete", {"id": started.data["id"]})
    assert by_owner.status == 200, by_owner.body

    trail = await org.owner.query("activity.listByEntity", {"entityType": "meeting", "entityId": started.data["id"]})
    assert trail.status == 200, trail.body
    entries = {entry["action"]: entry for entry in trail.data["entries"]}
    assert entries["meeting.started"]["actor"]["id"] == org.owner_id
    assert entries["meeting.started"]["metadata"]["displayId"] == display.id
    assert "displayId" not in entries["meeting.completed"]["metadata"]  # the owner at their desk
