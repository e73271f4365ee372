"""The automation actions that leave the server: `send_email` through the mail outbox to a real
SMTP server, and `call_webhook` to a real HTTP receiver on 127.0.0.1. What the receivers get, and what the
execution record says when it cannot be done."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.config import DEFAULT_PORT
from tests.harness import free_port, make_org
from tests.integration.automations.conftest import create, rule, runs
from tests.integration.boards.conftest import Board, make_board
from tests.integration.mail.test_mail_delivery import _client, _email
from tests.integration.webhooks.conftest import Receiver
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink, sink_fixture, smtp_url_fixture  # noqa: F401  (fixtures)
from web.keys import NODE

pytestmark = [QUIET_PLAIN_AUTH, pytest.mark.workers("automations", "mail-sender")]


def webhook(url: str, method: str = "POST", **config: Any) -> dict[str, Any]:
    return {"type": "call_webhook", "config": {"url": url, "method": method, **config}}


# --- send_email ------------------------------------------------------------------------------------------


async def _mail_board(aiohttp_client: Any, database_url: str, smtp_url: str) -> Board:
    """A board on a server that sends mail to the test's SMTP sink."""
    client = await _client(aiohttp_client, database_url, smtp_url)
    return await make_board(await make_org(client))


async def _mails(sink: Sink, count: int) -> list[tuple[list[str], Any]]:
    deadline = asyncio.get_running_loop().time() + 10
    while len(sink.messages) < count and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    return list(sink.messages)


def _content(message: Any) -> str:
    return str(message.get_content()).replace("\r\n", "\n").removesuffix("\n")  # SMTP's line endings


async def test_send_email_reaches_every_recipient_with_the_texts_templated(
        aiohttp_client: Any, database_url: str, smtp_url: str, sink: Sink) -> None:
    board = await _mail_board(aiohttp_client, database_url, smtp_url)
    automation = await create(board, name="Mail the line", actions=[{"type": "send_email", "config": {
        "to": ["ops@example.test", "{item.name}@example.test"],
        "subject": "New on {board.name}: {item.name}",
        "body": "{user.name} added {item.name} to {group.name}.\nOpen it: {item.url}\nId: {item.id}"}}])
    item = await board.add_item("pump-7")

    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["error"] is None, run
    assert run["automationRuleId"] == automation["id"] and run["itemId"] == item["id"]
    assert run["actionResults"] == [{"type": "send_email", "success": True}]

    pool = board.api.client.server.app[NODE].pool
    for address in ("ops@example.test", "pump-7@example.test"):
        row = await _email(pool, address, lambda row: row["status"] != "queued")
        assert row["status"] == "sent" and row["kind"] == "automation" and row["organization_id"] == board.org.id
    mails = await _mails(sink, 2)
    assert sorted(rcpt for rcpts, _ in mails for rcpt in rcpts) == ["ops@example.test", "pump-7@example.test"]
    group = board.view["groups"][0]["name"]
    url = f"http://{board.org.slug}.localhost:{DEFAULT_PORT}/items/{item['id']}"
    for recipient in ("ops@example.test", "pump-7@example.test"):
        [message] = sink.to(recipient)
        assert message["To"] == recipient
        assert message["Subject"] == "New on Tier 1 board: pump-7"
        assert _content(message) == f"Olga Owner added pump-7 to {group}.\nOpen it: {url}\nId: {item['id']}"


async def test_send_email_to_an_invalid_address_fails_and_sends_nothing(
        aiohttp_client: Any, database_url: str, smtp_url: str, sink: Sink) -> None:
    board = await _mail_board(aiohttp_client, database_url, smtp_url)
    # The item's name makes the second address invalid ("Fix the leak@example.test").
    await create(board, actions=[{"type": "send_email", "config": {
        "to": "ops@example.test, {item.name}@example.test", "subject": "Hi", "body": "{item.name}"}}])
    await board.add_item("Fix the leak")

    [run] = await runs(board, 1)
    assert run["status"] == "failure"
    assert run["error"] == "send_email: not an e-mail address: Fix the leak@example.test"
    assert run["actionResults"] == [{"type": "send_email", "success": False,
                                     "error": "not an e-mail address: Fix the leak@example.test"}]
    # All or nothing: the valid address was not mailed either (the run queues before it records).
    pool = board.api.client.server.app[NODE].pool
    assert await pool.fetchval("SELECT count(*) FROM emails WHERE organization_id = $1", board.org.id) == 0
    await board.api.client.server.app[NODE].workers.idle()  # the mail sender too
    assert sink.messages == []


async def test_a_line_break_in_an_email_subject_is_folded_and_mail_keeps_flowing(
        aiohttp_client: Any, database_url: str, smtp_url: str, sink: Sink) -> None:
    """An item name may hold line breaks; in a subject they must neither inject headers nor stop the sender."""
    board = await _mail_board(aiohttp_client, database_url, smtp_url)
    await create(board, actions=[{"type": "send_email", "config": {
        "to": "ops@example.test", "subject": "New: {item.name}", "body": "{item.name}"}}])
    await board.add_item("Leak\r\nBcc: victim@example.test")
    [run] = await runs(board, 1)
    assert run["status"] == "success", run

    pool = board.api.client.server.app[NODE].pool
    row = await _email(pool, "ops@example.test", lambda row: row["status"] != "queued")
    assert row["status"] == "sent", dict(row)
    [(rcpts, message)] = await _mails(sink, 1)
    assert rcpts == ["ops@example.test"] and message["Bcc"] is None
    assert message["Subject"] == "New: Leak Bcc: victim@example.test"
    assert _content(message) == "Leak\nBcc: victim@example.test"

    # The sender is still running: a later mail goes out too.
    await board.add_item("Second")
    assert len(await _mails(sink, 2)) == 2
    assert [m["Subject"] for m in sink.to("ops@example.test")] == ["New: Leak Bcc: victim@example.test",
                                                                    "New: Second"]


async def test_a_subject_or_body_that_is_not_text_fails_the_action_with_a_record(
        aiohttp_client: Any, database_url: str, smtp_url: str, sink: Sink) -> None:
    """The rule's config is any JSON: a number or an object where a text belongs is the action's failure,
    recorded, not a run that never ends."""
    board = await _mail_board(aiohttp_client, database_url, smtp_url)
    await create(board, actions=[
        {"type": "send_email", "config": {"to": "ops@example.test", "subject": 42, "body": "{item.name}"}},
        {"type": "send_email", "config": {"to": "ops@example.test", "subject": "Hi", "body": {"text": "x"}}},
        {"type": "send_email", "config": {"to": "ops@example.test", "subject": "Fine", "body": "{item.name}"}}])
    await board.add_item("Crane")
    [run] = await runs(board, 1)
    assert run["status"] == "partial_failure", run
    assert run["actionResults"] == [
        {"type": "send_email", "success": False, "error": "subject must be a text"},
        {"type": "send_email", "success": False, "error": "body must be a text"},
        {"type": "send_email", "success": True}]
    [(rcpts, message)] = await _mails(sink, 1)
    assert rcpts == ["ops@example.test"] and message["Subject"] == "Fine" and _content(message) == "Crane"


# --- call_webhook ----------------------------------------------------------------------------------------


async def test_a_guest_sees_where_a_webhook_goes_but_not_its_path_or_header_values(board: Board) -> None:
    """A call_webhook's path (a Slack hook's) and headers often are the receiver's credentials: shown to those who
    may change the rule, not to a guest who reads the board."""
    action = webhook("https://user:pw@hooks.example.test:8443/services/T1/B2/s3cr3t?token=t0k", "POST",
                     headers={"Authorization": "Bearer mes-token", "X-Line": "4"}, body="{item.name}")
    made = await create(board, actions=[action, {"type": "archive_item", "config": {}}])
    assert made["actions"][0] == action
    guest_id, guest = await board.org.add_user("guest")
    project = await board.api.query("projects.get", {"id": board.project_id})
    await board.api.mutate("workspaces.members.add", {"workspaceId": project.data["workspaceId"], "userId": guest_id})
    [as_member] = (await board.api.query("automations.list", {"boardId": board.id})).data["automations"]
    assert as_member["actions"] == [action, {"type": "archive_item", "config": {}}]
    seen = await guest.query("automations.list", {"boardId": board.id})
    assert seen.status == 200, seen.body
    assert seen.data["automations"][0]["actions"] == [
        webhook("https://hooks.example.test:8443", "POST", headers={"Authorization": None, "X-Line": None},
                body="{item.name}"),
        {"type": "archive_item", "config": {}}]


async def test_call_webhook_sends_templated_url_headers_and_bodies(board: Board, receiver: Receiver) -> None:
    await create(board, name="Tell the MES", actions=[
        webhook(receiver.url + "?item={item.id}", "post",
                headers={"X-Item": "{item.name}", "X-Board": "{board.name}", "Authorization": "Bearer abc"},
                body={"text": "{item.name} in {group.name}", "count": 3, "tags": ["{item.id}", "fixed"],
                      "nested": {"by": "{user.name}"}, "none": None}),
        webhook(receiver.url + "/text", "PUT", body="name={item.name}"),
        webhook(receiver.url + "/get?name={item.name}", "GET")])
    item = await board.add_item("Valve-3")

    posted, put, got = await receiver.next(), await receiver.next(), await receiver.next()
    group = board.view["groups"][0]["name"]
    assert (posted.method, posted.path_qs) == ("POST", f"/hook?item={item['id']}")
    assert posted.headers["X-Item"] == "Valve-3" and posted.headers["X-Board"] == "Tier 1 board"
    assert posted.headers["Authorization"] == "Bearer abc"
    assert posted.headers["Content-Type"] == "application/json"
    assert posted.json() == {"text": f"Valve-3 in {group}", "count": 3, "tags": [item["id"], "fixed"],
                             "nested": {"by": "Olga Owner"}, "none": None}
    assert (put.method, put.path_qs, put.body) == ("PUT", "/hook/text", b"name=Valve-3")
    assert put.headers.get("Content-Type") != "application/json"
    assert (got.method, got.path_qs, got.body) == ("GET", "/hook/get?name=Valve-3", b"")

    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["error"] is None
    assert run["actionResults"] == [{"type": "call_webhook", "success": True}] * 3


async def test_call_webhook_without_a_body_sends_a_summary_of_the_run(board: Board, receiver: Receiver) -> None:
    automation = await create(board, name="Summary", actions=[webhook(receiver.url)])
    item = await board.add_item("Conveyor")
    request = await receiver.next()
    [run] = await runs(board, 1)
    assert run["status"] == "success"

    assert request.method == "POST" and request.headers["Content-Type"] == "application/json"
    body = request.json()
    assert set(body) == {"automation", "board", "trigger", "item", "received"}
    assert body["automation"] == {"id": automation["id"], "name": "Summary"}
    assert body["board"] == {"id": board.id, "name": "Tier 1 board"}
    assert body["trigger"] == "item.created" and body["received"] is None
    current = await board.api.query("items.get", {"id": item["id"]})
    assert body["item"] == current.data and body["item"]["name"] == "Conveyor"


async def test_a_receiver_answering_500_makes_the_run_a_failure(board: Board, receiver: Receiver) -> None:
    receiver.status = 500
    await create(board, actions=[webhook(receiver.url)])
    await board.add_item()
    await receiver.next()
    [run] = await runs(board, 1)
    assert run["status"] == "failure"
    assert run["error"] == "call_webhook: the receiver answered 500"
    assert run["actionResults"] == [{"type": "call_webhook", "success": False,
                                     "error": "the receiver answered 500"}]


async def test_one_failing_action_of_two_makes_a_partial_failure(board: Board, receiver: Receiver) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/hook"
    await create(board, actions=[webhook(receiver.url), webhook(nowhere)])
    await board.add_item()
    assert (await receiver.next()).method == "POST"
    [run] = await runs(board, 1)
    assert run["status"] == "partial_failure"
    ok, failed = run["actionResults"]
    assert ok == {"type": "call_webhook", "success": True}
    assert failed["type"] == "call_webhook" and failed["success"] is False
    assert failed["error"].startswith("request failed: ")
    assert run["error"] == f"call_webhook: {failed['error']}"
    assert receiver.requests.empty()


async def test_a_header_the_http_client_refuses_fails_the_action_with_a_record(board: Board,
                                                                              receiver: Receiver) -> None:
    """A header value with a line break (an item name may hold one) cannot be sent: the run still ends in a
    record instead of an endless retry of a job that never finishes."""
    await create(board, actions=[webhook(receiver.url, headers={"X-Item": "{item.name}"}),
                                 webhook(receiver.url, body="after")])
    await board.add_item("Two\nlines")
    [run] = await runs(board, 1)
    assert run["status"] == "partial_failure", run
    refused, sent = run["actionResults"]
    assert refused["success"] is False and refused["error"].startswith("request failed: ")
    assert sent == {"type": "call_webhook", "success": True}
    request = await receiver.next()
    assert request.body == b"after" and "X-Item" not in request.headers
    assert receiver.requests.empty()


async def test_create_refuses_a_webhook_with_a_bad_method_or_url_naming_the_field(board: Board) -> None:
    api = board.api
    bad_method = await api.mutate("automations.create", rule(board.id, actions=[
        webhook("https://example.test/hook", "FETCH")]))
    # A refused definition is a validation error: 400 BAD_REQUEST over RPC (422 VALIDATION_ERROR over REST).
    assert bad_method.status == 400, bad_method.body
    assert bad_method.error["data"]["code"] == "BAD_REQUEST"
    assert [d["field"] for d in bad_method.error["data"]["details"]] == ["actions.0.config.method"]
    assert "POST" in bad_method.error["data"]["details"][0]["message"]

    bad_url = await api.mutate("automations.create", rule(board.id, actions=[webhook("ftp://x", "POST")]))
    assert bad_url.status == 400, bad_url.body
    assert [d["field"] for d in bad_url.error["data"]["details"]] == ["actions.0.config.url"]
    assert "http" in bad_url.error["data"]["details"][0]["message"]

    second = await api.mutate("automations.create", rule(board.id, actions=[
        {"type": "archive_item"}, webhook("not a url", "POST")]))
    assert second.status == 400 and [d["field"] for d in second.error["data"]["details"]] == [
        "actions.1.config.url"]
    no_method = await api.mutate("automations.create", rule(board.id, actions=[
        {"type": "call_webhook", "config": {"url": "https://example.test/hook"}}]))
    assert no_method.status == 400 and [d["field"] for d in no_method.error["data"]["details"]] == [
        "actions.0.config.method"]
    assert (await api.query("automations.list", {"boardId": board.id})).data["automations"] == []
