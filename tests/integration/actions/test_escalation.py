"""actions.escalate and deescalate (levels, targets, notifications, history, events), and the
organization-wide views getEscalated and getOverdue across the boards the caller sees."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.harness import Api, make_org
from tests.integration.actions.conftest import board_events, create, field_of, get, notifications, trail, update
from tests.integration.boards.conftest import Board, make_board


async def escalate(on: Board, action_id: str, to: str, reason: str = "blocked", api: Api | None = None
                   ) -> dict[str, Any]:
    reply = await (api or on.api).mutate("actions.escalate", {"id": action_id, "reason": reason,
                                                              "escalateToUserId": to})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def deescalate(on: Board, action_id: str, reason: str = "back on track") -> Any:
    return await on.api.mutate("actions.deescalate", {"id": action_id, "reason": reason})


async def test_escalation_raises_the_level_notifies_the_target_and_keeps_the_assignee(board: Board) -> None:
    worker_id, worker = await board.org.add_user("member")
    lead_id, lead = await board.org.add_user("member", name="Lena Lead")
    manager_id, manager = await board.org.add_user("admin", name="Max Manager")
    action = await create(board, assigneeId=worker_id)

    first = await escalate(board, action["id"], lead_id, "spare part not in stock")
    assert first["escalationLevel"] == 1 and first["isEscalated"] is True
    assert first["escalatedTo"] == {"id": lead_id, "name": "Lena Lead"}
    assert first["assigneeId"] == worker_id and first["status"] == "open"
    second = await escalate(board, action["id"], manager_id, "supplier late")
    assert second["escalationLevel"] == 2 and second["escalatedTo"]["id"] == manager_id

    [to_lead] = await notifications(lead, "action_escalated")
    assert (to_lead["entityType"], to_lead["entityId"]) == ("action", action["id"])
    assert len(await notifications(manager, "action_escalated")) == 1
    assert await notifications(worker, "action_escalated") == []

    escalated = [e for e in await board_events(board) if e["event"] == "action.escalated"]
    assert [(e["data"]["fromLevel"], e["data"]["toLevel"], e["data"]["reason"]) for e in escalated] == [
        (0, 1, "spare part not in stock"), (1, 2, "supplier late")]
    assert escalated[0]["data"]["automatic"] is False and escalated[0]["data"]["escalatedTo"]["id"] == lead_id
    assert escalated[1]["data"]["action"] == second
    assert await trail(board, action["id"]) == ["action.created", "action.escalated", "action.escalated"]


async def test_deescalation_returns_to_the_previous_level_and_its_target(board: Board) -> None:
    lead_id, _ = await board.org.add_user("member")
    manager_id, _ = await board.org.add_user("admin")
    action = await create(board)
    await escalate(board, action["id"], lead_id)
    await escalate(board, action["id"], manager_id)

    back = await deescalate(board, action["id"], "countermeasure in place")
    assert back.status == 200, back.body
    assert back.data["escalationLevel"] == 1 and back.data["escalatedTo"]["id"] == lead_id
    bottom = await deescalate(board, action["id"])
    assert bottom.data["escalationLevel"] == 0 and bottom.data["isEscalated"] is False
    assert bottom.data["escalatedTo"] is None
    refused = await deescalate(board, action["id"])
    assert refused.status == 400 and refused.error["data"]["code"] == "BAD_REQUEST"

    history = (await get(board, action["id"]))["escalations"]
    assert [(h["fromLevel"], h["toLevel"]) for h in history] == [(1, 0), (2, 1), (1, 2), (0, 1)]
    assert history[1]["reason"] == "countermeasure in place" and history[1]["escalatedTo"]["id"] == lead_id
    assert all(h["changedById"] == board.org.owner_id and h["automatic"] is False for h in history)
    updates = [e for e in await board_events(board) if e["event"] == "action.updated"]
    assert updates[0]["data"]["changes"] == {"escalationLevel": {"old": 2, "new": 1},
                                             "escalatedToUserId": {"old": manager_id, "new": lead_id}}
    assert updates[0]["data"]["reason"] == "countermeasure in place"
    assert (await trail(board, action["id"]))[-2:] == ["action.deescalated", "action.deescalated"]


async def test_escalation_input_is_checked(board: Board) -> None:
    action = await create(board)
    outsider = await make_org(board.org.owner.client)
    stranger = await board.api.mutate("actions.escalate", {"id": action["id"], "reason": "r",
                                                           "escalateToUserId": outsider.owner_id})
    assert stranger.status == 400 and field_of(stranger) == "escalateToUserId"
    blank = await board.api.mutate("actions.escalate", {"id": action["id"], "reason": "",
                                                        "escalateToUserId": board.org.owner_id})
    assert blank.status == 400 and field_of(blank) == "reason"
    missing = await board.api.mutate("actions.escalate", {"id": "acn_missing", "reason": "r",
                                                          "escalateToUserId": board.org.owner_id})
    assert missing.status == 404
    assert (await get(board, action["id"]))["escalationLevel"] == 0

    to_self = await escalate(board, action["id"], board.org.owner_id)
    assert to_self["escalationLevel"] == 1
    assert await notifications(board.api, "action_escalated") == []


def days_ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()


async def organization_view(api: Api, name: str, org_id: str, **extra: Any) -> list[str]:
    reply = await api.query(name, {"organizationId": org_id, **extra})
    assert reply.status == 200, reply.body
    return [a["title"] for a in reply.data["actions"]]


async def test_escalated_and_overdue_span_the_boards_the_caller_sees(board: Board) -> None:
    org = board.org
    member_id, member = await org.add_user("member")
    second = await make_board(org)
    closed = await org.owner.mutate("workspaces.create", {"name": "Board room", "visibility": "closed"})
    project = await org.owner.mutate("projects.create", {"workspaceId": closed.data["id"], "name": "Strategy"})
    hidden = await org.owner.mutate("boards.create", {"projectId": project.data["id"], "name": "Hidden"})
    hidden_board = Board(org, hidden.data["id"], project.data["id"], hidden.data)

    late_a = await create(board, title="Late A", dueDate=days_ago(5))
    late_b = await create(second, title="Late B", dueDate=days_ago(2))
    await create(hidden_board, title="Late hidden", dueDate=days_ago(9))
    done = await create(board, title="Late but done", dueDate=days_ago(4))
    await update(board, done["id"], status="completed")
    await create(board, title="On time", dueDate=days_ago(-3))
    await create(second, title="Due today", dueDate=days_ago(0))

    escalated_b = await create(second, title="Escalated B", dueDate=days_ago(-10))
    await escalate(second, escalated_b["id"], member_id)
    await escalate(board, late_a["id"], member_id)
    secret = await create(hidden_board, title="Escalated hidden")
    await escalate(hidden_board, secret["id"], org.owner_id)

    assert await organization_view(member, "actions.getOverdue", org.id) == ["Late A", "Late B"]
    assert await organization_view(org.owner, "actions.getOverdue", org.id) == ["Late hidden", "Late A", "Late B"]
    assert await organization_view(member, "actions.getEscalated", org.id) == ["Late A", "Escalated B"]
    assert await organization_view(org.owner, "actions.getEscalated", org.id) == [
        "Late A", "Escalated B", "Escalated hidden"]

    reply = await member.query("actions.getOverdue", {"organizationId": org.id})
    [first, _] = reply.data["actions"]
    assert first["id"] == late_a["id"] and first["isOverdue"] is True and first["isEscalated"] is True
    assert late_b["boardId"] == second.id

    page = await org.owner.query("actions.getOverdue", {"organizationId": org.id, "limit": 2})
    assert [a["title"] for a in page.data["actions"]] == ["Late hidden", "Late A"]
    rest = await org.owner.query("actions.getOverdue", {"organizationId": org.id, "limit": 2,
                                                        "cursor": page.data["nextCursor"]})
    assert [a["title"] for a in rest.data["actions"]] == ["Late B"] and rest.data["nextCursor"] is None

    other = await make_org(org.owner.client)
    for name in ("actions.getOverdue", "actions.getEscalated"):
        assert (await org.owner.query(name, {"organizationId": other.id})).status == 404
        assert (await other.owner.query(name, {"organizationId": org.id})).status == 404
        assert await organization_view(other.owner, name, other.id) == []
