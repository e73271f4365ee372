"""The front end's page and files (web/ui/app_page.py): every stable path answers the same page with a strict
CSP and the host's organization in its meta tags; the app's files are served from the package only, revalidated
by ETag, and nothing outside web/ui/static (nor a file type the app does not use) is reachable."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness import Org
from web.ui.app_page import APP_PATHS

# Every route the app page is served on, its placeholders filled with a sample id and section.
STABLE_PATHS = [path.format(id="brd_x", section="api-keys") for path in APP_PATHS]


async def get(client: Any, path: str, host: str, **headers: str) -> tuple[Any, bytes]:
    async with client.get(path, headers={"Host": host, **headers}, allow_redirects=False) as response:
        return response, await response.read()


@pytest.mark.parametrize("path", STABLE_PATHS)
async def test_every_stable_path_answers_the_app_with_a_strict_policy(org: Org, path: str) -> None:
    response, body = await get(org.owner.client, path, f"{org.slug}.localhost")
    assert response.status == 200 and response.content_type == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    page = body.decode()
    assert f'<meta name="obeya-organization" content="{org.slug}">' in page
    assert '<script type="module" src="/ui/app.js"></script>' in page
    assert "<script>" not in page and "<style" not in page


async def test_the_service_host_names_no_organization(client: Any) -> None:
    response, body = await get(client, "/", "localhost")
    assert response.status == 200
    assert b'<meta name="obeya-organization" content="">' in body
    assert b'<meta name="obeya-service-host" content="localhost">' in body


async def test_app_files_are_served_and_revalidated_by_etag(client: Any) -> None:
    response, body = await get(client, "/ui/app.js", "localhost")
    assert response.status == 200 and response.content_type == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache" and b"import" in body
    again, empty = await get(client, "/ui/app.js", "localhost", **{"If-None-Match": response.headers["ETag"]})
    assert again.status == 304 and empty == b""


@pytest.mark.parametrize("path", ["/ui/../app_page.py", "/ui/%2e%2e/app_page.py", "/ui/jsconfig.json",
                                  "/ui/vendor/preact.d.mts", "/ui/missing.js", "/ui/vendor/"])
async def test_nothing_but_the_apps_own_files_is_served(client: Any, path: str) -> None:
    response, _ = await get(client, path, "localhost")
    assert response.status == 404


async def test_the_tablets_service_worker_is_served_from_the_root_and_never_cached(org: Org) -> None:
    # At the root, so that its scope may cover /tablet; no-cache, so a new release's worker is found at once.
    response, body = await get(org.owner.client, "/tablet-sw.js", f"{org.slug}.localhost")
    assert response.status == 200 and response.content_type == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert b'addEventListener("fetch"' in body
