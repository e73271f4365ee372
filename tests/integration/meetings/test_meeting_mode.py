"""Meeting mode: `meetings.focus` sets the agenda entry under discussion and since when (the server's clock),
`meetings.markDiscussed` adds an entry to the ones discussed or takes it out; each returns the meeting, emits
`meeting.updated` with it on the board's room and is in the activity trail. Only a meeting in progress (else 409),
only entries of its agenda (else 400 naming `entry`), only members (guests and read-only keys 403)."""

from __future__ import annotations

from typing import Any

from protocol.ids import iso
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import follow
from tests.integration.meetings.conftest import board_seq, complete, event_at, on_agenda, start


async def focus(api: Api, meeting: dict[str, Any], entry: str | None) -> dict[str, Any]:
    reply = await api.mutate("meetings.focus", {"id": meeting["id"], "entry": entry})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def mark(api: Api, meeting: dict[str, Any], entry: str, discussed: bool | None = None) -> dict[str, Any]:
    flag = {} if discussed is None else {"discussed": discussed}
    reply = await api.mutate("meetings.markDiscussed", {"id": meeting["id"], "entry": entry, **flag})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def test_focus_times_the_entry_under_discussion_by_the_servers_clock(clocked_client: Any, clock: Any,
                                                                         screens: Any) -> None:
    board = await make_board(await make_org(clocked_client))
    entries = await on_agenda(board)
    meeting = await start(board)
    assert meeting["current"] is None and meeting["discussed"] == []
    screen = screens()
    await follow(screen, board.api, board)

    focused = await focus(board.api, meeting, entries["kpis"])
    assert focused["current"] == {"entry": entries["kpis"], "since": iso(clock.now())}
    assert {k: v for k, v in focused.items() if k != "current"} == {k: v for k, v in meeting.items() if k != "current"}
    clock.advance(90)
    moved = await focus(board.api, meeting, entries["escalations"])
    assert moved["current"] == {"entry": entries["escalations"], "since": iso(clock.now())}
    assert moved["current"]["since"] != focused["current"]["since"]
    cleared = await focus(board.api, meeting, None)
    assert cleared["current"] is None

    assert (await board.api.query("meetings.get", {"id": meeting["id"]})).data == cleared
    await screen.wait_for_seq(meeting["seqAtStart"] + 3)
    updates = screen.events("meeting.updated")
    assert [update["data"]["meeting"] for update in updates] == [focused, moved, cleared]
    assert [update["seq"] for update in updates] == [meeting["seqAtStart"] + n for n in (1, 2, 3)]
    assert updates[0]["data"]["actor"] == {"id": board.org.owner_id, "email": board.org.owner_email}
    name, payload = await event_at(board, meeting["seqAtStart"] + 2)
    assert name == "meeting.updated" and payload["data"]["meeting"] == moved


async def test_mark_discussed_adds_and_takes_out_entries(board: Board, screens: Any) -> None:
    entries = await on_agenda(board)
    meeting = await start(board)
    screen = screens()
    await follow(screen, board.api, board)

    first = await mark(board.api, meeting, entries["escalations"])  # `discussed` is true unless said otherwise
    assert first["discussed"] == [entries["escalations"]]
    both = await mark(board.api, meeting, entries["kpis"], True)
    assert both["discussed"] == [entries["escalations"], entries["kpis"]]
    seq = await board_seq(board)
    again = await mark(board.api, meeting, entries["kpis"], True)  # already discussed: nothing changes
    assert again == both and await board_seq(board) == seq
    taken_out = await mark(board.api, meeting, entries["escalations"], False)
    assert taken_out["discussed"] == [entries["kpis"]]
    assert await mark(board.api, meeting, entries["escalations"], False) == taken_out
    assert taken_out["current"] is None  # marking an entry does not put it under discussion

    await screen.wait_for_seq(meeting["seqAtStart"] + 3)
    assert [u["data"]["meeting"] for u in screen.events("meeting.updated")] == [first, both, taken_out]
    assert (await board.api.query("meetings.get", {"id": meeting["id"]})).data == taken_out
    # Listed meetings show them too.
    listed = await board.api.query("meetings.list", {"boardId": board.id})
    assert listed.data["meetings"] == [taken_out]


async def test_focus_and_marks_are_in_the_activity_trail(board: Board) -> None:
    entries = await on_agenda(board)
    meeting = await start(board)
    await focus(board.api, meeting, entries["actions"])
    await mark(board.api, meeting, entries["actions"])
    await mark(board.api, meeting, entries["actions"], False)
    trail = await board.api.query("activity.listByEntity", {"entityType": "meeting", "entityId": meeting["id"]})
    assert trail.status == 200, trail.body
    shown = [(e["action"], e["metadata"]) for e in trail.data["entries"]]
    assert shown == [
        ("meeting.updated", {"boardId": board.id, "tier": 1, "entry": entries["actions"], "discussed": False}),
        ("meeting.updated", {"boardId": board.id, "tier": 1, "entry": entries["actions"], "discussed": True}),
        ("meeting.updated", {"boardId": board.id, "tier": 1, "current": entries["actions"]}),
        ("meeting.started", {"boardId": board.id, "tier": 1, "attendeeIds": []})]
    assert all(e["actor"]["id"] == board.org.owner_id for e in trail.data["entries"])


async def test_a_completed_meeting_is_409_and_unchanged(board: Board) -> None:
    entries = await on_agenda(board)
    meeting = await start(board)
    await mark(board.api, meeting, entries["kpis"])
    completed = await complete(board.api, meeting)
    assert completed["discussed"] == [entries["kpis"]]
    seq = await board_seq(board)
    for name, call in (("meetings.focus", {"entry": entries["actions"]}), ("meetings.focus", {"entry": None}),
                       ("meetings.markDiscussed", {"entry": entries["actions"]}),
                       ("meetings.markDiscussed", {"entry": entries["kpis"], "discussed": False})):
        reply = await board.api.mutate(name, {"id": meeting["id"], **call})
        assert reply.status == 409 and reply.error["data"]["code"] == "CONFLICT", (name, call, reply.body)
        assert reply.error["data"]["completedAt"] == completed["completedAt"]
    assert (await board.api.query("meetings.get", {"id": meeting["id"]})).data == completed
    assert await board_seq(board) == seq


async def test_an_entry_not_on_the_agenda_is_400_naming_entry(board: Board) -> None:
    entries = await on_agenda(board)
    not_due = await board.api.mutate("actions.create", {"boardId": board.id, "title": "Repaint walkways",
                                                        "priority": "low", "assigneeId": board.org.owner_id,
                                                        "dueDate": "2099-01-01"})
    meeting = await start(board)
    late_id = entries["actions"].partition("/")[2]
    off_agenda = [
        f"kpis/{late_id}",  # an action's id among the KPIs
        f"escalations/{late_id}",  # an overdue action, not escalated
        f"actions/{not_due.data['id']}",  # an open action not due yet
        "kpis/kpi_doesnotexist000000",
    ]
    seq = await board_seq(board)
    for entry in off_agenda:
        for name, call in (("meetings.focus", {}), ("meetings.markDiscussed", {"discussed": True})):
            reply = await board.api.mutate(name, {"id": meeting["id"], "entry": entry, **call})
            assert reply.status == 400, (name, entry, reply.body)
            assert [d["field"] for d in reply.error["data"]["details"]] == ["entry"], (name, entry, reply.body)
    assert (await board.api.query("meetings.get", {"id": meeting["id"]})).data == meeting
    assert await board_seq(board) == seq


async def test_guests_and_read_only_keys_cannot_run_a_meeting(client: Any, board: Board) -> None:
    entries = await on_agenda(board)
    guest_id, guest = await board.org.add_user("guest")
    workspace_id = (await board.api.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    added = await board.api.mutate("workspaces.members.add", {"workspaceId": workspace_id, "userId": guest_id})
    assert added.status == 200, added.body
    key = await board.api.mutate("apiKeys.create", {"name": "wall", "scopes": ["read:items"]})
    assert key.status == 200, key.body
    reader = board.api.with_bearer(str(key.data["key"]))
    meeting = await start(board)
    seq = await board_seq(board)

    for api in (guest, reader):
        for name, call in (("meetings.focus", {"entry": entries["kpis"]}),
                           ("meetings.markDiscussed", {"entry": entries["kpis"]})):
            reply = await api.mutate(name, {"id": meeting["id"], **call})
            assert reply.status == 403 and reply.error["data"]["code"] == "FORBIDDEN", (name, reply.body)
        assert (await api.query("meetings.get", {"id": meeting["id"]})).data == meeting
    outsider = (await make_org(client)).owner
    for name in ("meetings.focus", "meetings.markDiscussed"):
        reply = await outsider.mutate(name, {"id": meeting["id"], "entry": entries["kpis"]})
        assert reply.status == 404, (name, reply.body)
    assert await board_seq(board) == seq


async def test_bad_input_is_400_naming_the_field(board: Board) -> None:
    entries = await on_agenda(board)
    meeting = await start(board)
    kpi_id = entries["kpis"].partition("/")[2]
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("meetings.focus", {"entry": f"boards/{kpi_id}"}, "entry"),
        ("meetings.focus", {"entry": "kpis/"}, "entry"),
        ("meetings.focus", {"entry": f"kpis/{kpi_id}/values"}, "entry"),
        ("meetings.focus", {"entry": kpi_id}, "entry"),
        ("meetings.focus", {"entry": 7}, "entry"),
        ("meetings.focus", {"entry": "kpis/" + "x" * 65}, "entry"),
        ("meetings.focus", {"id": "", "entry": None}, "id"),
        ("meetings.markDiscussed", {}, "entry"),
        ("meetings.markDiscussed", {"entry": None}, "entry"),
        ("meetings.markDiscussed", {"entry": entries["kpis"], "discussed": "yes"}, "discussed"),
        ("meetings.markDiscussed", {"entry": entries["kpis"], "discussed": None}, "discussed"),
    ]
    for name, call, field in cases:
        reply = await board.api.mutate(name, {"id": meeting["id"], **call})
        assert reply.status == 400, (name, call, reply.body)
        assert reply.error["data"]["details"][0]["field"] == field, (name, call, reply.body)
    assert (await board.api.query("meetings.get", {"id": meeting["id"]})).data == meeting
