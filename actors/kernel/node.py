"""What every handler and service is given: the node's settings, its services and its caches.

Built once by `server/` at start-up (server/node_services.py `build_node`, which tests and one-shot commands
call too); handlers never reach for globals. A Node is three things:
- `settings`: what it was configured with, one frozen value (actors/kernel/settings.py);
- its services: the actor system, built with the node, whose pool, clock and event bus are the node's; the
  background workers; and what the server plugged in for the domains (`plugins`, actors/kernel/plugins.py),
  the kernel itself knowing none of their types: it imports no domain;
- its caches, every one on the node's clock: two nodes in one process share nothing, and a test's
  `ManualClock` decides when an answer is stale.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import asyncpg

from actors.kernel.credential_cache import CredentialCache, VerifiedCredential
from actors.kernel.events import EventLog
from actors.kernel.idempotency import IdempotencyRecords
from actors.kernel.invalidation import (
    BoardAccessChanged,
    CredentialRevoked,
    Invalidation,
    MembershipChanged,
    OrganizationChanged,
    RowsMoved,
    RulesChanged,
    SessionEnded,
    WebhooksChanged,
)
from actors.kernel.leadership import Leadership
from actors.kernel.plugins import Plugins
from actors.kernel.settings import NodeSettings
from actors.kernel.supervisor import Supervisor
from actors.kernel.ttl_cache import TtlCache
from actors.kernel.write import UnitOfWork
from actors.runtime.bus import AccessChange, EventBus
from actors.runtime.clock import Clock
from actors.runtime.system import ActorSystem
from protocol.caller import Caller
from protocol.errors import ApiError
from storage.migrate import pending_migrations

if TYPE_CHECKING:
    from protocol.caller import Organization

# How stale a cached answer may be when the change was made on another node and no invalidation reached this
# one (with Redis, another node's change is dropped here within a second: actors/kernel/redis_invalidation.py;
# a change made on this node drops its entry at once). Five seconds: the hot path (every request reads a role
# and an organization, every board call its access) costs no query, and a removed member loses access soon.
ACCESS_SECONDS = 5.0
MEMBERSHIP_SECONDS = 5.0
ORGANIZATION_SECONDS = 5.0
RULES_SECONDS = 5.0
PROFILES_SECONDS = 5.0
WEBHOOK_ORGS_SECONDS = 5.0
# Whether an organization enforces single sign-on, read by every password session's request there.
SSO_ENFORCED_SECONDS = 5.0
# Row id -> board id entries kept at most; rows move between boards only when an item moves.
MAX_BOARD_LOCATIONS = 100_000
# How long `unready_reason` waits for a connection before calling the database unavailable.
READINESS_TIMEOUT_SECONDS = 2.0


@dataclass
class Node:
    # -- what it was configured with -------------------------------------------------------------------------
    settings: NodeSettings

    # -- its services ----------------------------------------------------------------------------------------
    # The node's actors, built with it (server/node_services.py build_node): started and stopped by the server's
    # start-up order (server/app.py), by a one-shot command around its work, not at all by most tests' nodes.
    actors: ActorSystem
    # The domains' services (the file store, the payment processor...): plugged in by server/node_services.py.
    plugins: Plugins = field(default_factory=Plugins)
    # Where `invalidate` hands a change for the other nodes (actors/kernel/redis_invalidation.py); None: one node.
    broadcast: Callable[[Invalidation], None] | None = None
    # Whether the node with that id still runs (server/cluster.py node_runs); None: one node, so only this
    # process runs and a claim held under another id was left by a process that has ended.
    node_alive: Callable[[str], Awaitable[bool]] | None = None
    # Which periodic workers this node runs the steps of, among nodes on one database (actors/kernel/leadership.py);
    # None: all of them (one-shot commands, nodes built by tests).
    leadership: Leadership | None = None
    # The actor system's pool, clock and bus: one of each per node, shared by its actors and its services.
    pool: asyncpg.Pool = field(init=False)
    clock: Clock = field(init=False)
    bus: EventBus = field(init=False)
    # The node's background workers, on the node's clock.
    workers: Supervisor = field(init=False)
    idempotency: IdempotencyRecords = field(init=False)  # Idempotency-Key claims (web/idempotency_store.py)
    events: EventLog = field(init=False)  # the event log as the edge reads it

    # -- its caches, built on the node's clock once it is known ------------------------------------------------
    credentials: CredentialCache = field(init=False)
    access: TtlCache[tuple[str, str, str], bool] = field(init=False)  # (org, user, board) -> may see it
    roles: TtlCache[tuple[str, str], str | None] = field(init=False)  # (org, user) -> role
    members: TtlCache[str, frozenset[str]] = field(init=False)  # org -> active member ids
    organizations: TtlCache[str, Organization | None] = field(init=False)  # slug -> organization
    rules: TtlCache[tuple[str, str], list[asyncpg.Record]] = field(init=False)  # (org, board) -> rules
    profiles: TtlCache[str, dict[str, Any]] = field(init=False)  # org -> user id -> comment Profile
    webhook_orgs: TtlCache[str, frozenset[str]] = field(init=False)  # WEBHOOK_ORGS_KEY -> org ids
    sso_enforced: TtlCache[str, bool] = field(init=False)  # org -> single sign-on enforced
    board_locations: dict[str, str] = field(init=False)  # group/column/item/comment/KPI id -> board id
    # Verifications of a not-yet-cached secret in flight: concurrent requests with a cold key share one bcrypt.
    verifying: dict[str, asyncio.Future[VerifiedCredential | None]] = field(init=False)

    def __post_init__(self) -> None:
        self.pool = self.actors.pool
        self.clock = clock = self.actors.clock
        self.bus = self.actors.bus
        self.workers = Supervisor(clock)
        self.idempotency = IdempotencyRecords(self.pool)
        self.events = EventLog(self.pool)
        self.credentials = CredentialCache(clock)
        self.access = TtlCache(ACCESS_SECONDS, clock)
        self.roles = TtlCache(MEMBERSHIP_SECONDS, clock)
        self.members = TtlCache(MEMBERSHIP_SECONDS, clock)
        self.organizations = TtlCache(ORGANIZATION_SECONDS, clock)
        self.rules = TtlCache(RULES_SECONDS, clock)
        self.profiles = TtlCache(PROFILES_SECONDS, clock)
        self.webhook_orgs = TtlCache(WEBHOOK_ORGS_SECONDS, clock)
        self.sso_enforced = TtlCache(SSO_ENFORCED_SECONDS, clock)
        self.board_locations = {}
        self.verifying = {}

    def base_url(self, slug: str) -> str:
        """The organization's address as clients reach it: `<scheme>://<slug>.<service host>[:<port>]`."""
        return self.settings.public_url.at(f"{slug}.{self.settings.service_host}")

    def write(self, caller: Caller | None, *, org_id: str | None = None,
              missing: ApiError | None = None) -> UnitOfWork:
        """The one way a service changes data: `async with node.write(caller) as uow:` (actors/kernel/write.py).
        `org_id` names the organization when the caller has none (a scheduler, an invitation being
        accepted); `missing` is what a foreign-key violation means to the caller (a row it refers to was
        deleted meanwhile)."""
        return UnitOfWork(self.pool, self.bus, caller, org_id=org_id, now=self.clock.now(), missing=missing)

    def invalidate(self, change: Invalidation) -> None:
        """A change made on this node: drop what this node's caches hold of it now, and tell the other nodes."""
        self.drop_stale(change)
        if self.broadcast is not None:
            self.broadcast(change)

    def drop_stale(self, change: Invalidation) -> None:
        """Drop what the node's caches hold of `change` (synchronously: nothing is read back in between)."""
        match change:
            case CredentialRevoked(credential_id):
                self.credentials.drop(credential_id)
                self.bus.access_changed(AccessChange(credential_id=credential_id))
            case SessionEnded(digest):
                self.credentials.drop_session(digest)
                self.bus.access_changed(AccessChange(session_digest=digest))
            case MembershipChanged(org_id, user_id):
                self.roles.drop((org_id, user_id))
                self.members.drop(org_id)
                self.access.drop_where(lambda key: key[0] == org_id and key[1] == user_id)
            case BoardAccessChanged(board_id):
                self.access.drop_where(lambda key: board_id is None or key[2] == board_id)
            case OrganizationChanged(slug):
                self.organizations.drop(slug.lower())
            case RulesChanged(org_id, board_id):
                self.rules.drop((org_id, board_id))
            case WebhooksChanged():
                self.webhook_orgs.clear()
            case RowsMoved(row_ids):
                for row_id in row_ids:
                    self.board_locations.pop(row_id, None)

    def forget_everything(self) -> None:
        """Drop every cached answer that another node's change could have made stale: what a node does when it may
        have missed invalidations (its Redis subscription was lost and is back)."""
        self.credentials.clear()
        self.board_locations.clear()
        for cache in (self.access, self.roles, self.members, self.organizations, self.rules, self.profiles,
                      self.webhook_orgs):
            cache.clear()

    def remember_board(self, row_id: str, board_id: str) -> None:
        if len(self.board_locations) >= MAX_BOARD_LOCATIONS:
            self.board_locations.clear()
        self.board_locations[row_id] = board_id

    async def delivery_backlog(self, timeout: float) -> tuple[int, int]:
        """Webhook deliveries and e-mails waiting to be sent, all organizations together (for /metrics)."""
        async with self.pool.acquire(timeout=timeout) as conn:
            webhooks = await conn.fetchval(
                "SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'retrying')", timeout=timeout)
            mail = await conn.fetchval("SELECT count(*) FROM emails WHERE status = 'queued'", timeout=timeout)
        return int(webhooks), int(mail)

    async def unready_reason(self) -> str | None:
        """None when ready; otherwise why not (the database does not answer, or migrations are pending)."""
        try:
            async with self.pool.acquire(timeout=READINESS_TIMEOUT_SECONDS) as conn:
                pending = await pending_migrations(conn)
        except Exception as error:  # any failure to reach the database means not ready
            return f"database unavailable: {type(error).__name__}"
        return f"migrations pending: {', '.join(pending)}" if pending else None
