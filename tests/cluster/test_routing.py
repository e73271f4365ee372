"""Actors across nodes (separate processes on one database and one Redis, no sticky routing): each board and
KPI is owned by one node, and a call through any node reaches its owner, so a write acknowledged through one
node is read through every other at once and steady mixed load sees no 503."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import asyncpg

from tests.cluster.harness import Cluster, make_org
from tests.harness import Api, Reply
from tests.integration.boards.conftest import make_board
from tests.integration.kpis.conftest import kpi_input


def _ok(reply: Reply) -> Any:
    assert reply.status == 200, (reply.status, reply.body)
    return reply.data


def _metric(reply: Reply, sample: str) -> float:
    assert reply.status == 200, reply.body
    found = [line.rsplit(" ", 1)[1] for line in reply.body.splitlines() if line.startswith(sample + " ")]
    return float(found[0]) if found else 0.0


async def test_a_write_through_any_node_is_read_through_every_other_at_once(
        cluster: Cluster, pool: asyncpg.Pool, redis_url: str) -> None:
    nodes = await cluster.start(3)
    org = await make_org(pool, nodes[0])
    board = await make_board(org)
    count = _ok(await org.owner.mutate("columns.create", {"boardId": board.id, "name": "Count", "type": "number"}))
    kpi = _ok(await org.owner.mutate("kpis.define", kpi_input(board.id)))
    apis = [node.reach(org.owner) for node in nodes]

    for turn, (writer, reader) in enumerate(itertools.permutations(apis, 2)):
        item = _ok(await writer.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                        "name": f"Item {turn}"}))
        _ok(await writer.mutate("items.setValue", {"itemId": item["id"], "columnId": count["id"], "value": turn}))
        _ok(await writer.mutate("kpis.setValue", {"kpiId": kpi["id"], "value": turn}))
        seen = _ok(await reader.query("items.get", {"id": item["id"]}))
        assert (seen["name"], seen["values"][count["id"]]) == (f"Item {turn}", turn)
        assert _ok(await reader.query("kpis.getValue", {"kpiId": kpi["id"]}))["value"] == turn

    listed = [_ok(await api.query("items.list", {"boardId": board.id, "limit": 100})) for api in apis]
    assert all(len(page["items"]) == 6 for page in listed), [len(page["items"]) for page in listed]
    owner = await cluster.owner(f"board:{board.id}")
    assert owner in nodes  # one owner, whichever node took it
    for node in nodes:  # operators see that the other nodes forwarded their writes to the owner
        forwarded = _metric(await node.api("localhost").rest("GET", "/metrics"),
                            'obeya_forwarded_seconds_count{op="ask",outcome="answered"}')
        assert node is owner or forwarded > 0, (node.name, forwarded)


async def test_mixed_load_through_three_nodes_is_all_answered_without_503(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    nodes = await cluster.start(3)
    org = await make_org(pool, nodes[0])
    boards = [await make_board(org) for _ in range(2)]
    counts = [_ok(await org.owner.mutate("columns.create", {"boardId": b.id, "name": "Count", "type": "number"}))
              for b in boards]
    statuses: list[int] = []

    async def client(api: Api, number: int) -> list[str]:
        created: list[str] = []
        for step in range(12):
            index = (number + step) % 2
            board, count = boards[index], counts[index]
            reply = await api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id,
                                                      "name": f"c{number} s{step}"})
            statuses.append(reply.status)
            if reply.status != 200:
                continue
            created.append(reply.data["id"])
            for answer in await asyncio.gather(
                    api.mutate("items.setValue", {"itemId": reply.data["id"], "columnId": count["id"],
                                                  "value": step}),
                    api.query("items.get", {"id": created[step // 2]}),
                    api.query("items.list", {"boardId": board.id, "limit": 10})):
                statuses.append(answer.status)
        return created

    created = await asyncio.gather(*(client(nodes[n % 3].reach(org.owner), n) for n in range(9)))
    assert set(statuses) == {200}, {status: statuses.count(status) for status in set(statuses)}
    total = sum(len(ids) for ids in created)
    for node in nodes:
        api = node.reach(org.owner)
        on_boards = [len(_ok(await api.query("items.list", {"boardId": b.id, "limit": 100}))["items"])
                     for b in boards]
        assert sum(on_boards) == total == 9 * 12


async def test_boards_of_a_project_deleted_through_another_node_are_gone_on_every_node(
        cluster: Cluster, pool: asyncpg.Pool) -> None:
    nodes = await cluster.start(3)
    org = await make_org(pool, nodes[0])
    board = await make_board(org)
    await board.add_item()  # the board's actor is active on its owner, with the item in memory
    deleted = await nodes[1].reach(org.owner).mutate("projects.delete", {"id": board.project_id})
    assert deleted.status == 200, deleted.body

    for node in nodes:
        api = node.reach(org.owner)
        assert (await api.query("boards.get", {"id": board.id})).status == 404
        refused = await api.mutate("items.create", {"boardId": board.id, "groupId": board.group_id, "name": "Late"})
        assert refused.status == 404, refused.body
