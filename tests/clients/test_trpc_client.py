"""The real tRPC client (@trpc/client v11, httpBatchLink, superjson transformer) against the real server.

tests/clients/trpc/client.mjs makes the calls in Node and prints what the client saw; these tests assert
on it. Node dependencies are installed from the committed package-lock.json on first use.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.clients.node_packages import NPM_TIMEOUT_S, npm_ci
from tests.harness import Org

CLIENT_DIR = Path(__file__).parent / "trpc"
# How superjson serializes `undefined`, the input of a procedure called without one.
NO_INPUT = {"json": None, "meta": {"values": ["undefined"], "v": 1}}


@pytest.fixture(scope="session")
def node_client() -> Path:
    """client.mjs, with its node_modules installed from the lock file if they are missing."""
    npm_ci(CLIENT_DIR, "@trpc/client")
    return CLIENT_DIR / "client.mjs"


async def run_client(script: Path, config: dict[str, Any]) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        "node", str(script), json.dumps(config), cwd=script.parent,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, stderr.decode()
    report: dict[str, Any] = json.loads(stdout)
    return report


def batch_calls(request: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The procedure names and the decoded `input` of one batched GET."""
    url = urlsplit(request["path"])
    query = parse_qs(url.query)
    assert query["batch"] == ["1"]
    return url.path.removeprefix("/api/trpc/").split(","), json.loads(query["input"][0])


async def owner_api_key(org: Org) -> dict[str, str]:
    """A full-access API key of the owner, created the way a user does: REST with the session cookie."""
    reply = await org.owner.rest("POST", "/api/v1/auth/api-keys", {"name": "tRPC client test"})
    assert reply.status == 201, reply.body
    return {"bearer": reply.data["key"]}


@pytest.fixture(params=["api_key", "session"])
async def report(request: pytest.FixtureRequest, client: Any, org: Org, node_client: Path) -> dict[str, Any]:
    """One run of client.mjs as the organization's owner, by API key or by session cookie."""
    port = client.server.port
    if request.param == "api_key":
        credential = await owner_api_key(org)
    else:
        # A cookie-authenticated write must come from the same site (web/context.py CSRF check).
        credential = {"cookie": org.owner.session or "", "origin": f"http://{org.host}:{port}"}
    config = {
        "port": port,
        "host": org.host,
        **credential,
        "newName": "Renamed By tRPC",
        "freeEmail": f"free-{secrets.token_hex(4)}@example.test",
        "takenEmail": org.owner_email,
    }
    return {"config": config, "org": org, **await run_client(node_client, config)}


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_query_returns_the_signed_in_user(report: dict[str, Any]) -> None:
    org: Org = report["org"]
    me = report["me"]
    assert me["ok"], me
    assert me["value"]["email"] == org.owner_email
    assert me["value"]["memberships"] == [
        {"organizationId": org.id, "organizationSlug": org.slug, "role": "owner"}]
    first = report["wire"][0]
    assert first["method"] == "GET" and first["status"] == 200
    # httpBatchLink sends even a lone call as a batch of one; superjson sends "no input" as null + meta.
    assert batch_calls(first) == (["auth.me"], {"0": NO_INPUT})


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_mutation_changes_the_profile(report: dict[str, Any]) -> None:
    new_name = report["config"]["newName"]
    assert report["updateProfile"]["ok"], report["updateProfile"]
    assert report["updateProfile"]["value"]["name"] == new_name
    assert report["meAfterUpdate"]["value"]["name"] == new_name
    post = report["wire"][1]
    assert (post["method"], post["path"]) == ("POST", "/api/trpc/auth.updateProfile?batch=1")
    assert post["status"] == 200


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_calls_in_one_tick_go_in_one_batched_request(report: dict[str, Any]) -> None:
    org: Org = report["org"]
    batch = report["batch"]
    assert len(batch["requests"]) == 1
    names, inputs = batch_calls(batch["requests"][0])
    assert names == ["auth.me", "auth.checkEmail"]
    assert inputs == {"0": NO_INPUT, "1": {"json": {"email": report["config"]["freeEmail"]}}}
    assert batch["requests"][0]["status"] == 200
    me, check = batch["results"]
    assert me["ok"] and me["value"]["email"] == org.owner_email
    assert check == {"ok": True, "value": {"available": True}}


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_batch_with_one_failing_call_settles_each_call_on_its_own(report: dict[str, Any]) -> None:
    org: Org = report["org"]
    mixed = report["mixedBatch"]
    assert len(mixed["requests"]) == 1
    assert mixed["requests"][0]["status"] == 207
    me, check = mixed["results"]
    assert me["ok"] and me["value"]["email"] == org.owner_email
    assert not check["ok"]
    assert check["error"]["code"] == "CONFLICT" and check["error"]["httpStatus"] == 409


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_errors_reject_with_trpc_client_error(report: dict[str, Any]) -> None:
    conflict = report["conflict"]["error"]
    assert report["conflict"]["ok"] is False
    assert conflict["name"] == "TRPCClientError"
    assert (conflict["code"], conflict["httpStatus"], conflict["shapeCode"]) == ("CONFLICT", 409, -32009)
    assert conflict["path"] == "auth.checkEmail"

    unknown = report["unknown"]["error"]
    assert unknown["name"] == "TRPCClientError"
    assert (unknown["code"], unknown["httpStatus"], unknown["shapeCode"]) == ("NOT_FOUND", 404, -32004)
    assert unknown["path"] == "nothing.here"

    invalid = report["invalid"]["error"]
    assert (invalid["code"], invalid["httpStatus"]) == ("BAD_REQUEST", 400)
    assert "name" in invalid["message"]


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_undefined_input_field_is_read_as_absent(report: dict[str, Any]) -> None:
    undefined = report["undefinedField"]["error"]
    assert (undefined["code"], undefined["httpStatus"]) == ("BAD_REQUEST", 400)
    assert undefined["message"] == "email: is required"


@pytest.mark.timeout(NPM_TIMEOUT_S + 60)
async def test_request_level_error_rejects_every_call_of_the_batch(report: dict[str, Any]) -> None:
    rejected = report["badCredential"]
    assert [r["status"] for r in rejected["requests"]] == [401]
    for result in rejected["results"]:
        assert result["ok"] is False
        assert (result["error"]["code"], result["error"]["httpStatus"]) == ("UNAUTHORIZED", 401)
