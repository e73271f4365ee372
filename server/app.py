"""Builds the whole application and the order in which its resources start and stop:
migrations → pool → node, built with its actor system → invalidations (Redis) → the actor system runs → live
gateway → rate limiter → background workers. Each lifetime is a one-`yield` cleanup context; the workers stop
first (under the node's supervisor), the actor system before the invalidations and the pool, the pool last."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import asyncpg
import redis.asyncio as redis
import structlog
from aiohttp import web

from actors.actions.escalation import escalate_overdue_forever
from actors.approvals.workers import expire_forever, run_actions_forever
from actors.automations.engine import run_automations
from actors.board.trash_sweeper import sweep_trash_forever
from actors.delivery.mail_sender import deliver_forever
from actors.delivery.webhook_sender import deliver_webhooks_forever
from actors.forms.otp import send_codes_forever
from actors.forms.sweeper import sweep_submissions_forever
from actors.identity.last_used import flush_forever
from actors.imports.sweeper import sweep_imports_forever
from actors.kernel.leadership import Leadership
from actors.kernel.node import Node
from actors.kernel.redis_invalidation import RedisInvalidations
from actors.runtime.clock import Clock
from actors.runtime.system import RuntimeSettings
from actors.tenancy.billing_processors import Processor, SandboxProcessor
from actors.tenancy.billing_sweeper import cancel_at_period_end_forever
from server.cluster import ClusterLink, node_runs, redis_client
from server.config import WORKERS, Settings
from server.domains import HANDLERS
from server.node_services import build_node
from storage.migrate import apply_migrations
from storage.pool import create_pool
from web.app import build_web_app
from web.idempotency_store import purge_periodically
from web.keys import NODE
from web.metrics import METRICS, Metrics, MetricsSettings
from web.rate_limit import ANONYMOUS_RATE_LIMIT, RATE_LIMITER
from web.rate_limiter import InProcessLimiter, RedisLimiter
from web.socket_gateway import LiveGateway

log = structlog.get_logger("obeya.server")

# A node of a cluster's link to the others, from the node's start-up to the actor system's stop.
CLUSTER = web.AppKey("cluster", ClusterLink)
# How long a request's rate-limit count may wait for Redis before the request goes on uncounted.
RATE_LIMIT_WAIT_SECONDS = 0.5


def _worker_loops(settings: Settings) -> dict[str, Callable[[Node], Awaitable[None]]]:
    loops: dict[str, Callable[[Node], Awaitable[None]]] = {
        "idempotency-purge": functools.partial(purge_periodically, interval=settings.idempotency_purge_interval),
        "trash-sweeper": sweep_trash_forever,
        "webhook-sender": deliver_webhooks_forever, "automations": run_automations,
        "action-escalation": escalate_overdue_forever, "last-used-flusher": flush_forever,
        "approval-expiry": expire_forever, "approval-actions": run_actions_forever,
        "form-sweeper": sweep_submissions_forever,
        "form-otp": send_codes_forever,
        "billing-sweeper": cancel_at_period_end_forever,
        "import-sweeper": sweep_imports_forever}
    if settings.smtp_url is not None:  # unset: e-mails are stored and logged, and no sender runs
        loops["mail-sender"] = deliver_forever
    assert set(loops) <= WORKERS
    return {name: loop for name, loop in loops.items() if name in settings.workers}


def billing_processor(settings: Settings) -> Processor:
    """The payment processor of OBEYA_BILLING. The Stripe SDK is imported here, at start-up, only when used:
    the import takes about half a second, which a request must never wait for."""
    if settings.stripe is None:
        return SandboxProcessor()
    from actors.tenancy.stripe_processor import StripeProcessor

    return StripeProcessor(secret_key=settings.stripe.secret_key, webhook_secret=settings.stripe.webhook_secret,
                           prices=settings.stripe.prices, api_base=settings.stripe.api_base,
                           timeout=settings.http_timeout)


def workers(settings: Settings, database_url: str) -> Callable[[web.Application], AsyncIterator[None]]:
    """The background workers' lifetime: spawned under the node's supervisor, stopped (cancelled and
    awaited) before the actor system and the pool they use."""

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        node = app[NODE]
        # Periodic steps run on one node of those sharing the database: a connection of its own holds the locks.
        node.leadership = Leadership(functools.partial(asyncpg.connect, database_url))
        for name, loop in _worker_loops(settings).items():
            node.workers.spawn(name, functools.partial(loop, node))
        try:
            yield
        finally:
            await node.workers.stop()
            await node.leadership.close()  # another node takes over at its next step

    return lifetime


def runner_options(settings: Settings) -> dict[str, Any]:
    """How the HTTP server runs the app: keywords of `web.run_app` and `web.AppRunner` (`obeya serve` and
    the slow-client tests use this one function). aiohttp's keep-alive timer runs from a connection's
    opening and from each response, and closes the connection if it is then still waiting for a request's
    headers: that is the header timeout (slow clients, issue 10)."""
    return {"keepalive_timeout": settings.header_timeout, "access_log": None,
            # SIGTERM (run_app's signal handling): the listening socket closes at once, idle connections are
            # closed, requests in flight get this long to finish, then the cleanup contexts run in reverse
            # (workers stop, the actor system drains, Redis and the pool close). See docs/decisions.md,
            # "Graceful shutdown".
            "shutdown_timeout": settings.shutdown_timeout}


def create_app(settings: Settings, database_url: str, *, clock: Clock | None = None) -> web.Application:
    missing = HANDLERS.unimplemented()
    if missing:
        raise RuntimeError(f"procedures declared but not implemented: {', '.join(missing)}")
    app = build_web_app(body_timeout=settings.body_timeout, handlers=HANDLERS)
    metrics = Metrics(MetricsSettings(production=settings.production, token=settings.metrics_token))
    app[METRICS] = metrics
    app[ANONYMOUS_RATE_LIMIT] = settings.anonymous_rate_limit

    async def database(app: web.Application) -> AsyncIterator[None]:
        # Migrations on a connection of their own: they may wait for another node's migrations (an advisory
        # lock) and run longer than the pool's statement timeout allows.
        conn = await asyncpg.connect(database_url)
        try:
            applied = await apply_migrations(conn)
        finally:
            await conn.close()
        if applied:
            log.info("migrations_applied", names=applied)
        # A transaction idle for a whole lease is a stopped node's: its locks must not keep a board's next owner
        # from taking the board over (docs/operations.md, "A node that stalls").
        pool = await create_pool(database_url, max_size=settings.pool_size, acquire_timeout=settings.pool_timeout,
                                 statement_timeout=settings.statement_timeout,
                                 idle_transaction_timeout=settings.actor_lease)
        processor = billing_processor(settings)
        try:
            if settings.redis_url is not None:  # the node's actor system is built on the cluster's directory
                app[CLUSTER] = ClusterLink(settings.redis_url, settings.node_id, lease=settings.actor_lease)
            app[NODE] = build_node(pool, settings.node_settings(), clock=clock, processor=processor,
                                   runtime=RuntimeSettings(ask_timeout=settings.ask_timeout,
                                                           max_active=settings.max_actors),
                                   directory=app[CLUSTER].directory if CLUSTER in app else None)
            yield
        finally:
            if CLUSTER in app:  # closed already when the actor system ran; not when start-up failed before it
                await app[CLUSTER].close()
            await processor.close()
            await pool.close()

    app.cleanup_ctx.append(database)

    async def invalidations(app: web.Application) -> AsyncIterator[None]:
        # Several nodes: what a change drops from this node's caches, every other node drops too.
        if settings.redis_url is None:
            yield
            return
        channel = RedisInvalidations(settings.redis_url, app[NODE])
        await channel.start()
        channel.subscription.observe = metrics.observe_resubscribed
        try:
            yield
        finally:
            await channel.stop()

    app.cleanup_ctx.append(invalidations)

    async def rate_limiter(app: web.Application) -> AsyncIterator[None]:
        if settings.redis_url is None:
            app[RATE_LIMITER] = InProcessLimiter()
            yield
            return
        # Every request counts here: a Redis that stopped answering lets requests through after a short wait
        # (RedisLimiter passes when Redis fails) rather than holding each until TCP gives up.
        client = redis.from_url(settings.redis_url, socket_timeout=RATE_LIMIT_WAIT_SECONDS,
                                socket_connect_timeout=RATE_LIMIT_WAIT_SECONDS)
        app[RATE_LIMITER] = RedisLimiter(client)
        try:
            yield
        finally:
            await client.aclose()

    async def actor_system(app: web.Application) -> AsyncIterator[None]:
        node = app[NODE]
        system = node.actors
        system.on_turn = metrics.observe_turn
        system.on_forward = metrics.observe_forward
        # Stopped before the pool closes: running turns finish their commits, queued ones get 503.
        running = system if CLUSTER not in app else app[CLUSTER].running(
            system, observe_resubscribed=metrics.observe_resubscribed)
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(running)
            if settings.redis_url is not None:  # who holds an Idempotency-Key claim may be asked
                client = redis_client(settings.redis_url)
                stack.push_async_callback(client.aclose)
                node.node_alive = functools.partial(node_runs, client, lease=settings.actor_lease)
            yield

    app.cleanup_ctx.append(actor_system)
    gateway = LiveGateway(settings.redis_url, max_per_user=settings.socket_max_per_user,
                          max_per_address=settings.socket_max_per_address)
    gateway.attach(app)
    gateway.on_fanout = metrics.observe_fanout
    if gateway.fanout is not None:
        gateway.fanout.subscription.observe = metrics.observe_resubscribed
    app.on_shutdown.append(gateway.closing)
    app.cleanup_ctx.append(gateway.running)
    app.cleanup_ctx.append(rate_limiter)
    app.cleanup_ctx.append(workers(settings, database_url))
    return app
