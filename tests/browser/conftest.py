"""The browser test harness: Debian's Chromium, driven with Playwright's async API, against the in-process server
of the `client` fixture (tests/conftest.py), plus what every browser test checks: a page guard, axe-core and
screenshots.

Each test process (an xdist worker, or the one process of `-n 0`) launches one Chromium on its first browser test
and keeps it for the run, through Playwright's browser server. A Playwright connection lives on one event loop
and the suite's loops live for one test, so each test connects to that browser from its own loop (`browser`),
and each page gets a fresh context (`open_page`): nothing but the browser process outlives a test.

A page from `open_page` is guarded: an uncaught page error, a console error (a CSP violation is one) or a
response with a 5xx status is collected, and the test fails at teardown listing them, unless it was declared
with `allow_console_errors`. `check_page` reports them earlier.

The helpers are plain functions (import them from this module) and fixtures of the same names, for tests that
take them as arguments.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import select
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright._impl._driver import compute_driver_executable, get_driver_env
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    Response,
    WebError,
    async_playwright,
)

from tests.harness import Org, free_port
from web.context import SESSION_COOKIE

CHROMIUM = os.environ.get("OBEYA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # Organizations live on <slug>.localhost; the test server listens on 127.0.0.1 only.
                 "--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
_AXE = Path(__file__).with_name("vendor") / "axe.min.js"
# What axe-core reports at these impacts fails a test (the project's accessibility bar: WCAG 2.2 AA).
_FAILING_IMPACTS = ("serious", "critical")
_LAUNCH_SECONDS = 60
_REFUSED = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d\b")


@pytest.fixture(scope="session")
def browser_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The websocket address of this process's Chromium. Playwright's browser server (`launch-server`, a command
    of the driver the Python package ships, so client and server are the same version) launches it with the
    same options as `chromium.launch` and keeps it until the run ends."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"The browser tests need Chromium at {CHROMIUM}: install Debian's chromium package "
                    "(apt-get install chromium), or point OBEYA_CHROMIUM at a Chromium binary", pytrace=False)
    directory = tmp_path_factory.mktemp("chromium")
    config = directory / "launch.json"
    config.write_text(json.dumps({"executablePath": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True,
                                  "host": "127.0.0.1"}))
    node, cli = compute_driver_executable()
    log_path = directory / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen([node, cli, "launch-server", "--browser", "chromium", "--config", str(config)],
                                  stdout=subprocess.PIPE, stderr=log, text=True, env=get_driver_env())
    try:
        assert server.stdout is not None
        ready, _, _ = select.select([server.stdout], [], [], _LAUNCH_SECONDS)
        endpoint = server.stdout.readline().strip() if ready else ""
        if not endpoint.startswith("ws://"):
            pytest.fail(f"Chromium ({CHROMIUM}) did not start within {_LAUNCH_SECONDS} s: "
                        f"{log_path.read_text()[-2000:]}", pytrace=False)
        yield endpoint
    finally:
        server.terminate()  # the browser server closes Chromium before it exits
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@dataclass
class _Guard:
    """What went wrong in one browser context's pages, and the console errors the test declared."""

    problems: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def console(self, message: ConsoleMessage) -> None:
        where = message.location.get("url", "")
        # Chromium logs every 4xx answer as the page's error: for /favicon.ico, which it asks every origin for by
        # itself, and for the API's refusals, which the app handles and shows (a signed-out `auth.me` is 401; the
        # tests check what the page says). A 4xx for anything else (a module of the app) stays a problem.
        refused = _REFUSED.match(message.text) is not None
        path = urlsplit(where).path
        if (message.type != "error" or (refused and (path == "/favicon.ico" or path.startswith("/api/")))
                or any(pattern.search(message.text) for pattern in self.allowed)):
            return
        self.problems.append(f"console error: {message.text}" + (f" (at {where})" if where else ""))

    def page_error(self, error: WebError) -> None:
        stack = (error.error.stack or "").splitlines()[1:2]
        at = f" ({stack[0].strip()})" if stack else ""
        self.problems.append(f"uncaught page error on {error.page.url if error.page else '?'}: "
                             f"{error.error.name}: {error.error.message}{at}")

    def response(self, response: Response) -> None:
        if response.status >= 500:
            self.problems.append(f"{response.status} answered to {response.request.method} {response.url}")


_GUARDS: dict[BrowserContext, _Guard] = {}


async def _take_problems(context: BrowserContext) -> list[str]:
    guard = _GUARDS[context]
    # A round trip to each page first, so that what a page did before the check has been received.
    for page in context.pages:
        with contextlib.suppress(Error):
            await page.evaluate("0")
    problems, guard.problems = guard.problems, []
    return problems


def _fail(problems: list[str]) -> None:
    if problems:
        pytest.fail(f"{len(problems)} problem(s) in the browser:\n" + "\n".join(f"  - {p}" for p in problems),
                    pytrace=False)


async def check_page(page: Page) -> None:
    """Fails the test listing the problems the page's context collected since the last check (each is reported
    once; the `browser` fixture checks again at teardown)."""
    _fail(await _take_problems(page.context))


@contextlib.contextmanager
def allow_console_errors(page: Page, pattern: str | re.Pattern[str]) -> Iterator[None]:
    """While inside, console errors whose text matches `pattern` (`re.search`) are expected, not problems: a
    deliberate offline period, say. Await what shows the error happened before leaving: one received after is a
    problem again."""
    allowed = _GUARDS[page.context].allowed
    compiled = re.compile(pattern)
    allowed.append(compiled)
    try:
        yield
    finally:
        allowed.remove(compiled)


@pytest.fixture
async def browser(browser_endpoint: str, client: Any) -> AsyncIterator[Browser]:
    """This process's Chromium, connected on this test's event loop; at teardown the test fails on what the
    guards of its pages collected, and the contexts it made are closed. It asks for the test server so that it
    closes its pages before the server stops (else their last requests would be refused)."""
    async with async_playwright() as playwright:
        connected = await playwright.chromium.connect(browser_endpoint)
        problems: list[str] = []
        try:
            yield connected
            for context in [context for context in _GUARDS if context.browser is connected]:
                problems += await _take_problems(context)
        finally:
            for context in [context for context in _GUARDS if context.browser is connected]:
                del _GUARDS[context]
            await connected.close()
    _fail(problems)


@pytest.fixture
async def client(aiohttp_client: Any, database_url: str, request: pytest.FixtureRequest) -> Any:
    """The test server for browser tests, on a port chosen before it starts, so that the links it builds and the
    browser follows (the sandbox checkout, invitations) name that port: OBEYA_PUBLIC_URL is
    `http://localhost:<port>`."""
    from aiohttp import DummyCookieJar

    from server.app import create_app
    from tests.conftest import server_settings

    port = free_port()
    settings = server_settings(request, OBEYA_PUBLIC_URL=f"http://localhost:{port}")
    return await aiohttp_client(create_app(settings, database_url), cookie_jar=DummyCookieJar(),
                                server_kwargs={"port": port})


def service_url(client: Any) -> str:
    """The service's own address on the test server (sign-in, sign-up, picking an organization)."""
    return f"http://localhost:{client.server.port}"


def org_url(client: Any, slug: str) -> str:
    """An organization's address on the test server."""
    return f"http://{slug}.localhost:{client.server.port}"


async def open_page(browser: Browser, client: Any, org: Org | None = None, *,
                    viewport: tuple[int, int] = (1280, 800)) -> Page:
    """A guarded page in a fresh context: British English, Berlin time, reduced motion; with `org` (from
    `tests.harness.make_org`), signed in as its owner on the organization's host. `client` is the server the
    page is for (kept in the signature so every screen's test reads the same)."""
    width, height = viewport
    context = await browser.new_context(locale="en-GB", timezone_id="Europe/Berlin", reduced_motion="reduce",
                                        viewport={"width": width, "height": height})
    guard = _Guard()
    _GUARDS[context] = guard
    context.on("console", guard.console)
    context.on("weberror", guard.page_error)
    context.on("response", guard.response)
    if org is not None:
        assert org.owner.session, "make_org signs the owner in"
        await context.add_cookies([{"name": SESSION_COOKIE, "value": org.owner.session, "domain": org.host,
                                    "path": "/", "httpOnly": True, "sameSite": "Lax"}])
    return await context.new_page()


@functools.cache
def _axe_source() -> str:
    return Path(os.environ.get("OBEYA_AXE_JS") or _AXE).read_text(encoding="utf-8")


_AXE_RUN = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"]});
  return results.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target, html: n.html}))}));
}"""


async def check_accessibility(page: Page, name: str) -> None:
    """Runs axe-core on the page as it is now and fails the test on every serious or critical violation. axe is
    evaluated into the page, which the page's CSP does not govern (it refuses injected script tags)."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.evaluate(_axe_source())
    violations = await page.evaluate(_AXE_RUN)
    failing = [violation for violation in violations if violation["impact"] in _FAILING_IMPACTS]
    if failing:
        lines = []
        for violation in failing:
            lines.append(f"  - {violation['id']} ({violation['impact']}): {violation['help']}")
            lines += [f"      {' '.join(node['target'])}: {node['html']}" for node in violation["nodes"]]
        pytest.fail(f"axe-core on {name!r} ({page.url}): {len(failing)} serious or critical violation(s):\n"
                    + "\n".join(lines), pytrace=False)


async def screenshot(page: Page, name: str) -> Path:
    """The whole page as docs/screenshots/<name>.png, once the network is idle and the fonts are loaded
    (animations are stopped at their end state for the shot), from the top: a page scrolled down would show its
    sticky top bar in the middle of the whole-page picture."""
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), f"a screenshot's name is lower-case-with-dashes: {name!r}"
    await page.wait_for_load_state("networkidle")
    await page.evaluate("document.fonts.ready.then(() => window.scrollTo(0, 0))")
    path = SCREENSHOTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=path, full_page=True, animations="disabled")
    return path


async def set_offline(page: Page, offline: bool) -> None:
    """Cuts the page's context off the network (Chromium's offline emulation), or reconnects it."""
    await page.context.set_offline(offline)


def _handing_out(helper: Callable[..., Any]) -> Any:
    @pytest.fixture(name=helper.__name__)
    def fixture() -> Callable[..., Any]:
        return helper
    return fixture


service_url_fixture = _handing_out(service_url)
org_url_fixture = _handing_out(org_url)
open_page_fixture = _handing_out(open_page)
check_accessibility_fixture = _handing_out(check_accessibility)
screenshot_fixture = _handing_out(screenshot)
set_offline_fixture = _handing_out(set_offline)
allow_console_errors_fixture = _handing_out(allow_console_errors)
check_page_fixture = _handing_out(check_page)
