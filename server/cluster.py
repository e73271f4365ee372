"""A node's place in a cluster (`OBEYA_REDIS_URL` set): the Redis actor directory and the node inbox that
forwards asks for actors another node owns, started and stopped around the actor system in the order
docs/forwarding.md gives. A single node runs the local directory and forwards nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import redis.asyncio as redis

from actors.approvals.actor import FlowActor
from actors.board.actor import BoardActor
from actors.kpi.actor import KpiActor
from actors.runtime.actor import Actor
from actors.runtime.forwarding import NodeInbox, node_listens
from actors.runtime.redis_directory import RedisDirectory, node_beats
from actors.runtime.system import ActorSystem

# Every actor type a node runs: a key owned by another node must reach it, or this node's activation would
# fail its claim and answer 503 for as long as the owner lives.
FORWARDED: list[type[Actor[Any, Any, Any]]] = [BoardActor, KpiActor, FlowActor]

# Connections of the directory and the inbox: a burst of forwarded asks waits for one of these rather than
# failing with "Too many connections" (redis-py's default pool raises past 100); 5 s is past any healthy wait,
# for a free connection as for a command's answer.
REDIS_CONNECTIONS = 64
REDIS_WAIT_SECONDS = 5.0


class _ResettingRedis(redis.Redis):
    """When a command finds its connection broken (Redis restarted, or the link dropped), every idle connection
    of the pool is closed too: each is as broken, and would otherwise fail its next command at some unrelated
    later moment (a reply to a forwarded call, a lease renewal) long after Redis is back. redis-py's asyncio
    client does not retry by default, and a retry could run a PUBLISH twice."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        command: Any = super().execute_command  # untyped in redis-py
        try:
            return await command(*args, **options)
        except redis.ConnectionError:
            await self.connection_pool.disconnect(inuse_connections=False)
            raise


def redis_client(url: str, *, max_connections: int = REDIS_CONNECTIONS, wait: float = REDIS_WAIT_SECONDS
                 ) -> redis.Redis:
    """A client whose concurrent commands share a bounded set of connections (waiting for a free one), each
    command answered within `wait` seconds or failed: a Redis that stopped answering (paused, cut off) makes
    calls 503 rather than hang until TCP gives up. After a lost connection the rest of the pool is renewed
    (`_ResettingRedis`). The inbox's subscription waits for messages regardless."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=wait,
                                                 socket_timeout=wait, socket_connect_timeout=wait)
    return _ResettingRedis(connection_pool=pool)


class ClusterLink:
    """A node's link to the other nodes of its cluster, on one Redis client: the actor directory, made with the
    node (its actor system is built on it: server/node_services.py build_node), and the inbox that forwards asks
    for actors another node owns, run while the actor system runs (`running`)."""

    def __init__(self, redis_url: str, node_id: str, *, lease: float) -> None:
        self._client = redis_client(redis_url)
        self.directory = RedisDirectory(self._client, node_id, lease=lease)

    async def close(self) -> None:
        """Close the Redis client: after `running`, or when start-up failed before the actor system ran (closing
        a closed client does nothing)."""
        await self._client.aclose()

    @asynccontextmanager
    async def running(self, system: ActorSystem, *,
                      observe_resubscribed: Callable[[str], None] | None = None) -> AsyncIterator[None]:
        """Run `system`, built on `self.directory`, as one node of the cluster until the block exits: claims renewed
        and other nodes answered while it runs; on exit the system stops (its turns finish, its queued callers get
        503), every claim is released in one pass, the inbox stops answering and the client closes."""
        directory = self.directory
        inbox = NodeInbox(self._client, directory.node_id, system.handle_forwarded)
        inbox.subscription.observe = observe_resubscribed  # counted in the node's metrics
        system.forward_through(inbox, FORWARDED)
        directory.on_lost = system.lost
        async with AsyncExitStack() as stopping:  # in reverse order, each one even if the one before failed
            stopping.push_async_callback(self.close)
            stopping.push_async_callback(inbox.stop)
            stopping.push_async_callback(directory.stop)
            stopping.push_async_callback(system.stop)
            system.start()
            await directory.join()  # before any claim (none runs before the block): a fresh Redis has no grace
            await directory.beat()
            directory.start()
            await inbox.start()
            yield


async def node_runs(client: redis.Redis, node_id: str, *, lease: float) -> bool:
    """Whether the node `node_id` still runs: it listens to its inbox (a process that died lost its
    subscription at once) and it beat within its lease (a stopped one keeps its subscription). Who holds an
    Idempotency-Key claim is asked this before a retry takes the claim over."""
    return await node_listens(client, node_id) and await node_beats(client, node_id, lease)
