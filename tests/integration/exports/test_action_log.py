"""export.exportActionLog: every action of the board, newest first, under the spec's eleven
columns; Type is the sourceType, Source the sourceId, Tier Level the escalationLevel."""

from __future__ import annotations

from aiohttp.test_utils import TestClient

from actors.runtime.clock import ManualClock
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.exports.conftest import AWKWARD, export, parse

HEADER = ["Title", "Description", "Type", "Status", "Priority", "Source", "Category", "Tier Level", "Due Date",
          "Created At", "Updated At"]


async def test_the_log_round_trips_newest_first(clocked_client: TestClient, clock: ManualClock) -> None:
    board = await make_board(await make_org(clocked_client))
    api = board.api
    other_board = await make_board(board.org)
    inputs = [
        {"title": AWKWARD[0], "description": AWKWARD[1], "priority": "high", "dueDate": "2030-01-31",
         "sourceType": "audit", "sourceId": "aud_123", "category": "safety"},
        {"title": AWKWARD[2], "priority": "low", "dueDate": "2030-02-01"},
        {"title": AWKWARD[4], "description": AWKWARD[3], "priority": "critical", "dueDate": "2030-03-01",
         "sourceType": "kpi_breach", "sourceId": "alt_9", "category": "quality"},
    ]
    created = []
    for fields in inputs:
        reply = await api.mutate("actions.create", {"boardId": board.id, "assigneeId": board.org.owner_id, **fields})
        assert reply.status == 200, reply.body
        created.append(reply.data)
        clock.advance(60)
    other = await api.mutate("actions.create", {"boardId": other_board.id, "title": "Elsewhere", "priority": "low",
                                                "assigneeId": board.org.owner_id, "dueDate": "2030-01-01"})
    assert other.status == 200
    escalated = await api.mutate("actions.escalate", {"id": created[0]["id"], "reason": "Late",
                                                      "escalateToUserId": board.org.owner_id})
    assert escalated.status == 200, escalated.body
    moved = await api.mutate("actions.update", {"id": created[1]["id"], "status": "in_progress"})
    assert moved.status == 200, moved.body

    rows = parse(await export(api, "exportActionLog", {"boardId": board.id}))
    assert rows[0] == HEADER
    assert len(rows) == 4
    for row, fields, action in zip(rows[1:], reversed(inputs), reversed(created), strict=True):
        live = (await api.query("actions.getById", {"id": action["id"]})).data
        assert row == [fields["title"], fields.get("description") or "", fields.get("sourceType", "manual"),
                       live["status"], fields["priority"], fields.get("sourceId") or "", fields.get("category") or "",
                       str(live["escalationLevel"]), fields["dueDate"], live["createdAt"], live["updatedAt"]]
    by_title = {row[0]: dict(zip(HEADER, row, strict=True)) for row in rows[1:]}
    assert by_title[AWKWARD[0]]["Tier Level"] == "1" and by_title[AWKWARD[2]]["Tier Level"] == "0"
    assert by_title[AWKWARD[2]]["Status"] == "in_progress" and by_title[AWKWARD[2]]["Type"] == "manual"


async def test_a_board_without_actions_is_its_header(board: Board) -> None:
    assert await export(board.api, "exportActionLog", {"boardId": board.id}) == ",".join(HEADER) + "\r\n"


async def test_another_organizations_board_is_not_found(client: TestClient, board: Board) -> None:
    stranger = (await make_board(await make_org(client))).api
    reply = await stranger.query("export.exportActionLog", {"boardId": board.id})
    assert reply.status == 404


async def test_an_api_key_needs_read_actions_or_read_items(board: Board) -> None:
    members_only = await board.api.mutate("apiKeys.create", {"name": "members", "scopes": ["read:members"]})
    refused = await board.api.with_bearer(members_only.data["key"]).query("export.exportActionLog",
                                                                          {"boardId": board.id})
    assert refused.status == 403
    for scope in ("read:actions", "read:items"):
        key = await board.api.mutate("apiKeys.create", {"name": scope, "scopes": [scope]})
        served = await board.api.with_bearer(key.data["key"]).query("export.exportActionLog", {"boardId": board.id})
        assert served.status == 200 and parse(served.data) == [HEADER], scope
