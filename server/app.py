"""Builds the whole application and the order in which its resources start and stop:
pool → migrations → environment → background tasks. Each lifetime is a one-`yield` cleanup context."""

from __future__ import annotations

from collections.abc import AsyncIterator

import structlog
from aiohttp import web

from actors.env import Env
from actors.handlers import unimplemented
from actors.runtime.clock import Clock, SystemClock
from actors.services.last_used import flushing
from server.config import Settings
from storage.migrate import apply_migrations
from storage.pool import create_pool
from web.app import build_web_app
from web.keys import ENV

log = structlog.get_logger("obeya.server")


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
            app[ENV] = Env(pool=pool, service_host=settings.service_host, production=settings.production,
                           clock=clock or SystemClock())
            yield
        finally:
            await pool.close()

    app.cleanup_ctx.append(database)
    app.cleanup_ctx.append(lambda app: flushing(app[ENV]))
    return app
