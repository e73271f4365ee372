"""What the browser benchmarks share (ui_board, wall_screens, offline_queue): a fresh `obeya serve` pinned to core 0
in a throwaway database, its owner signed in, and Debian's Chromium launched as the browser tests launch it, with
this process and the browser on core 1; and a browser context carrying the owner's session cookie."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, async_playwright

from bench._setup import Fixture, create_org, sign_in
from bench._support import Server, one_node_database, pin_client, running_server
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS


@dataclass(frozen=True)
class BrowserBench:
    server: Server
    fixture: Fixture  # the owner's session (`cookie`) and the organization's host, no boards or keys yet
    browser: Browser

    @property
    def base(self) -> str:
        """Where API calls go (127.0.0.1, with the organization's host in a Host header)."""
        return self.server.base_url

    @property
    def origin(self) -> str:
        """Where pages are opened: the organization's own host name, as a browser reaches it."""
        return f"http://{self.fixture.host}:{self.server.port}"


@contextlib.asynccontextmanager
async def browser_bench(database_url: str | None) -> AsyncIterator[BrowserBench]:
    """The server, the signed-in owner and the browser; everything is stopped (the server by its pid) and the
    database dropped on the way out, also when the benchmark fails."""
    server_core = pin_client(0, 1)
    async with one_node_database(database_url) as (_, env, scratch):
        env = {**env, "OBEYA_LOG_LEVEL": os.environ.get("OBEYA_LOG_LEVEL", "warning")}
        slug, email = create_org(env)
        async with running_server(env, server_core, Path(scratch)) as server, async_playwright() as playwright:
            fixture = await sign_in(server.base_url, slug, email)
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                yield BrowserBench(server, fixture, browser)
            finally:
                await browser.close()


async def signed_in_context(browser: Browser, fixture: Fixture, **options: Any) -> BrowserContext:
    """A new browser context (`options` as Browser.new_context takes them) signed in as the owner."""
    context = await browser.new_context(**options)
    name, value = fixture.cookie.split("=", 1)
    await context.add_cookies([{"name": name, "value": value, "domain": fixture.host, "path": "/",
                                "httpOnly": True, "sameSite": "Lax"}])
    return context
