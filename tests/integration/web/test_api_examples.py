"""The API reference's examples (web/api_examples.py), made again on a fresh server in their order: each must be
answered with the status and the body the example shows, ids, cursors and times aside, so that docs/api/ never
shows a reply the server does not give. An id or cursor an example's reply shows stands, in the examples after
it, for the one the server gave."""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime
from typing import Any

from actors.identity.callers import forget_organization
from protocol.registry import REGISTRY
from storage.billing import set_plan
from tests.harness import Api, Reply
from web.api_examples import EXAMPLES, Example
from web.api_reference import COMMAND
from web.keys import NODE

ID = re.compile(r"^[a-z]+_[a-z2-7]{20}$")
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
CURSORS = {"nextCursor", "cursor"}


class Bindings:
    """What each id, cursor and name of the examples stands for on this server."""

    def __init__(self, names: dict[str, str]) -> None:
        self.real = dict(names)

    def substitute(self, value: Any) -> Any:
        """An example's input (or path) with everything bound replaced by what it stands for."""
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        if isinstance(value, str):
            if value in self.real:
                return self.real[value]
            for shown, real in self.real.items():
                if ID.match(shown):
                    value = value.replace(shown, real)
        return value

    def compare(self, shown: Any, real: Any, where: str = "$", key: str = "") -> list[str]:
        """How `real` differs from the reply an example shows; binds the ids and cursors met on the way."""
        if isinstance(shown, dict):
            if not isinstance(real, dict):
                return [f"{where}: an object was shown, the server gave {real!r}"]
            names = {self.substitute(name): name for name in shown}  # a key may be an id (`values` by column)
            if set(names) != set(real):
                return [f"{where}: fields shown {sorted(names)}, given {sorted(real)}"]
            return [problem for name, shown_name in names.items()
                    for problem in self.compare(shown[shown_name], real[name], f"{where}.{shown_name}", shown_name)]
        if isinstance(shown, list):
            if not isinstance(real, list) or len(shown) != len(real):
                return [f"{where}: {len(shown)} entries shown, the server gave {real!r}"]
            return [problem for index, (one, other) in enumerate(zip(shown, real, strict=True))
                    for problem in self.compare(one, other, f"{where}[{index}]")]
        if isinstance(shown, str) and shown in self.real:
            return [] if real == self.real[shown] else [f"{where}: {shown} stands for {self.real[shown]}, "
                                                        f"the server gave {real!r}"]
        if isinstance(shown, str) and (ID.match(shown) or (key in CURSORS and shown)):
            if not isinstance(real, str) or (ID.match(shown) and not ID.match(real)):
                return [f"{where}: an id or cursor was shown, the server gave {real!r}"]
            self.real[shown] = real
            return []
        if isinstance(shown, str) and TIME.match(shown):
            return [] if isinstance(real, str) and TIME.match(real) else [f"{where}: a time shown, given {real!r}"]
        same = shown == real and isinstance(shown, bool) == isinstance(real, bool) and (shown is None) == (real is None)
        return [] if same else [f"{where}: {shown!r} shown, the server gave {real!r}"]


async def call(api: Api, example: Example, bindings: Bindings) -> tuple[Reply, Any]:
    data = bindings.substitute(example.input)
    if example.rest is not None:
        method, path = example.rest
        path = bindings.substitute(path)
        reply = await (api.rest(method, path, params=data) if method == "GET" else api.rest(method, path, data))
        return reply, reply.body
    procedure = REGISTRY[example.procedure or ""]
    reply = await (api.query(procedure.name, data) if procedure.is_query else api.mutate(procedure.name, data))
    return reply, reply.data if reply.status == 200 else reply.body


def session_of(reply: Reply) -> str:
    return str(reply.headers.getall("Set-Cookie")[0].split(";", 1)[0].split("=", 1)[1])


async def test_every_example_is_answered_as_the_reference_shows(client: Any) -> None:
    slug = f"acme-{secrets.token_hex(4)}"
    bindings = Bindings({"acme": slug, "ada@acme.example": f"ada@{slug}.example"})
    service, organization = Api(client, "localhost"), Api(client, f"{slug}.localhost")
    for number, example in enumerate(EXAMPLES, 1):
        reply, body = await call(service if example.service_host else organization, example, bindings)
        expected = example.status if example.rest else 200
        problems = [f"status {reply.status}, shown {expected}"] if reply.status != expected else []
        problems += bindings.compare(example.output, body) if not problems else []
        assert not problems, (
            f"example {number} ({example.title}) differs from what the server gave: {'; '.join(problems)}\n"
            f"the server gave:\n{json.dumps(body, indent=1)}\n"
            f"update web/api_examples.py, then regenerate the reference: {COMMAND}")
        if example.rest == ("POST", "/api/v1/auth/signup"):
            # The examples' KPIs need the kpis feature, which the free plan a sign-up starts on has not.
            node = client.server.app[NODE]
            async with node.pool.acquire() as conn:
                await set_plan(conn, body["data"]["organizationId"], "business", datetime.now(UTC))
            forget_organization(node, slug)
        if example.rest == ("POST", "/api/v1/auth/login"):
            organization = organization.with_session(session_of(reply))


def test_the_examples_cover_the_common_calls() -> None:
    called = {example.procedure for example in EXAMPLES} | {example.rest for example in EXAMPLES}
    assert {("POST", "/api/v1/auth/signup"), ("POST", "/api/v1/auth/login"), "boards.create", "boards.get",
            "boards.list", "items.create", "items.setValue", "items.update", "items.list", "kpis.setValue",
            "kpis.getHistory", "actions.create", "actions.update", "webhooks.create", "comments.create"} <= called
    paged = [example for example in EXAMPLES if "cursor" in example.input]
    assert paged and all(example.procedure is not None and REGISTRY[example.procedure].is_query for example in paged)
