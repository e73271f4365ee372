"""Automation runs that do not come from a person's change of one item: runNow over a board,
subitems.completed, the form.submitted hook, events the bus never brought (the log sweep), and several
nodes sharing the jobs."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from actors.automations.engine import SWEEP_SECONDS
from actors.automations.triggers import form_submitted
from actors.kernel.events import emit
from actors.runtime.clock import ManualClock
from server.app import create_app
from tests.harness import make_org
from tests.integration.automations.conftest import create, engine_idle, history_now, runs
from tests.integration.boards.conftest import Board, make_board
from web.keys import NODE

pytestmark = pytest.mark.workers("automations")


def set_status(label: str, board: Board) -> dict[str, Any]:
    return {"type": "set_value", "config": {"columnId": board.column("status")["id"], "value": label}}


async def status_of(board: Board, item_id: str) -> Any:
    item = await board.api.query("items.get", {"id": item_id})
    assert item.status == 200, item.body
    return (item.data["values"].get(board.column("status")["id"]) or {}).get("label")


async def test_run_now_queues_every_live_top_level_item_and_runs_them(board: Board) -> None:
    status = board.column("status")["id"]
    first, second, archived = [await board.add_item(name) for name in ("Pump", "Valve", "Old")]
    await board.api.mutate("items.archive", {"id": archived["id"]})
    sub = await board.add_item("Gasket", parentId=first["id"])
    await board.api.mutate("items.setValue", {"itemId": second["id"], "columnId": status, "value": "Stuck"})
    automation = await create(board, name="Close what is not stuck", enabled=False,
                              trigger={"type": "item.created", "config": {}},
                              conditions=[{"columnId": status, "operator": "is_not", "value": "Stuck"}],
                              actions=[set_status("Done", board)])

    reply = await board.api.mutate("automations.runNow", {"ruleId": automation["id"]})
    assert reply.status == 200, reply.body
    assert reply.data == {"executedCount": 2, "ruleId": automation["id"], "ruleName": "Close what is not stuck"}

    history = await runs(board, 2)
    assert sorted((run["itemId"], run["status"], run["triggerType"]) for run in history) == sorted(
        [(first["id"], "success", "manual"), (second["id"], "skipped", "manual")])
    assert await status_of(board, first["id"]) == "Done"
    assert await status_of(board, second["id"]) == "Stuck"
    assert await status_of(board, sub["id"]) is None and await status_of(board, archived["id"]) is None
    log = await board.api.query("automations.log", {"automationId": automation["id"]})
    assert {run["triggeredBy"]["userId"] for run in log.data["executions"]} == {board.org.owner_id}


async def test_run_now_of_an_unknown_rule_is_not_found(board: Board) -> None:
    reply = await board.api.mutate("automations.runNow", {"ruleId": "aut_missing"})
    assert reply.status == 404 and reply.error["data"]["code"] == "NOT_FOUND"


async def test_subitems_completed_fires_once_when_the_last_sub_item_is_done(board: Board) -> None:
    status = board.column("status")["id"]
    await create(board, name="Parent done", trigger={"type": "subitems.completed", "config": {}},
                 actions=[set_status("Done", board)])
    parent = await board.add_item("Changeover")
    subs = [await board.add_item(f"Step {n}", parentId=parent["id"]) for n in range(2)]

    await board.api.mutate("items.setValue", {"itemId": subs[0]["id"], "columnId": status, "value": "Done"})
    await board.api.mutate("items.setValue", {"itemId": subs[1]["id"], "columnId": status, "value": "Stuck"})
    await engine_idle(board)  # the engine has handled those changes (and must not have run)
    assert await history_now(board) == [] and await status_of(board, parent["id"]) is None

    await board.api.mutate("items.setValue", {"itemId": subs[1]["id"], "columnId": status, "value": "Done"})
    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["itemId"] == parent["id"]
    assert run["triggerType"] == "subitems.completed"
    assert await status_of(board, parent["id"]) == "Done"


async def test_a_form_submission_runs_the_rules_of_its_form(board: Board) -> None:
    created = await create(board, name="Triage submissions", trigger={"type": "form.submitted",
                                                                       "config": {"formId": "frm_intake"}},
                           actions=[set_status("Stuck", board)])
    await create(board, name="Other form", trigger={"type": "form.submitted", "config": {"formId": "frm_other"}},
                 actions=[set_status("Done", board)])
    item = await board.add_item("Submitted defect")
    node = board.api.client.server.app[NODE]
    async with node.write(None, org_id=board.org.id) as uow:
        form_submitted(uow, board_id=board.id, form_id="frm_intake", submission_id="sub_1",
                       item={"id": item["id"]}, answers={"q1": "leak"})

    [run] = await runs(board, 1)
    assert run["automationRuleId"] == created["id"] and run["triggerType"] == "form.submitted"
    assert run["itemId"] == item["id"] and run["status"] == "success"
    assert await status_of(board, item["id"]) == "Stuck"


@pytest.fixture
async def clocked_board(clocked_client: Any) -> Board:
    return await make_board(await make_org(clocked_client))


async def test_an_event_the_bus_never_brought_is_run_by_the_log_sweep(clocked_board: Board, clock: ManualClock
                                                                       ) -> None:
    """A node that committed an event and died before publishing it (or any event committed while no engine
    ran): the sweep of the event log makes its job."""
    board = clocked_board
    item = await board.add_item("Committed elsewhere")
    await create(board, actions=[set_status("Done", board)])
    node = board.api.client.server.app[NODE]
    async with node.pool.acquire() as conn, conn.transaction():
        await emit(conn, org_id=board.org.id, stream=f"board:{board.id}", name="item.created",
                   data={"item": {"id": item["id"], "groupId": board.group_id}}, caller=None, moment=clock.now())
    await engine_idle(board)
    assert await history_now(board) == []  # not on the bus: nothing yet

    clock.advance(SWEEP_SECONDS)
    [run] = await runs(board, 1)
    assert run["itemId"] == item["id"] and run["status"] == "success"
    assert await status_of(board, item["id"]) == "Done"


async def test_two_nodes_run_each_job_once(aiohttp_client: Any, database_url: str, settings: Any, board: Board
                                           ) -> None:
    """A second server on the same database claims jobs too (SKIP LOCKED): every queued run happens once.
    The action notifies rather than writes items: two nodes writing one board need the cross-node actor
    directory, which is not built yet (its fencing refuses the second writer)."""
    second = await aiohttp_client(create_app(settings, database_url), cookie_jar=aiohttp.DummyCookieJar())
    assert second.server.app[NODE].pool is not board.api.client.server.app[NODE].pool
    items = [await board.add_item(f"Item {n}") for n in range(30)]
    automation = await create(board, enabled=False, actions=[{"type": "send_notification", "config": {
        "userIds": [board.org.owner_id], "message": "{item.name}"}}])

    reply = await board.api.mutate("automations.runNow", {"ruleId": automation["id"]})
    assert reply.data["executedCount"] == 30
    await runs(board, 30, limit=100)
    await asyncio.gather(engine_idle(board), second.server.app[NODE].workers.idle())  # no job runs twice
    history = await history_now(board)
    assert sorted(run["itemId"] for run in history) == sorted(item["id"] for item in items)
    assert {run["status"] for run in history} == {"success"}, [r["error"] for r in history if r["error"]][:3]
    notes = await board.api.query("notifications.list", {"limit": 50})
    assert sorted(note["body"] for note in notes.data["notifications"]) == sorted(item["name"] for item in items)
