"""A plant as it reaches the server: every tablet, wall screen and person behind one NAT address (here
127.0.0.1), with the server's default limits. Fifty workers sign in with their passwords within a minute, open
the public near-miss form, upload photos to it and submit it, and keep a live connection, while one tablet
still holding a revoked API key keeps sending it. Every valid request is answered; the revoked key gets 401 or
429 and no one else gets a 429 (docs/security.md "One address, a whole site")."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from actors.identity.accounts import create_user
from tests.harness import PASSWORD, Api, Org, make_org
from tests.integration.boards.conftest import make_board
from tests.integration.files.conftest import PNG, insert_form, upload
from tests.integration.live.conftest import Screen, screens  # noqa: F401  (fixture)
from web.keys import NODE

WORKERS = 50
PHOTOS = 2
WALL_SCREENS = 60  # one account's screen wall, past the old cap of 50 sockets per user


async def _revoked_key(org: Org) -> str:
    made = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "tablet 7"})
    assert made.status == 201, made.body
    revoked = await org.owner.rest("POST", f"/api/v1/auth/api-keys/{made.data['apiKey']['id']}/revoke", {})
    assert revoked.status == 200, revoked.body
    return str(made.data["key"])


async def _shift(org: Org, form_id: str, email: str, screen: Screen) -> list[int]:
    """One worker's start of shift; the status of each request."""
    statuses = []
    signed_in = await org.anonymous.rest("POST", "/api/v1/auth/login", {"email": email, "password": PASSWORD})
    statuses.append(signed_in.status)
    worker = org.anonymous.with_session(signed_in.headers.getall("Set-Cookie")[0].split(";", 1)[0].split("=", 1)[1])
    me = await worker.query("auth.me")
    statuses.append(me.status)
    page = await org.anonymous.rest("GET", f"/api/forms/{form_id}")
    statuses.append(page.status)
    photos = [await upload(org.anonymous, PNG, f"press-{n}.png", path=f"/api/forms/{form_id}/files")
              for n in range(PHOTOS)]
    statuses += [photo.status for photo in photos]
    submitted = await org.anonymous.rest("POST", f"/api/forms/{form_id}/submit", {
        "title": f"Near miss reported by {email}", "photos": [photo.data["id"] for photo in photos]})
    statuses.append(submitted.status)
    await screen.connect(worker)
    statuses.append(200 if screen.client.connected else 0)
    return statuses


async def _stale_tablet(api: Api, done: asyncio.Event) -> list[int]:
    statuses = []
    while not done.is_set() or len(statuses) < 100:
        statuses.append((await api.query("auth.me")).status)
    return statuses


async def test_fifty_workers_behind_one_address_while_a_revoked_key_keeps_knocking(
        client: Any, screens: Any) -> None:  # noqa: F811
    org = await make_org(client, plan="enterprise")
    form = await insert_form(org, (await make_board(org)).id)
    node = client.server.app[NODE]
    emails = [f"worker-{n}-{secrets.token_hex(2)}@{org.slug}.test" for n in range(WORKERS)]
    for email in emails:
        await create_user(node, org_slug=org.slug, email=email, password=PASSWORD, name=email.split("@")[0])
    stale = org.anonymous.with_bearer(await _revoked_key(org))

    done = asyncio.Event()
    knocking = asyncio.create_task(_stale_tablet(stale, done))
    shifts = await asyncio.gather(*(_shift(org, form["id"], email, screens()) for email in emails))
    wall = [screens() for _ in range(WALL_SCREENS)]
    await asyncio.gather(*(screen.connect(org.owner) for screen in wall))
    done.set()
    knocked = await knocking

    assert all(status in (200, 201) for statuses in shifts for status in statuses), shifts
    assert all(screen.client.connected for screen in wall)
    assert set(knocked) <= {401, 429} and knocked[0] == 401
    listed = await org.owner.query("forms.submissions.list", {"formId": form["id"], "limit": 100})
    assert listed.status == 200 and len(listed.data["submissions"]) == WORKERS
    # The floor's address still has room: the next visitor of the form is served.
    assert (await org.anonymous.rest("GET", f"/api/forms/{form['id']}")).status == 200
