"""Builds the whole application and the order in which its resources start and stop:
pool → migrations → environment → background tasks. Each lifetime is a one-`yield` cleanup context."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import redis.asyncio as redis
import structlog
from aiohttp import web

from actors.actions.escalation import escalate_overdue_forever
from actors.automations.engine import run_automations
from actors.board.trash_sweeper import sweep_trash_forever
from actors.delivery.mail_sender import deliver_forever
from actors.delivery.webhook_sender import deliver_webhooks_forever
from actors.identity.last_used import flushing
from actors.kernel.handlers import unimplemented
from actors.kernel.mailer import smtp_target
from actors.kernel.node import Node
from actors.runtime.clock import Clock, SystemClock
from actors.runtime.system import ActorSystem
from server.config import Settings
from storage.migrate import apply_migrations
from storage.pool import create_pool
from web.app import build_web_app
from web.idempotency_store import purge_periodically
from web.keys import NODE
from web.rate_limit import RATE_LIMITER
from web.rate_limiter import InProcessLimiter, RedisLimiter
from web.socket_gateway import LiveGateway

log = structlog.get_logger("obeya.server")


def background(name: str, work: Callable[[Node], Coroutine[Any, Any, None]]
               ) -> Callable[[web.Application], AsyncIterator[None]]:
    """The lifetime of a periodic task that runs while the app serves, cancelled at shutdown."""

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        task = asyncio.create_task(work(app[NODE]), name=name)
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    return lifetime


def create_app(settings: Settings, database_url: str, *, clock: Clock | None = None) -> web.Application:
    missing = unimplemented()
    if missing:
        raise RuntimeError(f"procedures declared but not implemented: {', '.join(missing)}")
    app = build_web_app()

    async def database(app: web.Application) -> AsyncIterator[None]:
        pool = await create_pool(database_url)
        try:
            async with pool.acquire() as conn:
                applied = await apply_migrations(conn)
            if applied:
                log.info("migrations_applied", names=applied)
            app[NODE] = Node(pool=pool, service_host=settings.service_host, production=settings.production,
                           clock=clock or SystemClock(),
                           smtp=smtp_target(settings.smtp_url, settings.service_host))
            yield
        finally:
            await pool.close()

    app.cleanup_ctx.append(database)

    async def rate_limiter(app: web.Application) -> AsyncIterator[None]:
        if settings.redis_url is None:
            app[RATE_LIMITER] = InProcessLimiter()
            yield
            return
        client = redis.from_url(settings.redis_url)
        app[RATE_LIMITER] = RedisLimiter(client)
        try:
            yield
        finally:
            await client.aclose()

    async def actor_system(app: web.Application) -> AsyncIterator[None]:
        node = app[NODE]
        node.actors = ActorSystem(node.pool, clock=node.clock, bus=node.bus)
        node.actors.start()
        try:
            yield
        finally:
            # Stopped before the pool closes: running turns finish their commits, queued ones get 503.
            await node.actors.stop()

    app.cleanup_ctx.append(actor_system)
    gateway = LiveGateway(settings.redis_url)  # Redis: python-socketio's Redis manager reaches every node
    gateway.attach(app)
    app.cleanup_ctx.append(gateway.running)
    app.cleanup_ctx.append(rate_limiter)
    app.cleanup_ctx.append(background("idempotency-purge", purge_periodically))
    app.cleanup_ctx.append(background("trash-sweeper", sweep_trash_forever))
    if settings.smtp_url is not None:  # unset: e-mails are stored and logged, and no sender runs
        app.cleanup_ctx.append(background("mail-sender", deliver_forever))
    app.cleanup_ctx.append(background("webhook-sender", deliver_webhooks_forever))
    app.cleanup_ctx.append(background("automations", run_automations))
    app.cleanup_ctx.append(background("action-escalation", escalate_overdue_forever))
    app.cleanup_ctx.append(lambda app: flushing(app[NODE]))
    return app
