"""Tier meetings: start records the agenda (the board's KPIs with their status in SQCDP order, its open actions
due today or overdue, its open escalations) and the board's seq of its own `meeting.started` event; complete
records the notes and the seq of `meeting.completed`; the agenda is a snapshot; get and list (newest first,
cursor paged); another organization's meetings and boards are 404."""

from __future__ import annotations

import asyncio
from typing import Any

from actors.identity.callers import forget_organization
from tests.harness import Org, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.kpis.conftest import define, set_value
from tests.integration.meetings.conftest import action, board_seq, complete, day, escalate, event_at, set_status, start
from web.keys import NODE


async def test_start_records_the_agenda_and_the_seq_of_its_event(board: Board) -> None:
    member_id, _ = await board.org.add_user("member", name="Mia Member")
    on_time = await define(board, name="On-time delivery")  # delivery: listed after safety and quality
    accidents = await define(board, name="Days without accident", category="safety")
    scrap = await define(board, name="Scrap rate", category="quality", direction="lower_is_better",
                         thresholds={"green": {"max": 2}, "amber": {"min": 2, "max": 5}, "red": {"min": 5}})
    await set_value(board.api, on_time["id"], 70)  # red
    await set_value(board.api, accidents["id"], 95)  # green
    target = await board.api.mutate("kpis.setTarget", {"kpiId": on_time["id"], "value": 95,
                                                       "deadline": day(board, 30)})
    assert target.status == 200, target.body

    overdue = await action(board, "Fix guard on press 4", day(board, -3))
    due_today = await action(board, "Order spare belts", day(board, 0), category="delivery")
    await action(board, "Repaint walkways", day(board, 1))  # not due yet
    done = await action(board, "Replace lamp", day(board, -5))
    await set_status(board, done["id"], "completed")  # overdue once, but closed
    escalated = await action(board, "Supplier late again", day(board, 7))
    await escalate(board, escalated["id"], member_id)
    closed_escalation = await action(board, "Old escalation", day(board, -1))
    await escalate(board, closed_escalation["id"], member_id)
    await set_status(board, closed_escalation["id"], "completed")

    meeting = await start(board, tier=1, attendeeIds=[board.org.owner_id, member_id])

    assert meeting["id"].startswith("mtg_") and meeting["boardId"] == board.id and meeting["tier"] == 1
    assert meeting["status"] == "in_progress" and meeting["attendeeIds"] == [board.org.owner_id, member_id]
    assert meeting["startedBy"] == board.org.owner_id and meeting["startedAt"].endswith("Z")
    assert meeting["notes"] is None and meeting["completedBy"] is None and meeting["completedAt"] is None
    assert meeting["seqAtCompletion"] is None
    # The seq is the one of its own event, the newest of the board's stream.
    assert meeting["seqAtStart"] == await board_seq(board)
    name, payload = await event_at(board, meeting["seqAtStart"])
    assert name == "meeting.started" and payload["data"]["meeting"] == meeting

    agenda = meeting["agenda"]
    assert agenda["date"] == day(board, 0)
    assert [(k["name"], k["status"]) for k in agenda["kpis"]] == [
        ("Days without accident", "green"), ("Scrap rate", None), ("On-time delivery", "red")]
    listed_on_time = agenda["kpis"][2]
    assert listed_on_time["latestValue"]["value"] == 70 and listed_on_time["target"] == {
        "value": 95, "deadline": day(board, 30)}
    assert listed_on_time["openAlerts"] == 1 and listed_on_time["unit"] == "%"
    # The KPI's latestValue and target have the shape kpis.get gives them.
    shown = (await board.api.query("kpis.get", {"id": on_time["id"]})).data
    assert listed_on_time["latestValue"] == shown["latestValue"] and listed_on_time["target"] == {
        k: shown["target"][k] for k in ("value", "deadline")}
    assert agenda["kpis"][1]["latestValue"] is None and agenda["kpis"][1]["target"] is None
    assert agenda["kpis"][1]["id"] == scrap["id"]

    assert [(a["id"], a["isOverdue"]) for a in agenda["actions"]] == [(overdue["id"], True),
                                                                       (due_today["id"], False)]
    assert agenda["actions"][1] == {
        "id": due_today["id"], "title": "Order spare belts", "status": "open", "priority": "high",
        "assignee": {"id": board.org.owner_id, "name": "Olga Owner"}, "dueDate": day(board, 0),
        "category": "delivery", "isOverdue": False, "escalationLevel": 0, "escalatedTo": None}
    [open_escalation] = agenda["escalations"]
    assert open_escalation["id"] == escalated["id"] and open_escalation["escalationLevel"] == 1
    assert open_escalation["escalatedTo"] == {"id": member_id, "name": "Mia Member"}
    assert agenda["totals"] == {"kpis": 3, "actions": 2, "escalations": 1}

    got = await board.api.query("meetings.get", {"id": meeting["id"]})
    assert got.status == 200 and got.data == meeting


async def test_complete_records_notes_and_the_seq_of_its_event(board: Board) -> None:
    meeting = await start(board, tier=2)
    item = await board.add_item("Leak at station 3")  # a change made during the meeting

    completed = await complete(board.api, meeting, notes="Leak: Tom to fix by Friday.")
    assert completed["status"] == "completed" and completed["notes"] == "Leak: Tom to fix by Friday."
    assert completed["completedBy"] == board.org.owner_id and completed["completedAt"].endswith("Z")
    assert completed["seqAtCompletion"] == await board_seq(board)
    assert completed["agenda"] == meeting["agenda"] and completed["seqAtStart"] == meeting["seqAtStart"]
    name, payload = await event_at(board, completed["seqAtCompletion"])
    assert name == "meeting.completed" and payload["data"]["meeting"] == completed
    # What changed during the meeting lies between its two seqs.
    between = [await event_at(board, seq) for seq in range(meeting["seqAtStart"] + 1, completed["seqAtCompletion"])]
    assert [name for name, _ in between] == ["item.created"]
    assert between[0][1]["data"]["item"]["id"] == item["id"]

    got = await board.api.query("meetings.get", {"id": meeting["id"]})
    assert got.data == completed


async def test_the_agenda_is_a_snapshot_of_the_start(board: Board) -> None:
    kpi = await define(board)
    await set_value(board.api, kpi["id"], 70)
    late = await action(board, "Fix guard", day(board, -1))
    meeting = await start(board)
    await set_value(board.api, kpi["id"], 99)
    await set_status(board, late["id"], "completed")
    await action(board, "New late action", day(board, -2))

    completed = await complete(board.api, meeting)
    assert completed["agenda"] == meeting["agenda"]
    assert [k["status"] for k in completed["agenda"]["kpis"]] == ["red"]
    assert [a["id"] for a in completed["agenda"]["actions"]] == [late["id"]]
    # The next meeting sees the board as it is now.
    following = await start(board, tier=2)
    assert [k["status"] for k in following["agenda"]["kpis"]] == ["green"]
    assert [a["title"] for a in following["agenda"]["actions"]] == ["New late action"]


async def test_an_empty_board_has_an_empty_agenda(board: Board) -> None:
    meeting = await start(board)
    assert meeting["attendeeIds"] == []
    assert meeting["agenda"] == {"date": meeting["agenda"]["date"], "kpis": [], "actions": [], "escalations": [],
                                 "totals": {"kpis": 0, "actions": 0, "escalations": 0}}


async def test_list_is_newest_first_and_cursor_paged(board: Board) -> None:
    meetings = [await start(board, tier=tier) for tier in (1, 2, 3)]
    other_board = await make_board(board.org)
    await start(other_board)

    first = await board.api.query("meetings.list", {"boardId": board.id, "limit": 2})
    assert first.status == 200, first.body
    assert [m["id"] for m in first.data["meetings"]] == [meetings[2]["id"], meetings[1]["id"]]
    assert first.data["meetings"][0] == meetings[2]
    second = await board.api.query("meetings.list", {"boardId": board.id, "limit": 2,
                                                      "cursor": first.data["nextCursor"]})
    assert [m["id"] for m in second.data["meetings"]] == [meetings[0]["id"]]
    assert second.data["nextCursor"] is None
    everything = await board.api.query("meetings.list", {"boardId": board.id})
    assert [m["id"] for m in everything.data["meetings"]] == [m["id"] for m in reversed(meetings)]

    for fields, field in (({"cursor": "not-a-cursor"}, "cursor"), ({"limit": 0}, "limit"),
                          ({"limit": 201}, "limit")):
        bad = await board.api.query("meetings.list", {"boardId": board.id, **fields})
        assert bad.status == 400 and bad.error["data"]["details"][0]["field"] == field, (fields, bad.body)


async def test_another_organizations_meetings_and_boards_are_404(client: Any, board: Board) -> None:
    meeting = await start(board)
    other: Org = await make_org(client)
    api = other.owner
    for name, input in (("meetings.get", {"id": meeting["id"]}), ("meetings.list", {"boardId": board.id})):
        reply = await api.query(name, input)
        assert reply.status == 404, (name, reply.body)
    for name, input in (("meetings.complete", {"id": meeting["id"]}),
                        ("meetings.start", {"boardId": board.id, "tier": 1})):
        reply = await api.mutate(name, input)
        assert reply.status == 404, (name, reply.body)
    unknown = await board.api.query("meetings.get", {"id": "mtg_doesnotexist0000000"})
    assert unknown.status == 404
    got = await board.api.query("meetings.get", {"id": meeting["id"]})
    assert got.data["status"] == "in_progress"


async def test_each_agenda_list_keeps_the_first_hundred_and_counts_all(board: Board) -> None:
    # 101 overdue actions, due on days -101 .. -1: the agenda keeps the 100 most overdue.
    for first in range(1, 102, 20):
        await asyncio.gather(*(action(board, f"Late {n}", day(board, -n)) for n in range(first, min(first + 20, 102))))
    meeting = await start(board)
    listed = meeting["agenda"]["actions"]
    assert len(listed) == 100 and meeting["agenda"]["totals"]["actions"] == 101
    assert [a["title"] for a in listed] == [f"Late {n}" for n in range(101, 1, -1)]


async def test_the_agenda_is_the_board_at_the_meetings_seq_while_others_write(board: Board) -> None:
    """Actions created while the meeting starts: those whose `action.created` precedes `meeting.started` in the
    board's stream are on the agenda, the later ones are not, and the meeting's seq is its own event's."""

    async def late_action(n: int) -> None:
        await action(board, f"Late {n}", day(board, -1))

    results = await asyncio.gather(*(late_action(n) for n in range(8)), start(board),
                                   *(late_action(n) for n in range(8, 16)))
    meeting = next(result for result in results if result is not None)
    name, payload = await event_at(board, meeting["seqAtStart"])
    assert name == "meeting.started" and payload["data"]["meeting"]["id"] == meeting["id"]
    before = []
    for seq in range(1, meeting["seqAtStart"]):
        event_name, event = await event_at(board, seq)
        if event_name == "action.created":
            before.append(event["data"]["action"]["id"])
    assert sorted(a["id"] for a in meeting["agenda"]["actions"]) == sorted(before)


async def test_a_plan_without_kpis_leaves_them_off_the_agenda(board: Board) -> None:
    """After a downgrade to a plan without KPIs the board keeps its KPIs, but kpis.list is 403: a meeting's
    agenda (and its events, which webhooks carry) must not show them either; its actions are still there."""
    kpi = await define(board, name="Scrap rate")
    await set_value(board.api, kpi["id"], 70)
    late = await action(board, "Fix guard", day(board, -1))
    node = board.api.client.app[NODE]
    await node.pool.execute("UPDATE organizations SET plan = 'free' WHERE id = $1", board.org.id)  # a downgrade
    forget_organization(node, board.org.slug)
    assert (await board.api.query("kpis.list", {"boardId": board.id})).status == 403

    meeting = await start(board)
    assert meeting["agenda"]["kpis"] == [] and meeting["agenda"]["totals"]["kpis"] == 0
    assert [a["id"] for a in meeting["agenda"]["actions"]] == [late["id"]]
    name, payload = await event_at(board, meeting["seqAtStart"])
    assert name == "meeting.started" and payload["data"]["meeting"]["agenda"]["kpis"] == []
