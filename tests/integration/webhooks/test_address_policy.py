"""The outbound address policy in the default environment (OBEYA_ALLOW_PRIVATE_TARGETS unset, as a deployment
that forgot `OBEYA_ENV=production` runs): webhooks and automations' call_webhook may not reach loopback,
private, link-local, reserved, multicast, unspecified or embedding addresses. Refused when saved (422 / 400
naming the URL's field), and again where the socket is opened, on the address actually connected to (a name
rebound to a private address after it was saved, a literal the resolver never sees)."""

from __future__ import annotations

import ipaddress
from typing import Any

import aiohttp
import pytest

from actors.delivery.addresses import literal_address, outbound_connector, refusal
from actors.delivery.webhook_sender import forget_webhook_orgs
from protocol.ids import Prefix, new_id
from storage import webhooks as webhook_repo
from tests.conftest import server_settings
from tests.harness import Org
from tests.integration.automations.conftest import rule, runs
from tests.integration.boards.conftest import make_board, make_project
from tests.integration.webhooks.conftest import Receiver, create_webhook, delivery_settled
from web.keys import NODE


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> Any:
    """The suite's servers allow private targets (they deliver to 127.0.0.1); these run without."""
    return server_settings(request, OBEYA_ALLOW_PRIVATE_TARGETS="0")


REFUSED_URLS = {
    "http://127.0.0.1/hook": "a loopback address (127.0.0.1)",
    "http://[::1]/hook": "a loopback address (::1)",
    "http://169.254.169.254/latest/meta-data": "a link-local address (169.254.169.254)",
    "http://10.0.0.1/hook": "a private address (10.0.0.1)",
    "http://192.168.1.20:8080/": "a private address (192.168.1.20)",
    "http://100.64.0.1/": "a non-public address (100.64.0.1)",
    "http://[fe80::1]/": "a link-local address (fe80::1)",
    "http://[fd00::1]/": "a private address (fd00::1)",
    "http://224.0.0.1/": "a multicast address (224.0.0.1)",
    "http://240.0.0.1/": "a reserved address (240.0.0.1)",
    "http://0.0.0.0/": "an unspecified address (0.0.0.0)",
    "http://[::]/": "an unspecified address (::)",
    "http://[2002:7f00:1::]/": "a 6to4 address embedding a loopback IPv4 address (2002:7f00:1::)",
    "http://[2002:a00:1::]/": "a 6to4 address embedding a private IPv4 address (2002:a00:1::)",
    "http://[64:ff9b::7f00:1]/": "a NAT64 address embedding a loopback IPv4 address (64:ff9b::7f00:1)",
    "http://[64:ff9b::a9fe:a9fe]/": "a NAT64 address embedding a link-local IPv4 address (64:ff9b::a9fe:a9fe)",
    "http://[64:ff9b:1::5db8:d70e]/": "a local-use NAT64 address (64:ff9b:1::5db8:d70e)",
    "http://[::ffff:127.0.0.1]/": "an IPv4-mapped loopback address (::ffff:7f00:1)",
    "http://[::ffff:169.254.169.254]/": "an IPv4-mapped link-local address (::ffff:a9fe:a9fe)",
    "http://[::127.0.0.1]/": "an IPv4-compatible address (::7f00:1)",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/": "a Teredo address (2001:0:4136:e378:8000:63bf:3fff:fdd2)",
    "http://2130706433/hook": "a loopback address (127.0.0.1)",
    "http://0177.0.0.1/hook": "a loopback address (127.0.0.1)",
    "http://0x7f.1/hook": "a loopback address (127.0.0.1)",
    "http://127.1/hook": "a loopback address (127.0.0.1)",
    "http://0xa9fea9fe/": "a link-local address (169.254.169.254)",
    "http://localhost:8080/hook": "a loopback address",
}


@pytest.mark.parametrize("url", sorted(REFUSED_URLS))
async def test_creating_a_webhook_to_a_private_address_is_refused_naming_the_url(org: Org, url: str) -> None:
    reply = await org.owner.rest("POST", "/api/v1/webhooks", {"url": url, "events": ["item.created"]})
    assert reply.status == 422, reply.body
    [detail] = reply.error["details"]
    assert detail["field"] == "url"
    assert detail["message"].startswith("must not point to " + REFUSED_URLS[url]), detail
    listed = await org.owner.rest("GET", "/api/v1/webhooks")
    assert listed.status == 200 and listed.data == []


async def test_changing_a_webhook_to_a_private_address_is_refused(org: Org) -> None:
    hook = await create_webhook(org.owner, "https://93.184.215.14/hook", ["item.created"])
    changed = await org.owner.rest("PATCH", f"/api/v1/webhooks/{hook['id']}", {"url": "http://[::1]:9/"})
    assert changed.status == 422, changed.body
    assert changed.error["details"][0]["field"] == "url"
    assert (await org.owner.rest("GET", "/api/v1/webhooks")).data[0]["url"] == "https://93.184.215.14/hook"


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/hook", "http://[::1]/", "http://169.254.169.254/",
                                 "http://10.0.0.1/", "http://[2002:7f00:1::]/", "http://[64:ff9b::7f00:1]/",
                                 "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://2130706433/"])
async def test_an_automation_calling_a_private_address_is_refused_naming_the_field(org: Org, url: str) -> None:
    board = await make_board(org)
    reply = await board.api.mutate("automations.create", rule(board.id, actions=[
        {"type": "archive_item", "config": {}},
        {"type": "call_webhook", "config": {"url": url, "method": "POST"}}]))
    assert reply.status == 400, reply.body
    [detail] = reply.error["data"]["details"]
    assert detail["field"] == "actions.1.config.url"
    assert detail["message"].startswith("must not point to "), detail
    assert (await board.api.query("automations.list", {"boardId": board.id})).data["automations"] == []


@pytest.mark.workers("automations")
async def test_a_templated_url_reaching_a_private_address_fails_the_run_and_sends_nothing(
        org: Org, receiver: Receiver) -> None:
    """A URL with template variables is checked when called: the run records why, the receiver gets nothing."""
    board = await make_board(org)
    templated = receiver.url + "?item={item.id}"
    created = await board.api.mutate("automations.create", rule(board.id, actions=[
        {"type": "call_webhook", "config": {"url": templated, "method": "POST"}}]))
    assert created.status == 200, created.body
    await board.add_item("Valve")
    [run] = await runs(board, 1)
    assert run["status"] == "failure", run
    [result] = run["actionResults"]
    assert result["success"] is False
    assert result["error"] == "url must not point to a loopback address (127.0.0.1)"
    assert receiver.requests.empty()


@pytest.mark.workers("webhook-sender")
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_delivery_to_an_address_that_became_private_fails_naming_the_reason(
        org: Org, receiver: Receiver, host: str) -> None:
    """A webhook saved when its name resolved to a public address (stored directly here), whose name now
    resolves to 127.0.0.1 (DNS rebinding) or whose literal host the resolver never sees: the connection is
    refused on the address itself, the attempt is recorded with the reason, nothing reaches the receiver."""
    node = org.owner.client.server.app[NODE]
    url = receiver.url.replace("127.0.0.1", host)
    async with node.pool.acquire() as conn:
        hook = await webhook_repo.insert(conn, webhook_id=new_id(Prefix.WEBHOOK), org_id=org.id, url=url,
                                         events=["project.created"], secret=None, description=None,
                                         created_by=org.owner_id, now=node.clock.now())
    forget_webhook_orgs(node)
    await make_project(org)

    delivery = await delivery_settled(org.owner, hook["id"], 1, "retrying")
    assert delivery["responseCode"] is None
    assert "is a loopback address: outbound requests may not reach it" in delivery["error"], delivery
    assert receiver.requests.empty()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "0x7f.0.0.1", "2130706433"])
async def test_the_outbound_session_refuses_to_connect_to_a_local_receiver(receiver: Receiver, host: str) -> None:
    url = receiver.url.replace("127.0.0.1", host)
    async with aiohttp.ClientSession(connector=outbound_connector(allow_private=False)) as session:
        with pytest.raises(aiohttp.ClientError) as refused:
            await session.post(url, data=b"{}")
    assert "loopback" in str(refused.value) or "not a canonical IPv4 address" in str(refused.value)
    assert receiver.requests.empty()
    # Allowed (the rest of the suite): the same receiver answers.
    async with aiohttp.ClientSession(connector=outbound_connector(allow_private=True)) as session:
        async with session.post(receiver.url, data=b"{}") as reply:
            assert reply.status == 200
    assert (await receiver.next()).body == b"{}"


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::1111", "::ffff:93.184.215.14",
                                     "2002:5db8:d70e::", "64:ff9b::5db8:d70e"])
def test_public_addresses_and_their_embeddings_are_allowed(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(("host", "address"), [("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
                                               ("0x7f.1", "127.0.0.1"), ("example.com", None), ("1e100.net", None),
                                               ("deadbeef", None), ("1.2.3.4.5", None)])
def test_legacy_ipv4_spellings_are_read_as_the_address_they_name(host: str, address: str | None) -> None:
    literal = literal_address(host)
    assert (None if literal is None else str(literal)) == address
