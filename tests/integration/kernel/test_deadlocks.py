"""Writers that touch the same event streams in opposite orders never deadlock: items moved across two
boards in both directions at once, and comments notifying the same two people in opposite orders on the
two boards, all succeed round after round (no 409 "collided", no 500), and every move can be read back."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.harness import Api, Org
from tests.integration.boards.conftest import Board, make_board

ROUNDS = 12


async def _move(api: Api, item: dict[str, Any], to: Board) -> tuple[int, Any]:
    reply = await api.mutate("items.move", {"id": item["id"], "groupId": to.group_id, "boardId": to.id})
    return reply.status, reply.body


async def _mention(api: Api, item: dict[str, Any], body: str) -> tuple[int, Any]:
    reply = await api.mutate("comments.create", {"itemId": item["id"], "body": body})
    return reply.status, reply.body


async def test_crossing_moves_and_opposite_notifications_never_collide(org: Org) -> None:
    first, second = await make_board(org), await make_board(org)
    ann_id, ann = await org.add_user("member", name="Ann")
    bob_id, bob = await org.add_user("member", name="Bob")
    talk_first, talk_second = await first.add_item("Daily talk"), await second.add_item("Daily talk")
    api = org.owner
    for round_no in range(ROUNDS):
        leaving_first = await first.add_item(f"A to B {round_no}")
        leaving_second = await second.add_item(f"B to A {round_no}")
        answers = await asyncio.gather(
            _move(api, leaving_first, second), _move(api, leaving_second, first),
            _mention(api, talk_first, f"@{ann_id} @{bob_id} round {round_no}"),
            _mention(api, talk_second, f"@{bob_id} @{ann_id} round {round_no}"))
        assert [status for status, _ in answers] == [200, 200, 200, 200], (round_no, answers)

        for item, board in ((leaving_first, second), (leaving_second, first)):
            read = await api.query("items.get", {"id": item["id"]})
            assert read.status == 200, read.body
            assert read.data["boardId"] == board.id and read.data["name"] == item["name"]

    for person in (ann, bob):  # each was mentioned on both boards in every round, each seq once
        feed = await person.query("events.list", {"stream": "user", "limit": 100})
        assert feed.status == 200, feed.body
        assert [event["seq"] for event in feed.data["events"]] == list(range(1, 2 * ROUNDS + 1))
