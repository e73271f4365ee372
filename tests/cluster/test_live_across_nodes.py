"""Live updates across nodes (separate processes on one database and one Redis): events committed through one
node reach screens on every node, each once and in seq order; a screen resumes with `since` on another node
than the one it saw the events on; a member removed through one node loses the board on every node. Every
board is written through one node (the same board written through two nodes waits for actor forwarding)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from storage import events as event_log
from tests.cluster.harness import Cluster, add_user, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen
from tests.integration.live.test_board_live import follow

COLUMNS = [{"name": "Count", "type": "number"}]
BURST = 30


def board_events(screen: Screen) -> list[tuple[int, str, str]]:
    """(seq, name, event id) of what the screen received on the board's stream, in the order received."""
    return [(data["seq"], name, data["id"]) for name, data in screen.received if name != "notification.created"]


async def board_seq(pool: asyncpg.Pool, board: Board) -> int:
    return await event_log.last_seq(pool, board.org.id, f"board:{board.id}")


async def burst(board: Board, items: int, values: int) -> None:
    """`items` creates, then `values` number changes spread over them, each batch sent at once (the board's
    actor takes them in turns of several)."""
    created = await asyncio.gather(*(board.add_item(f"Part {n}") for n in range(items)))
    column = board.column("number")["id"]
    replies = await asyncio.gather(*(
        board.api.mutate("items.setValue", {"itemId": created[n % items]["id"], "columnId": column, "value": n})
        for n in range(values)))
    assert [reply.status for reply in replies] == [200] * values, [r.body for r in replies if r.status != 200]


async def test_a_burst_through_one_node_reaches_a_screen_on_every_node_alike(
        cluster: Cluster, pool: asyncpg.Pool, screens: Any) -> None:
    nodes = await cluster.start(3)
    org = await make_org(pool, nodes[0])
    board = await make_board(org, columns=COLUMNS)
    watching = [screens() for _ in nodes]
    starts = [await follow(screen, org.owner, board, url=node.url)
              for screen, node in zip(watching, nodes, strict=True)]
    assert len(set(starts)) == 1, starts

    await burst(board, BURST // 3, BURST - BURST // 3)
    final = await board_seq(pool, board)
    assert final == starts[0] + BURST
    for screen in watching:
        await screen.wait_for_seq(final)

    first = board_events(watching[0])
    assert [seq for seq, _, _ in first] == list(range(starts[0] + 1, final + 1))  # each once, in order
    assert [name for _, name, _ in first].count("item.created") == BURST // 3
    for screen in watching[1:]:
        assert board_events(screen) == first


async def test_a_screen_resumes_with_since_on_another_node(
        cluster: Cluster, pool: asyncpg.Pool, screens: Any) -> None:
    writer, first_node, second_node = await cluster.start(3)
    org = await make_org(pool, writer)
    board = await make_board(org, columns=COLUMNS)
    first = screens()
    start = await follow(first, org.owner, board, url=first_node.url)
    await burst(board, 2, 3)
    await first.wait_for_seq(start + 5)
    last_seen = first.seqs()[-1]
    await first.close()

    await burst(board, 2, 8)  # missed while away
    # Changes keep being committed from before the screen subscribes again until after it was answered, so
    # they land before, during and after its replay.
    subscribed = asyncio.Event()
    column = board.column("number")["id"]
    item_id = (await board.add_item("Press 4"))["id"]

    async def set_count(n: int) -> None:
        reply = await board.api.mutate("items.setValue", {"itemId": item_id, "columnId": column, "value": n})
        assert reply.status == 200, reply.body

    async def keep_writing() -> None:
        n = 0
        while not subscribed.is_set():
            await set_count(n)
            n += 1
        for later in range(n, n + 5):  # sent once the subscription was answered: live, past its seq
            await set_count(later)

    writing = asyncio.create_task(keep_writing())
    resumed, witness = screens(), screens()
    ack = await follow(resumed, org.owner, board, since=last_seen, url=second_node.url)
    subscribed.set()
    await writing
    final = await board_seq(pool, board)
    await follow(witness, org.owner, board, since=last_seen, url=writer.url)
    await resumed.wait_for_seq(final)
    await witness.wait_for_seq(final)

    assert last_seen + 11 <= ack < final  # replayed what it missed, then got the rest live
    assert [seq for seq, _, _ in board_events(resumed)] == list(range(last_seen + 1, final + 1))
    assert board_events(resumed) == board_events(witness)  # the same events as a screen on the writing node


async def test_a_removed_member_stops_receiving_the_board_on_every_node_at_once(
        cluster: Cluster, pool: asyncpg.Pool, screens: Any) -> None:
    """The removal and the later write go through one node, so every node hears them in that order; the
    sockets of the other nodes are held on the removal's event, before the write's is delivered."""
    nodes = await cluster.start(3)
    org = await make_org(pool, nodes[0])
    board = await make_board(org)
    member_id, member = await add_user(pool, org, nodes[1])
    _, colleague = await add_user(pool, org, nodes[2])
    removed = [screens() for _ in nodes]
    controls = [screens() for _ in nodes]
    for node, screen, control in zip(nodes, removed, controls, strict=True):
        await follow(screen, member, board, url=node.url)
        await follow(control, colleague, board, url=node.url)

    reply = await org.owner.mutate("organizations.members.remove", {"userId": member_id})
    assert reply.status == 200, reply.body
    later = await board.add_item("Committed after the removal")
    for control in controls:
        await control.wait_for(lambda control=control: any(
            name == "item.created" and data["data"]["item"]["id"] == later["id"] for name, data in control.received))

    for screen in removed:
        revoked = await screen.wait_for_event("access.revoked")
        assert revoked["room"] is None and revoked["error"]["code"] in ("UNAUTHORIZED", "FORBIDDEN"), revoked
        assert [name for name, _ in screen.received] == ["access.revoked"]  # not the later item
