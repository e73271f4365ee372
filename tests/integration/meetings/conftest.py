"""Meeting fixtures: the board of the board tests, the live tests' screens, the webhook tests' receiver, and
helpers that start and complete meetings and put KPIs and actions on a board (and so on its agenda) through the
API."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from storage import events as event_log
from tests.harness import Api
from tests.integration.boards.conftest import Board, board  # noqa: F401  (fixture re-exported for these tests)
from tests.integration.kpis.conftest import define
from tests.integration.live.conftest import screens  # noqa: F401  (fixture re-exported for the live test)
from tests.integration.webhooks.conftest import receiver  # noqa: F401  (fixture re-exported for the live test)
from web.keys import NODE


async def start(on: Board, api: Api | None = None, **fields: Any) -> dict[str, Any]:
    reply = await (api or on.api).mutate("meetings.start", {"boardId": on.id, "tier": 1, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def complete(api: Api, meeting: dict[str, Any], notes: str | None = None) -> dict[str, Any]:
    reply = await api.mutate("meetings.complete", {"id": meeting["id"], "notes": notes})
    assert reply.status == 200, reply.body
    return dict(reply.data)


def today(on: Board) -> date:
    """The day on the server's clock, as overdue is judged."""
    moment: datetime = on.api.client.app[NODE].clock.now()
    return moment.astimezone(UTC).date()


def day(on: Board, offset: int) -> str:
    return (today(on) + timedelta(days=offset)).isoformat()


async def board_seq(on: Board) -> int:
    return await event_log.last_seq(on.api.client.app[NODE].pool, on.org.id, f"board:{on.id}")


async def event_at(on: Board, seq: int) -> tuple[str, dict[str, Any]]:
    """(name, payload) of the board stream's event with `seq`."""
    [event] = await event_log.read(on.api.client.app[NODE].pool, on.org.id, f"board:{on.id}", seq - 1, 1)
    assert event.seq == seq
    return event.name, event.payload


async def action(on: Board, title: str, due: str, **fields: Any) -> dict[str, Any]:
    reply = await on.api.mutate("actions.create", {"boardId": on.id, "title": title, "priority": "high",
                                                   "assigneeId": on.org.owner_id, "dueDate": due, **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def set_status(on: Board, action_id: str, status: str) -> None:
    reply = await on.api.mutate("actions.update", {"id": action_id, "status": status})
    assert reply.status == 200, reply.body


async def escalate(on: Board, action_id: str, to_user_id: str) -> dict[str, Any]:
    reply = await on.api.mutate("actions.escalate", {"id": action_id, "reason": "Needs tier 2",
                                                     "escalateToUserId": to_user_id})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def on_agenda(on: Board) -> dict[str, str]:
    """A KPI, an overdue action and an open escalation put on the board: their agenda entries by kind."""
    member_id, _ = await on.org.add_user("member", name="Mia Member")
    kpi = await define(on, name="Scrap rate")
    late = await action(on, "Fix guard on press 4", day(on, -2))
    escalated = await action(on, "Supplier late again", day(on, 5))
    await escalate(on, escalated["id"], member_id)
    return {"kpis": f"kpis/{kpi['id']}", "actions": f"actions/{late['id']}",
            "escalations": f"escalations/{escalated['id']}"}
