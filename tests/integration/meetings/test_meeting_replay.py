"""Meeting replay: `meetings.replay` gives the board as `meetings.start` recorded it (groups and columns as
boards.get shows them, items as items.list lists them, at most SNAPSHOT_ITEMS) on its first page, and the board
stream's events after the start up to the completion (up to now while the meeting runs), in seq order, each with
the payload a screen on the board's room received live, paged by seq. Readers are those of meetings.get."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from actors.meetings import snapshot
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board
from tests.integration.live.conftest import follow
from tests.integration.meetings.conftest import action, board_seq, complete, day, event_at, on_agenda, start
from web.keys import NODE


async def replay(api: Api, meeting: dict[str, Any], **fields: Any) -> dict[str, Any]:
    reply = await api.query("meetings.replay", {"id": meeting["id"], **fields})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def all_pages(api: Api, meeting: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    pages = [await replay(api, meeting, limit=limit)]
    while pages[-1]["nextCursor"] is not None:
        pages.append(await replay(api, meeting, limit=limit, cursor=pages[-1]["nextCursor"]))
    return pages


async def listed_items(board: Board) -> list[dict[str, Any]]:
    reply = await board.api.query("items.list", {"boardId": board.id})
    assert reply.status == 200 and reply.data["nextCursor"] is None, reply.body
    return list(reply.data["items"])


async def test_the_board_is_recorded_as_items_list_gave_it_at_the_start(board: Board) -> None:
    status = board.column("status")
    leak = await board.add_item("Leak at station 3", values={status["id"]: {"label": "Stuck"}})
    await board.add_item("Order part", parentId=leak["id"])  # a sub-item: items.list does not list it
    guard = await board.add_item("Fix guard")
    archived = await board.add_item("Old request")
    assert (await board.api.mutate("items.archive", {"id": archived["id"]})).status == 200
    trashed = await board.add_item("Wrong entry")
    assert (await board.api.mutate("items.delete", {"id": trashed["id"]})).status == 200
    second_group = await board.api.mutate("boards.groups.create", {"boardId": board.id, "name": "Done"})
    assert second_group.status == 200, second_group.body
    moved = await board.api.mutate("items.move", {"id": guard["id"], "groupId": second_group.data["id"]})
    assert moved.status == 200, moved.body
    before = await listed_items(board)
    assert [item["name"] for item in before] == ["Leak at station 3", "Fix guard"]
    shown = await board.refresh()

    meeting = await start(board)
    # The board changes during and after the meeting; the recording does not.
    renamed = await board.api.mutate("items.update", {"id": leak["id"], "name": "Leak fixed"})
    assert renamed.status == 200, renamed.body
    await board.add_item("New during the meeting")
    assert (await board.api.mutate("items.delete", {"id": guard["id"]})).status == 200
    assert (await board.api.mutate("columns.create", {"boardId": board.id, "name": "Notes", "type": "text"})
            ).status == 200
    await complete(board.api, meeting)
    await board.add_item("New after the meeting")

    recorded = (await replay(board.api, meeting))["board"]
    assert recorded == {"id": board.id, "name": shown["name"], "groups": shown["groups"],
                        "columns": shown["columns"], "items": before, "truncated": False}
    assert [item["name"] for item in await listed_items(board)] != [item["name"] for item in before]


async def test_the_board_is_the_one_at_the_meetings_seq_while_others_write(board: Board) -> None:
    """Items created while the meeting starts: those whose `item.created` precedes `meeting.started` in the
    board's stream are in the recorded board, the later ones are not (they are the replay's first changes)."""
    results = await asyncio.gather(*(board.add_item(f"Early {n}") for n in range(8)), start(board),
                                   *(board.add_item(f"Late {n}") for n in range(8)))
    meeting = next(result for result in results if "seqAtStart" in result)
    created = {result["id"]: result for result in results if "seqAtStart" not in result}
    before = [await event_at(board, seq) for seq in range(1, meeting["seqAtStart"])]
    made_before = {payload["data"]["item"]["id"] for name, payload in before if name == "item.created"}
    replayed = await replay(board.api, meeting)
    assert {item["id"] for item in replayed["board"]["items"]} == made_before
    assert all(item == created[item["id"]] for item in replayed["board"]["items"])
    made_after = {c["payload"]["data"]["item"]["id"] for c in replayed["changes"]}
    assert made_before | made_after == set(created) and not made_before & made_after


async def test_the_board_keeps_the_first_items_in_board_order_and_says_it_is_truncated(
        board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "SNAPSHOT_ITEMS", 3)
    for n in range(3):
        await board.add_item(f"Item {n}")
    whole = await replay(board.api, await start(board, tier=1))
    assert [item["name"] for item in whole["board"]["items"]] == ["Item 0", "Item 1", "Item 2"]
    assert whole["board"]["truncated"] is False
    await board.add_item("Item 3")
    cut = await replay(board.api, await start(board, tier=2))
    assert cut["board"]["items"] == (await listed_items(board))[:3] and cut["board"]["truncated"] is True


async def test_replay_lists_what_a_screen_received_live_between_start_and_completion(board: Board,
                                                                                     screens: Any) -> None:
    entries = await on_agenda(board)
    screen = screens()
    await follow(screen, board.api, board)
    await board.add_item("Before the meeting")
    meeting = await start(board)

    status = board.column("status")
    item = await board.add_item("Leak at station 3")
    assert (await board.api.mutate("items.setValue", {"itemId": item["id"], "columnId": status["id"],
                                                      "value": {"label": "Done"}})).status == 200
    await action(board, "Call the supplier", day(board, 1))
    assert (await board.api.mutate("meetings.focus", {"id": meeting["id"], "entry": entries["kpis"]})).status == 200
    assert (await board.api.mutate("meetings.markDiscussed", {"id": meeting["id"], "entry": entries["kpis"]})
            ).status == 200
    during = await replay(board.api, meeting)  # while the meeting runs: up to now
    completed = await complete(board.api, meeting, notes="Leak fixed")
    await board.add_item("After the meeting")
    await screen.wait_for_seq(await board_seq(board))

    live = [(name, data) for name, data in screen.received
            if meeting["seqAtStart"] < data["seq"] <= completed["seqAtCompletion"]]
    replayed = await replay(board.api, meeting)
    assert [(c["name"], c["payload"]) for c in replayed["changes"]] == live
    assert [c["seq"] for c in replayed["changes"]] == list(range(meeting["seqAtStart"] + 1,
                                                                  completed["seqAtCompletion"] + 1))
    assert [c["name"] for c in replayed["changes"]] == ["item.created", "item.updated", "action.created",
                                                        "meeting.updated", "meeting.updated", "meeting.completed"]
    assert all(c["seq"] == c["payload"]["seq"] and c["createdAt"].endswith("Z") for c in replayed["changes"])
    assert replayed["meeting"] == completed and replayed["nextCursor"] is None
    assert during["changes"] == replayed["changes"][:5] and during["nextCursor"] is None
    assert during["meeting"]["status"] == "in_progress" and during["board"] == replayed["board"]


async def test_replay_pages_by_seq_and_sends_the_board_once(board: Board) -> None:
    meeting = await start(board)
    for n in range(7):
        await board.add_item(f"Item {n}")
    completed = await complete(board.api, meeting)  # 8 changes: seven items and the completion

    whole = await replay(board.api, meeting)
    assert len(whole["changes"]) == 8 and whole["nextCursor"] is None
    pages = await all_pages(board.api, meeting, limit=3)
    assert [len(page["changes"]) for page in pages] == [3, 3, 2]
    assert [change for page in pages for change in page["changes"]] == whole["changes"]
    assert pages[0]["board"] == whole["board"] is not None and [p["board"] for p in pages[1:]] == [None, None]
    assert all(page["meeting"] == completed for page in pages)
    assert pages[0]["nextCursor"] == str(whole["changes"][2]["seq"])
    # One page of exactly what is left ends the replay; a page after the last change is empty.
    last = await replay(board.api, meeting, limit=2, cursor=str(whole["changes"][5]["seq"]))
    assert last["changes"] == whole["changes"][6:] and last["nextCursor"] is None
    empty = await replay(board.api, meeting, cursor=str(completed["seqAtCompletion"]))
    assert empty["changes"] == [] and empty["nextCursor"] is None and empty["board"] is None
    default = await replay(board.api, meeting, limit=None)
    assert default == whole


async def test_a_meeting_started_before_boards_were_recorded_replays_without_one(board: Board) -> None:
    meeting = await start(board)
    await board.add_item("Leak")
    node = board.api.client.app[NODE]
    await node.pool.execute("UPDATE meetings SET board_snapshot = NULL WHERE id = $1", meeting["id"])
    replayed = await replay(board.api, meeting)
    assert replayed["board"] is None and [c["name"] for c in replayed["changes"]] == ["item.created"]


async def test_replay_is_read_by_whoever_reads_the_meeting(client: Any, board: Board) -> None:
    guest_id, guest = await board.org.add_user("guest")
    meeting = await start(board)
    await board.add_item("Leak")
    key = await board.api.mutate("apiKeys.create", {"name": "wall", "scopes": ["read:items"]})
    assert key.status == 200, key.body
    reader = board.api.with_bearer(str(key.data["key"]))
    expected = await replay(board.api, meeting)
    assert await replay(reader, meeting) == expected
    # A guest sees the board once it is a member of the board's workspace.
    hidden = await guest.query("meetings.replay", {"id": meeting["id"]})
    assert hidden.status == 404, hidden.body
    workspace_id = (await board.api.query("projects.get", {"id": board.project_id})).data["workspaceId"]
    added = await board.api.mutate("workspaces.members.add", {"workspaceId": workspace_id, "userId": guest_id})
    assert added.status == 200, added.body
    assert await replay(guest, meeting) == expected
    outsider = (await make_org(client)).owner
    assert (await outsider.query("meetings.replay", {"id": meeting["id"]})).status == 404
    unknown = await board.api.query("meetings.replay", {"id": "mtg_doesnotexist0000000"})
    assert unknown.status == 404
    write_only = await board.api.mutate("apiKeys.create", {"name": "logger", "scopes": ["write:kpis"]})
    assert (await board.api.with_bearer(str(write_only.data["key"])).query(
        "meetings.replay", {"id": meeting["id"]})).status == 403


async def test_bad_input_is_400_naming_the_field(board: Board) -> None:
    meeting = await start(board)
    await board.add_item("Leak")
    completed = await complete(board.api, meeting)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"limit": 0}, "limit"), ({"limit": 501}, "limit"), ({"limit": "ten"}, "limit"), ({"limit": 2.5}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "-1"}, "cursor"), ({"cursor": 7}, "cursor"),
        ({"cursor": str(meeting["seqAtStart"] - 1)}, "cursor"),  # before the meeting: not its replay
        ({"cursor": str(completed["seqAtCompletion"] + 1)}, "cursor"),  # after its completion
        ({"id": ""}, "id"), ({"id": None}, "id"),
    ]
    for fields, field in cases:
        reply = await board.api.query("meetings.replay", {"id": meeting["id"], **fields})
        assert reply.status == 400, (fields, reply.body)
        assert reply.error["data"]["details"][0]["field"] == field, (fields, reply.body)
    assert len((await replay(board.api, meeting, limit=500))["changes"]) == 2
