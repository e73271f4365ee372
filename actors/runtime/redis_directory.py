"""The actor directory shared by the nodes of a cluster, in Redis: `obeya:actor:<kind>:<id>` -> node id,
held under a lease. A claim is a compare-and-set (a Lua script: take the key if it is free, or extend it if
this node already holds it), one task per node renews every claim it holds, and a key is deleted only by
its owner (a Lua script again), on deactivation and on shutdown. The same task writes the node's heartbeat,
`obeya:node-alive:<node id>`, under the same lease: how other nodes tell a node that runs from one that stopped
(`node_beats`), which its open connections cannot tell them.

A lease is not a lock: a node that stalls past its lease loses the key and another node may activate the
actor. Two activations may then overlap for a moment; the epoch from PostgreSQL that every activation
takes and every commit checks (storage/epochs.py) makes the older one fail its next commit and stop.

A Redis that restarts empty loses every key at once, while the owners still serve reads from memory until their
next renewal. So the directory keeps `obeya:directory:since` (no TTL): the Redis time (ms) from which this dataset
has held the directory. Every node sets it to 0 as it starts (`join`, if missing); every claim and renewal script
sets it to Redis's time now if missing, which after a restart is the first script that runs. For one lease from
that time (the grace) a claim of a key nobody holds is refused, and a renewal takes back a key nobody holds for the
node that passes it: the node confirmed it within its lease, so it held it when Redis lost it. On a fresh Redis
under a fresh cluster nobody waits; a node that starts after a restart, before any running node's script, marks
it 0 too, and that restart gets no grace.

The directory of every node started with `OBEYA_REDIS_URL` (server/cluster.py, docs/forwarding.md)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import redis.asyncio as redis
import structlog

from actors.runtime.redis_errors import REDIS_AWAY, unavailable_without_redis

log = structlog.get_logger(__name__)

PREFIX = "obeya:actor:"
ALIVE_PREFIX = "obeya:node-alive:"
SINCE_KEY = "obeya:directory:since"

# Orleans-style: long enough that a node under load (a GC pause, a slow turn, a Redis failover) keeps its
# actors, short enough that a dead node's actors serve again elsewhere within seconds.
LEASE_SECONDS = 10.0

# Renewing at a third of the lease survives two lost or late renewals before the key lapses.
RENEWALS_PER_LEASE = 3

# Keys per renewal script call: one call for a few hundred keys keeps Redis's single thread free for
# other clients between calls, and a node with 10,000 actors renews in 20 round trips.
RENEW_BATCH = 500

# Prepended to the claim and renewal scripts: whether the directory is in its grace after Redis lost its data
# (marker: the key of `obeya:directory:since`), marking the dataset with Redis's time now if nobody did.
_GRACE = """
local function in_grace(marker, lease_ms)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local since = tonumber(redis.call('GET', marker))
  if since == nil then
    redis.call('SET', marker, now)
    since = now
  end
  return now - since < tonumber(lease_ms)
end
"""

# KEYS[1] the marker, KEYS[2] the actor's key; ARGV[1] this node's id, ARGV[2] the lease in milliseconds.
# Returns 1 when this node holds the key now (newly taken or extended), 0 when another node holds it or, in the
# grace, nobody does.
_CLAIM = _GRACE + """
local grace = in_grace(KEYS[1], ARGV[2])
local owner = redis.call('GET', KEYS[2])
if owner == ARGV[1] or (owner == false and not grace) then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# KEYS[1] the marker, then the keys this node believes it holds; ARGV[1] this node's id, ARGV[2] the lease in
# milliseconds. Extends those this node still holds, takes back those nobody holds in the grace (the caller
# confirmed them within its lease); returns the 1-based positions (among the actor keys) of those it no longer
# holds.
_RENEW = _GRACE + """
local grace = in_grace(KEYS[1], ARGV[2])
local lost = {}
for i = 2, #KEYS do
  local owner = redis.call('GET', KEYS[i])
  if owner == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
  elseif owner == false and grace then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, i - 1)
  end
end
return lost
"""

# KEYS the keys to release; ARGV[1] this node's id. Deletes only those this node holds; returns how many.
_RELEASE = """
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released
"""

OnLost = Callable[[str], None]


class RedisDirectory:
    """The `Directory` of one node in a cluster (actors/runtime/directory.py).

    `join()` goes before the node's first claim; `start()` begins renewing; `stop()` stops renewing and releases
    every key this node holds. `on_lost` is called with an actor key when a renewal finds another node holds it
    (or nobody does, outside a grace), when the node's last confirmation of it is older than a lease, or when
    renewals have failed so long that the claim may lapse before the next one (Redis unreachable from this node
    only): the activation here should deactivate, since its next commit would fail on its epoch anyway and its
    memory may no longer show what the new owner acknowledged.
    """

    def __init__(self, client: redis.Redis, node_id: str, *, lease: float = LEASE_SECONDS,
                 prefix: str = PREFIX, alive_prefix: str = ALIVE_PREFIX, since_key: str = SINCE_KEY,
                 on_lost: OnLost | None = None) -> None:
        if lease <= 0:
            raise ValueError("the lease must be positive")
        self.node_id = node_id
        self.lease = lease
        self.on_lost = on_lost
        # Completed renewal passes (for operators' diagnostics and for tests that wait on renewal).
        self.renewals = 0
        self._client = client
        self._prefix = prefix
        self._alive_key = alive_prefix + node_id
        self._since_key = since_key
        self._lease_ms = max(1, math.ceil(lease * 1000))
        self._claim = client.register_script(_CLAIM)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        # Actor keys (without the prefix) this node believes it holds: what the renewal task extends. Each
        # claim gets a new number, so a renewal pass can tell a key it saw from the same key claimed again.
        self._held: dict[str, int] = {}
        self._claims = 0
        # When each held key was last known to be this node's in Redis (monotonic seconds, taken before the
        # script that confirmed it): its claim, or the start of the last renewal pass that went through.
        self._claimed_at: dict[str, float] = {}
        self._renewed_at = -math.inf
        self._renewer: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def __aenter__(self) -> RedisDirectory:
        self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()

    @property
    def held(self) -> frozenset[str]:
        """The actor keys this node holds, as far as it knows."""
        return frozenset(self._held)

    async def join(self) -> None:
        """Before this node claims anything: mark Redis's dataset as the directory's from the start (0), unless a
        node or a script marked it already, so that on a fresh Redis nobody waits for a grace."""
        await self._client.set(self._since_key, 0, nx=True)

    def start(self) -> None:
        if self._renewer is None:
            self._stopping = asyncio.Event()
            self._renewer = asyncio.create_task(self._renew_forever(), name=f"directory renewal {self.node_id}")

    async def stop(self, *, release: bool = True) -> None:
        """Stop renewing and give up every key this node holds, so other nodes can take them at once.

        With `release=False` the keys stay until their leases lapse, as when a node's process dies (tests
        use it to stand for one)."""
        if self._renewer is not None:
            # Asked to stop, not cancelled: a renewal cancelled in the middle of its script call could leave
            # the connection waiting for a reply that never comes (seen with redis-py 8 under load). A pass
            # that does not finish within a lease is cancelled all the same.
            self._stopping.set()
            try:
                async with asyncio.timeout(self.lease):
                    await asyncio.shield(self._renewer)
            except TimeoutError:
                self._renewer.cancel()
                await asyncio.gather(self._renewer, return_exceptions=True)
            self._renewer = None
        if not release:
            self._held.clear()
            self._claimed_at.clear()
            return
        held = sorted(self._held)
        self._held.clear()
        self._claimed_at.clear()
        try:
            for start in range(0, len(held), RENEW_BATCH):
                batch = held[start:start + RENEW_BATCH]
                await self._release(keys=[self._prefix + key for key in batch], args=[self.node_id])
        except REDIS_AWAY as exc:
            # The leases lapse on their own: other nodes wait at most one lease for these actors.
            log.warning("directory.release_failed", node=self.node_id, keys=len(held), error=repr(exc))

    async def locate(self, key: str) -> str | None:
        with unavailable_without_redis("directory.unavailable", node=self.node_id):
            owner = await self._client.get(self._prefix + key)
        if owner is None:
            return None
        return owner.decode() if isinstance(owner, bytes) else str(owner)

    async def lease_left(self, key: str) -> float:
        """Seconds until `key`'s current claim lapses unless renewed (0 when nobody holds it)."""
        with unavailable_without_redis("directory.unavailable", node=self.node_id):
            left_ms = await self._client.pttl(self._prefix + key)
        return max(0, left_ms) / 1000

    async def claim(self, key: str) -> bool:
        started = time.monotonic()
        with unavailable_without_redis("directory.unavailable", node=self.node_id):
            taken = await self._claim(keys=[self._since_key, self._prefix + key], args=[self.node_id, self._lease_ms])
        if taken:
            self._claims += 1
            self._held[key] = self._claims
            self._claimed_at[key] = started
        return bool(taken)

    async def release(self, key: str) -> None:
        # Forgotten first: a renewal pass running meanwhile must not count the key as lost.
        self._held.pop(key, None)
        self._claimed_at.pop(key, None)
        try:
            await self._release(keys=[self._prefix + key], args=[self.node_id])
        except REDIS_AWAY as exc:
            # No longer renewed, the claim lapses within a lease: an activation leaving is not failed for it (one
            # whose load failed after its claim keeps its own error).
            log.warning("directory.release_failed", node=self.node_id, actor=key, error=repr(exc))

    async def beat(self) -> None:
        """Say that this node runs, for one lease (renewed with the claims)."""
        await self._client.set(self._alive_key, b"1", px=self._lease_ms)

    async def renew(self) -> list[str]:
        """Extend the heartbeat and the lease of every key this node holds; return (and forget) the keys it no
        longer holds."""
        started = time.monotonic()
        # Not confirmed for a lease (this node stalled), a claim has lapsed in Redis and another node may have
        # held the key since: lost, and not offered to the script, which would take it back in a grace.
        lapsed = started - self.lease
        missing = [(key, claim) for key, claim in self._held.items() if self._confirmed_at(key) <= lapsed]
        held = sorted((key, claim) for key, claim in self._held.items() if self._confirmed_at(key) > lapsed)
        await self.beat()
        for start in range(0, len(held), RENEW_BATCH):
            batch = held[start:start + RENEW_BATCH]
            positions: list[Any] = await self._renew(
                keys=[self._since_key, *(self._prefix + key for key, _ in batch)], args=[self.node_id, self._lease_ms])
            missing.extend(batch[int(position) - 1] for position in positions)
        # A key released (or released and claimed again) while the pass ran is not lost: only a claim
        # this node still holds in memory, unchanged since the pass began, and that Redis no longer
        # gives to this node, is.
        lost = [key for key, claim in missing if self._held.get(key) == claim]
        for key in lost:
            self._forget(key)
        self._renewed_at = started
        self.renewals += 1
        return lost

    def unconfirmed(self) -> list[str]:
        """Forget, and return, the keys whose claim may lapse before the next renewal pass (renewals failing
        meanwhile): Redis may then give them to another node, so this node must stop serving them from memory
        first."""
        deadline = time.monotonic() - self.lease + self.lease / RENEWALS_PER_LEASE
        expired = [key for key in self._held if self._confirmed_at(key) <= deadline]
        for key in expired:
            self._forget(key)
        return expired

    def _confirmed_at(self, key: str) -> float:
        return max(self._claimed_at.get(key, -math.inf), self._renewed_at)

    def _forget(self, key: str) -> None:
        del self._held[key]
        self._claimed_at.pop(key, None)

    async def _renew_forever(self) -> None:
        interval = self.lease / RENEWALS_PER_LEASE
        # Real time, not the runtime's Clock: the lease runs on Redis's clock, which a test cannot stop.
        while True:
            try:
                async with asyncio.timeout(interval):
                    await self._stopping.wait()
                return
            except TimeoutError:
                pass
            try:
                lost = await self.renew()
                event = "directory.lease_lost"
            except REDIS_AWAY as exc:
                # The next pass tries again. A commit meanwhile by a newer owner's activation fences this one by
                # its epoch; but reads are served from memory, so a key not confirmed for a whole lease is given
                # up here (the newer owner may be taking writes this node would not show).
                log.warning("directory.renewal_failed", node=self.node_id, keys=len(self._held),
                            error=repr(exc))
                lost = self.unconfirmed()
                event = "directory.lease_unconfirmed"
            for key in lost:
                log.warning(event, node=self.node_id, actor=key)
                if self.on_lost is not None:
                    try:
                        self.on_lost(key)
                    except Exception:
                        log.exception("directory.on_lost_failed", node=self.node_id, actor=key)


async def node_beats(client: redis.Redis, node_id: str, lease: float, prefix: str = ALIVE_PREFIX) -> bool:
    """Whether the node `node_id` wrote its heartbeat within its last lease: a node stopped (SIGSTOP, a frozen VM,
    a long pause) keeps its connections and subscriptions but stops beating. Taken to when Redis cannot tell:
    when it is away, or restarted less than a lease ago (it came back empty; every running node beats again within
    a third of a lease)."""
    try:
        if await client.exists(prefix + node_id):
            return True
        server = await client.info("server")
    except REDIS_AWAY as exc:
        log.warning("directory.heartbeat_check_failed", node=node_id, error=repr(exc))
        return True
    return float(server["uptime_in_seconds"]) < lease
