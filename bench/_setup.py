"""The organization a benchmark loads, built over HTTP like any client: created with `obeya org create` on the
enterprise plan, its owner signed in by cookie, a project with boards (a status and a number column, items),
API keys warmed in the credential cache of every server they will be sent to, and random `items.setValue`
bodies for those boards.

Nothing here imports the server: the benchmark talks to it only over 127.0.0.1 like any client would."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from dataclasses import dataclass
from typing import Any

import aiohttp

from bench._support import run_cli

PASSWORD = "bench horse battery staple"


@dataclass
class BoardFixture:
    id: str
    items: list[str]
    status_column: str
    labels: list[str]
    number_column: str


@dataclass
class Fixture:
    slug: str
    host: str
    cookie: str  # the owner's session, to create API keys before each phase
    boards: list[BoardFixture]
    keys: list[str]


def create_org(env: dict[str, str]) -> tuple[str, str]:
    """A new enterprise organization in `env`'s database (migrated first by the command): its slug and its
    owner's email (password PASSWORD)."""
    slug = f"bench-{secrets.token_hex(3)}"
    email = f"owner@{slug}.test"
    run_cli(["org", "create", "--slug", slug, "--name", "Bench Co", "--owner-email", email,
             "--owner-password", PASSWORD, "--plan", "enterprise"], env)
    return slug, email


class SessionApi:
    """The org owner signed in by cookie: creates keys, workspaces, projects, boards and items."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, host: str, cookie: str = "") -> None:
        self._session, self._base, self._host = session, base_url, host
        self.cookie = cookie

    def _headers(self) -> dict[str, str]:
        return {"Host": self._host, "Content-Type": "application/json", "Cookie": self.cookie}

    async def login(self, email: str) -> None:
        async with self._session.post(self._base + "/api/v1/auth/login", headers=self._headers(),
                                      data=json.dumps({"email": email, "password": PASSWORD})) as response:
            if response.status != 200:
                raise RuntimeError(f"login failed: {response.status} {await response.text()}")
            self.cookie = response.headers.getall("Set-Cookie")[0].split(";", 1)[0]

    async def rest(self, path: str, body: Any) -> Any:
        async with self._session.post(self._base + path, headers=self._headers(), data=json.dumps(body)) as response:
            reply = await response.json()
            if response.status >= 300:
                raise RuntimeError(f"POST {path} failed: {response.status} {reply}")
        return reply["data"]

    async def query(self, name: str, data: Any = None) -> Any:
        params = {} if data is None else {"input": json.dumps({"json": data})}
        async with self._session.get(f"{self._base}/api/trpc/{name}", headers=self._headers(),
                                     params=params) as response:
            reply = await response.json()
            if response.status != 200:
                raise RuntimeError(f"{name} failed: {response.status} {reply}")
        return reply["result"]["data"]["json"]

    async def mutate(self, name: str, data: Any) -> Any:
        async with self._session.post(f"{self._base}/api/trpc/{name}", headers=self._headers(),
                                      data=json.dumps({"json": data})) as response:
            reply = await response.json()
            if response.status != 200:
                raise RuntimeError(f"{name} failed: {response.status} {reply}")
        return reply["result"]["data"]["json"]


def _session() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())


async def sign_in(base_url: str, slug: str, email: str) -> Fixture:
    """The owner of organization `slug` signed in through `base_url`; no boards and no keys yet."""
    host = f"{slug}.localhost"
    async with _session() as session:
        api = SessionApi(session, base_url, host)
        await api.login(email)
    return Fixture(slug, host, api.cookie, [], [])


async def new_project(base_url: str, fixture: Fixture) -> str:
    """A new workspace with one project; the project's id."""
    async with _session() as session:
        api = SessionApi(session, base_url, fixture.host, fixture.cookie)
        workspace = await api.mutate("workspaces.create", {"name": "Bench plant"})
        project = await api.mutate("projects.create", {"workspaceId": workspace["id"], "name": "Bench line"})
    return str(project["id"])


async def new_board(base_url: str, fixture: Fixture, project_id: str, name: str, items: int) -> BoardFixture:
    """A board with a status and a number column and `items` items, all created through `base_url` (so that,
    in a cluster, the node behind it owns the board's actor)."""
    async with _session() as session:
        api = SessionApi(session, base_url, fixture.host, fixture.cookie)
        board = await api.mutate("boards.create", {
            "projectId": project_id, "name": name,
            "columns": [{"name": "Status", "type": "status"}, {"name": "Count", "type": "number"}]})
        status = next(c for c in board["columns"] if c["type"] == "status")
        count = next(c for c in board["columns"] if c["type"] == "number")
        group = board["groups"][0]["id"]
        created = await asyncio.gather(*(api.mutate("items.create", {
            "boardId": board["id"], "groupId": group, "name": f"Item {n}"}) for n in range(items)))
    return BoardFixture(board["id"], [item["id"] for item in created], status["id"],
                        [label["name"] for label in status["config"]["labels"]], count["id"])


async def new_keys(base_urls: list[str], fixture: Fixture, count: int, *, warm: bool = True) -> list[str]:
    """`count` new full-access API keys, created through the first of `base_urls`. Warm: each is then used
    once on every one of them, one request after another, so that each server's credential cache holds it
    (verified with bcrypt once, then trusted for 60 s) before a phase starts."""
    async with _session() as session:
        api = SessionApi(session, base_urls[0], fixture.host, fixture.cookie)
        keys = [(await api.rest("/api/v1/auth/api-keys", {"name": f"bench {secrets.token_hex(3)}"}))["key"]
                for _ in range(count)]
    if warm:
        await warm_keys(base_urls, fixture, keys)
    return keys


async def warm_keys(base_urls: list[str], fixture: Fixture, keys: list[str]) -> None:
    """Use each key once on each server (see `new_keys`)."""
    async with _session() as session:
        for base_url in base_urls:
            for key in keys:
                async with session.get(base_url + "/api/v1/auth/me", headers=bearer(fixture, key)) as response:
                    if response.status != 200:
                        raise RuntimeError(f"an API key was refused: {response.status} {await response.text()}")


def bearer(fixture: Fixture, key: str) -> dict[str, str]:
    """Headers of a request to the organization's host with API key `key`."""
    return {"Host": fixture.host, "Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def set_value_body(item: str, column: str, value: Any) -> bytes:
    return json.dumps({"json": {"itemId": item, "columnId": column, "value": value}}).encode()


def random_set_value(board: BoardFixture, rng: random.Random) -> bytes:
    """A setValue of a random item of `board`: half status labels, half numbers."""
    item = rng.choice(board.items)
    if rng.random() < 0.5:
        return set_value_body(item, board.status_column, rng.choice(board.labels))
    return set_value_body(item, board.number_column, round(rng.uniform(0, 1000), 2))
