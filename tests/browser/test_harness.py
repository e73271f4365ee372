"""The browser harness itself (tests/browser/conftest.py), on the public form page (web/ui/form_page.py): a page
renders and is found by role, a screenshot is written, axe-core passes it and fails it once its labels are gone,
the owner's session travels with an organization's page, and the page guard reports what it catches (and only
what was not declared)."""

from __future__ import annotations

import json
import struct
import time
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from tests.browser.conftest import (
    allow_console_errors,
    check_accessibility,
    check_page,
    open_page,
    org_url,
    screenshot,
)
from tests.harness import make_org
from tests.integration.forms.conftest import form_board, published_form


async def test_a_published_form_is_shown_photographed_and_checked_by_axe(browser: Browser, client: Any) -> None:
    board = await form_board(await make_org(client))
    form = await published_form(board)
    page = await open_page(browser, client, viewport=(1024, 700))
    await page.goto(f"{org_url(client, board.org.slug)}/forms/{form['slug']}")
    await expect(page.get_by_role("heading", level=1, name="Defect report")).to_be_visible()
    await check_accessibility(page, "public form")

    started = time.time()
    path = await screenshot(page, "form-page")
    png = path.read_bytes()
    assert path.name == "form-page.png" and path.stat().st_mtime >= started
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert width == 1024 and height >= 700  # the whole page, not only the viewport

    await page.evaluate("document.querySelectorAll('label').forEach(label => label.remove())")
    with pytest.raises(pytest.fail.Exception) as failed:
        await check_accessibility(page, "public form without its labels")
    report = str(failed.value)
    assert "2 serious or critical violation(s)" in report, report
    assert "- label (critical): Form elements must have labels\n      #field-0: <input id=\"field-0\" name=\"title\"" \
        in report, report
    assert "- select-name (critical): Select element must have an accessible name" in report, report


async def test_an_organizations_page_carries_its_owners_session(browser: Browser, client: Any) -> None:
    org = await make_org(client)
    page = await open_page(browser, client, org)
    reply = await page.goto(f"{org_url(client, org.slug)}/api/trpc/auth.me")
    assert reply is not None and reply.status == 200
    assert json.loads(await reply.text())["result"]["data"]["json"]["email"] == org.owner_email
    [cookie] = await page.context.cookies()
    assert (cookie["name"], cookie["domain"], cookie["path"], cookie["httpOnly"]) == (
        "authjs.session-token", org.host, "/", True)


async def test_the_guard_reports_page_errors_and_undeclared_console_errors(browser: Browser, client: Any) -> None:
    board = await form_board(await make_org(client))
    form = await published_form(board)
    page = await open_page(browser, client)
    await page.goto(f"{org_url(client, board.org.slug)}/forms/{form['slug']}")
    await expect(page.get_by_role("heading", level=1, name="Defect report")).to_be_visible()
    await check_page(page)  # the page itself is clean

    async with page.expect_event("pageerror"):
        await page.evaluate("setTimeout(() => { throw new Error('deliberate failure') })")
    with allow_console_errors(page, r"^expected: offline"):
        async with page.expect_console_message():
            await page.evaluate("console.error('expected: offline for a while')")
    async with page.expect_console_message():
        await page.evaluate("console.error('not declared')")
    async with page.expect_console_message():  # the page's CSP refuses an injected inline script
        await page.evaluate("document.body.append(Object.assign(document.createElement('script'), {text: '1'}))")

    with pytest.raises(pytest.fail.Exception) as failed:
        await check_page(page)
    report = str(failed.value)
    assert report.startswith("3 problem(s) in the browser:"), report
    assert "uncaught page error on http://" in report and "Error: deliberate failure" in report, report
    assert "console error: not declared" in report and "offline" not in report, report
    assert "console error: Executing inline script violates the following Content Security Policy" in report, report
    await check_page(page)  # each problem is reported once: the teardown's check finds none
