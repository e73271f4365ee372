"""A board followed live over Socket.IO: item changes committed by the board actor arrive under their event
name with the spec's payload and consecutive seqs; a screen that was away resumes with
`since` and gets exactly what it missed while changes keep coming, and the state it folds from the events
equals a fresh read; a board in a closed workspace is refused to a member who may not see it; a member
mentioned in a comment gets `notification.created` in their private room."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from storage import events as event_log
from tests.harness import Org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen, follow
from web.keys import NODE

ISO_MILLIS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
COLUMNS = [{"name": "Status", "type": "status"}, {"name": "Owner", "type": "people"},
           {"name": "Count", "type": "number"}]


async def board_seq(board: Board) -> int:
    pool = board.api.client.server.app[NODE].pool
    return await event_log.last_seq(pool, board.org.id, f"board:{board.id}")


def board_events(screen: Screen) -> list[tuple[str, Any]]:
    """What the screen received on the board's stream (not its private notification room)."""
    return [(name, data) for name, data in screen.received if name != "notification.created"]


def fold(items: dict[str, dict[str, Any]], name: str, payload: dict[str, Any]) -> None:
    """Apply one received event to a screen's copy of the board's items, checking that each change starts
    from the value the screen holds (Zulip's verify_action: stale state + events == fresh read)."""
    data = payload["data"]
    if name == "item.created":
        item = data["item"]
        items[item["id"]] = {"name": item["name"], "values": dict(item["values"])}
        return
    assert name == "item.updated", name
    item = items[data["item"]["id"]]
    for field, change in data["changes"].items():
        if field in ("name", "description"):
            assert item.get(field) == change["old"], (field, change)
            item[field] = change["new"]
            continue
        assert item["values"].get(field) == change["old"], (field, change)
        if change["new"] is None:
            item["values"].pop(field, None)
        else:
            item["values"][field] = change["new"]


async def set_value(board: Board, item_id: str, column_id: str, value: Any) -> dict[str, Any]:
    reply = await board.api.mutate("items.setValue", {"itemId": item_id, "columnId": column_id, "value": value})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def count_up(board: Board, item_id: str, start: int, times: int) -> None:
    column = board.column("number")["id"]
    for n in range(start, start + times):
        await set_value(board, item_id, column, n)


async def test_item_changes_arrive_live_with_the_spec_payload(org: Org, screens: Any) -> None:
    board = await make_board(org, columns=COLUMNS)
    screen = screens()
    start = await follow(screen, org.owner, board)
    assert start == await board_seq(board)

    created = await board.add_item("Guard missing on press 4")
    status = board.column("status")["id"]
    updated = await set_value(board, created["id"], status, "Stuck")
    renamed = await board.api.mutate("items.update", {"id": created["id"], "name": "Guard missing on press 4B"})
    assert renamed.status == 200, renamed.body
    await screen.wait_for_seq(start + 3)

    received = board_events(screen)
    assert [name for name, _ in received] == ["item.created", "item.updated", "item.updated"]
    assert [data["seq"] for _, data in received] == [start + 1, start + 2, start + 3]
    for name, payload in received:
        assert set(payload) == {"id", "event", "timestamp", "apiVersion", "organizationId", "data", "seq"}
        assert payload["event"] == name and payload["id"].startswith("evt_")
        assert ISO_MILLIS.match(payload["timestamp"]), payload["timestamp"]
        assert payload["apiVersion"] == "v1" and payload["organizationId"] == org.id
        assert payload["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    assert len({payload["id"] for _, payload in received}) == 3

    (_, on_create), (_, on_status), (_, on_rename) = received
    assert on_create["data"]["item"] == created
    stuck = updated["values"][status]
    assert stuck["label"] == "Stuck"
    assert on_status["data"]["changes"] == {status: {"old": None, "new": stuck}}
    item = {"id": created["id"], "name": "Guard missing on press 4", "boardId": board.id,
            "groupId": board.group_id, "status": "Stuck", "priority": None, "assigneeId": None,
            "parentId": None}
    assert on_status["data"]["item"] == item
    assert on_rename["data"]["changes"] == {"name": {"old": "Guard missing on press 4",
                                                     "new": "Guard missing on press 4B"}}
    assert on_rename["data"]["item"] == {**item, "name": "Guard missing on press 4B"}


async def test_a_screen_that_was_away_gets_exactly_what_it_missed_while_changes_continue(
        org: Org, screens: Any) -> None:
    board = await make_board(org, columns=COLUMNS)
    count = board.column("number")["id"]
    seen: dict[str, dict[str, Any]] = {}
    first = screens()
    start = await follow(first, org.owner, board)
    press, line = await board.add_item("Scrap on press 4"), await board.add_item("Scrap on line 3")
    await count_up(board, press["id"], 1, 3)
    await first.wait_for_seq(start + 5)
    for name, payload in board_events(first):
        fold(seen, name, payload)
    last_seen = first.seqs()[-1]
    await first.close()

    missed = 40
    await asyncio.gather(count_up(board, press["id"], 10, missed // 2), count_up(board, line["id"], 10, missed // 2))
    # Two writers keep committing from before the screen reconnects until after its subscription is answered,
    # so changes land before, during and after the replay, and the board's turns batch them.
    subscribed = asyncio.Event()

    async def keep_counting(item_id: str, writing: asyncio.Event) -> int:
        n = 100
        while not subscribed.is_set():
            await set_value(board, item_id, count, n)
            writing.set()
            n += 1
        await count_up(board, item_id, n, 10)
        return n + 9

    writing = [asyncio.Event(), asyncio.Event()]
    writers = asyncio.gather(keep_counting(press["id"], writing[0]), keep_counting(line["id"], writing[1]))
    await asyncio.gather(*(event.wait() for event in writing))
    resumed = screens()
    ack = await follow(resumed, org.owner, board, since=last_seen)
    subscribed.set()
    last_counts = await writers
    final = await board_seq(board)
    await resumed.wait_for_seq(final)

    assert last_seen + missed < ack < final
    assert resumed.seqs() == list(range(last_seen + 1, final + 1))  # each once, in order, no gap
    for name, payload in board_events(resumed):
        fold(seen, name, payload)
    for item_id, item in seen.items():
        fresh = await board.api.query("items.get", {"id": item_id})
        assert fresh.status == 200, fresh.body
        assert item == {"name": fresh.data["name"], "values": fresh.data["values"]}
    assert [seen[press["id"]]["values"][count], seen[line["id"]]["values"][count]] == list(last_counts)


async def test_a_board_in_a_closed_workspace_is_refused_to_a_member_outside_it(org: Org, screens: Any) -> None:
    workspace = await org.owner.mutate("workspaces.create", {"name": "Quality lab", "visibility": "closed"})
    assert workspace.status == 200, workspace.body
    project = await org.owner.mutate("projects.create", {"workspaceId": workspace.data["id"], "name": "Audits"})
    assert project.status == 200, project.body
    reply = await org.owner.mutate("boards.create", {"projectId": project.data["id"], "name": "Lab findings"})
    assert reply.status == 200, reply.body
    board = Board(org, reply.data["id"], project.data["id"], reply.data)
    member_id, member = await org.add_user("member")

    outsider, witness = screens(), screens()
    await outsider.connect(member)
    answer = await outsider.call("subscribe", {"room": f"board:{board.id}"})
    assert answer["ok"] is False and answer["error"]["code"] == "NOT_FOUND", answer
    answer = await outsider.call("subscribe", {"room": f"board:{board.id}", "since": 0})
    assert answer["ok"] is False and answer["error"]["code"] == "NOT_FOUND", answer
    start = await follow(witness, org.owner, board)
    await board.add_item("Calibration certificate expired")
    await witness.wait_for_seq(start + 1)
    assert outsider.received == []

    added = await org.owner.mutate("workspaces.members.add", {"workspaceId": workspace.data["id"],
                                                             "userId": member_id, "role": "member"})
    assert added.status == 200, added.body
    answer = await outsider.call("subscribe", {"room": f"board:{board.id}", "since": start})
    assert answer == {"ok": True, "seq": start + 1}
    assert [name for name, _ in outsider.received] == ["item.created"]


async def test_a_mentioned_member_gets_notification_created_in_their_private_room(org: Org, screens: Any) -> None:
    board = await make_board(org)
    item = await board.add_item("Burrs on part 4711-B")
    member_id, member = await org.add_user("member", name="Mia Member")
    _, bystander = await org.add_user("member", name="Ben Bystander")
    pool = board.api.client.server.app[NODE].pool
    before = await event_log.last_seq(pool, org.id, f"user:{org.id}:{member_id}")
    mentioned, other, follower = screens(), screens(), screens()
    await mentioned.connect(member)  # no subscribe: every socket is in its user's private room
    await other.connect(bystander)
    start = await follow(follower, org.owner, board)

    body = f"@{member_id} please check die 12 before the next shift"
    comment = await org.owner.mutate("comments.create", {"itemId": item["id"], "body": body})
    assert comment.status == 200, comment.body
    await mentioned.wait_for_seq(before + 1)
    await follower.wait_for_seq(start + 1)

    [(name, payload)] = mentioned.received
    assert name == "notification.created" and payload["event"] == name and payload["seq"] == before + 1
    assert payload["organizationId"] == org.id and payload["apiVersion"] == "v1"
    assert payload["data"]["actor"] == {"id": org.owner_id, "email": org.owner_email}
    note = payload["data"]
    assert (note["type"], note["entityType"], note["entityId"], note["read"]) == ("mention", "item", item["id"],
                                                                                 False)
    assert "Burrs on part 4711-B" in note["title"] and note["body"] == body
    assert ISO_MILLIS.match(note["createdAt"])
    listed = await member.query("notifications.list")
    assert listed.status == 200, listed.body
    assert listed.data["notifications"][0]["id"] == note["id"]

    assert [name for name, _ in follower.received] == ["item.commented"]  # the author is not notified
    assert other.received == []
