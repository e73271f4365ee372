"""Test helpers: a small client that speaks both wire styles to the real in-process server, and
organization/user factories that go through the same services as the CLI."""

from __future__ import annotations

import json
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from aiohttp.test_utils import TestClient

from actors.identity.accounts import create_organization, create_user
from actors.kernel.node import Node
from web.keys import NODE

PASSWORD = "correct horse battery"


@dataclass
class Reply:
    status: int
    body: Any
    headers: Any

    @property
    def data(self) -> Any:
        """The payload of a successful call in either style."""
        if isinstance(self.body, dict) and "result" in self.body:
            return self.body["result"]["data"]["json"]
        return self.body["data"]

    @property
    def error(self) -> dict[str, Any]:
        return self.body["error"]


@dataclass
class Api:
    client: TestClient
    host: str
    session: str | None = None
    bearer: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)

    def with_session(self, token: str | None) -> Api:
        return replace(self, session=token, bearer=None)

    def with_bearer(self, token: str | None) -> Api:
        return replace(self, bearer=token, session=None)

    def on_host(self, host: str) -> Api:
        return replace(self, host=host)

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Host": self.host, **self.extra_headers}
        if self.session:
            headers["Cookie"] = f"authjs.session-token={self.session}"
        if self.bearer:
            headers["Authorization"] = f"Bearer {self.bearer}"
        headers.update(extra or {})
        return headers

    async def _reply(self, response: Any) -> Reply:
        text = await response.text()
        try:
            body = json.loads(text) if text else None
        except json.JSONDecodeError:
            body = text
        return Reply(response.status, body, response.headers)

    async def query(self, name: str, input: Any = None, headers: dict[str, str] | None = None) -> Reply:
        path = f"/api/trpc/{name}"
        if input is not None:
            path += "?input=" + quote(json.dumps({"json": input}))
        async with self.client.get(path, headers=self.headers(headers)) as response:
            return await self._reply(response)

    async def mutate(self, name: str, input: Any = None, headers: dict[str, str] | None = None) -> Reply:
        body = json.dumps({"json": input})
        async with self.client.post(f"/api/trpc/{name}", data=body,
                                    headers=self.headers({"Content-Type": "application/json", **(headers or {})})
                                    ) as response:
            return await self._reply(response)

    async def rest(self, method: str, path: str, json_body: Any = None, params: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> Reply:
        extra = dict(headers or {})
        data = None
        if json_body is not None:
            data = json.dumps(json_body)
            extra.setdefault("Content-Type", "application/json")
        async with self.client.request(method, path, data=data, params=params,
                                       headers=self.headers(extra)) as response:
            return await self._reply(response)


@dataclass
class Org:
    id: str
    slug: str
    host: str
    owner_id: str
    owner_email: str
    owner: Api          # signed in as the owner with a session cookie
    anonymous: Api

    async def add_user(self, role: str = "member", name: str = "Test User") -> tuple[str, Api]:
        """A new member with `role`, signed in; returns (user id, their Api)."""
        email = f"{role}-{secrets.token_hex(4)}@{self.slug}.test"
        node = self.anonymous.client.server.app[NODE]
        user_id = await create_user(node, org_slug=self.slug, email=email, password=PASSWORD, name=name, role=role)
        return user_id, await login(self.anonymous, email)


async def login(api: Api, email: str, password: str = PASSWORD) -> Api:
    reply = await api.rest("POST", "/api/v1/auth/login", {"email": email, "password": password})
    assert reply.status == 200, reply.body
    token = reply.headers.getall("Set-Cookie")[0].split(";", 1)[0].split("=", 1)[1]
    return api.with_session(token)


async def make_org(client: TestClient, plan: str = "business") -> Org:
    return await open_org(client.server.app[NODE], lambda host: Api(client, host), plan)


async def open_org(node: Node, reach: Callable[[str], Api], plan: str = "business") -> Org:
    """A new organization on `plan`, created through `node`, its owner signed in through `reach(host)` (the
    in-process server, or one node of a cluster)."""
    slug = f"org-{secrets.token_hex(5)}"
    email = f"owner@{slug}.test"
    org_id, owner_id = await create_organization(node, slug=slug, name=f"Org {slug}", owner_email=email,
                                                 owner_password=PASSWORD, owner_name="Olga Owner", plan=plan)
    host = f"{slug}.localhost"
    anonymous = reach(host)
    return Org(org_id, slug, host, owner_id, email, await login(anonymous, email), anonymous)


def free_port() -> int:
    """A local TCP port nothing listens on (for a server to start on, or a refused connection)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
