"""Rate limits across nodes (separate processes on one Redis): a credential's requests count against one budget
per minute whichever node they reach, the request past it is 429 with `Retry-After` on every
node, and each node counts the refusal it answered on its own `/metrics`."""

from __future__ import annotations

import asyncpg

from protocol.plans import PLANS
from tests.cluster.harness import Cluster, ClusterNode, make_org
from tests.harness import Reply
from tests.integration.limits.test_rate_limits import limits
from tests.integration.server.test_metrics import samples

LIMIT = PLANS["free"].requests_per_minute
ME = "/api/v1/auth/me"


async def refusals(node: ClusterNode) -> float:
    """The 429s `node` answered so far (whatever the route), as its `/metrics` counts them."""
    async with node.session.get("/metrics", headers={"Host": "localhost"}) as response:
        assert response.status == 200
        parsed = samples(await response.text())
    return sum(count for (name, labels), count in parsed.items()
               if name == "obeya_refusals_total" and ("status", "429") in labels)


async def spend(pool: asyncpg.Pool, nodes: list[ClusterNode]) -> tuple[list[Reply], list[Reply], list[float]]:
    """A new free-plan owner's requests, the node changing at each one: the budget, then one more on each node;
    and the refusals each node had counted before. Done again with a new owner if a minute began meanwhile
    (the budget starts again with it)."""
    for _ in range(2):
        before = [await refusals(node) for node in nodes]
        org = await make_org(pool, nodes[0], plan="free")
        apis = [node.api(org.host).with_session(org.owner.session) for node in nodes]
        allowed = [await apis[n % len(nodes)].rest("GET", ME) for n in range(LIMIT)]
        refused = [await api.rest("GET", ME) for api in apis]
        if len({limits(reply)[2] for reply in allowed + refused}) == 1:  # all in one window
            return allowed, refused, before
    raise AssertionError("a minute began during each of two tries")


async def test_requests_spread_over_nodes_share_one_budget(cluster: Cluster, pool: asyncpg.Pool) -> None:
    nodes = await cluster.start(3)

    allowed, refused, before = await spend(pool, nodes)

    assert [reply.status for reply in allowed] == [200] * LIMIT
    assert [limits(reply)[:2] for reply in allowed] == [(LIMIT, LIMIT - n) for n in range(1, LIMIT + 1)]
    for reply in refused:
        assert reply.status == 429, reply.body
        assert reply.error["code"] == "TOO_MANY_REQUESTS"
        assert limits(reply)[:2] == (LIMIT, 0)
        assert 1 <= int(reply.headers["Retry-After"]) <= 60
    assert [await refusals(node) - count for node, count in zip(nodes, before, strict=True)] == [1, 1, 1]
