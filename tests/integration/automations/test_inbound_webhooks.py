"""The `webhook.received` trigger: an external system posts to a rule's inbound URL on the organization's
host, proving it knows the rule's secret by an HMAC signature of the raw body or the secret as a token. The
answers it gets, and the runs it makes (on the item it names, or on none)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from protocol.json_bounds import MAX_DEPTH
from server.config import DEFAULT_PORT
from tests.harness import Reply, make_org
from tests.integration.automations.conftest import create, engine_idle, runs
from tests.integration.boards.conftest import Board, make_board
from tests.integration.webhooks.conftest import Receiver

pytestmark = pytest.mark.workers("automations")


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


async def hook_rule(board: Board, **fields: Any) -> dict[str, Any]:
    fields.setdefault("actions", [{"type": "send_notification", "config": {
        "userIds": [board.org.owner_id], "message": "Hook for {board.name}"}}])
    return await create(board, trigger={"type": "webhook.received", "config": {}}, **fields)


async def post(board: Board, automation: dict[str, Any], body: bytes, headers: dict[str, str] | None = None,
               host: str | None = None) -> Reply:
    """POST `body` as is to the rule's inbound URL, without any credential of the organization."""
    path = urlsplit(automation["inbound"]["url"]).path
    client = board.org.anonymous.client
    async with client.post(path, data=body, headers={"Host": host or board.org.host, **(headers or {})}) as reply:
        text = await reply.text()
        return Reply(reply.status, json.loads(text) if text else None, reply.headers)


async def signed(board: Board, automation: dict[str, Any], payload: Any = None, headers: dict[str, str] | None = None,
                 host: str | None = None) -> Reply:
    body = b"" if payload is None else json.dumps(payload).encode()
    return await post(board, automation, body, {"Content-Type": "application/json",
                                                "X-Svc-Signature": signature(automation["inbound"]["secret"], body),
                                                **(headers or {})}, host)


ACCEPTED = {"data": {"accepted": True, "duplicate": False}}


def refused(reply: Reply, status: int, code: str) -> dict[str, Any]:
    assert reply.status == status, reply.body
    error = reply.body["error"]
    assert error["status"] == status and error["code"] == code, reply.body
    return dict(error)


async def no_more_runs(board: Board, count: int) -> None:
    """Once the engine is idle, the board still has exactly `count` runs."""
    await engine_idle(board)
    history = await board.api.query("automations.getExecutionHistory", {"boardId": board.id})
    assert len(history.data["items"]) == count, history.data


async def test_a_signed_webhook_runs_the_rule(board: Board) -> None:
    automation = await hook_rule(board, name="From the MES")
    inbound = automation["inbound"]
    assert inbound["url"] == f"http://{board.org.slug}.localhost:{DEFAULT_PORT}/api/v1/automations/{automation['id']}/webhook"
    assert inbound["secret"].startswith("ahs_") and len(inbound["secret"]) > 30
    listed = await board.api.query("automations.list", {"boardId": board.id})
    assert listed.data["automations"][0]["inbound"] == inbound
    guest_id, guest = await board.org.add_user("guest")
    project = await board.api.query("projects.get", {"id": board.project_id})
    await board.api.mutate("workspaces.members.add", {"workspaceId": project.data["workspaceId"], "userId": guest_id})
    seen_by_guest = await guest.query("automations.list", {"boardId": board.id})
    assert seen_by_guest.status == 200, seen_by_guest.body
    assert seen_by_guest.data["automations"][0]["inbound"] == {"url": inbound["url"], "secret": None}

    reply = await signed(board, automation, {"source": "mes", "line": 4})
    assert reply.status == 202 and reply.body == ACCEPTED

    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["error"] is None
    assert run["automationRuleId"] == automation["id"]
    assert run["triggerType"] == "webhook.received" and run["itemId"] is None
    assert run["actionResults"] == [{"type": "send_notification", "success": True}]
    notes = await board.api.query("notifications.list", {"limit": 5})
    [note] = notes.data["notifications"]
    assert note["title"] == "From the MES" and note["body"] == "Hook for Tier 1 board"
    assert note["entityId"] == board.id


async def test_the_secret_as_a_token_or_an_empty_body_is_accepted(board: Board) -> None:
    automation = await hook_rule(board)
    by_token = await post(board, automation, b'{"a": 1}', {"X-Svc-Token": automation["inbound"]["secret"]})
    assert by_token.status == 202 and by_token.body == ACCEPTED
    empty = await signed(board, automation, None)
    assert empty.status == 202 and empty.body == ACCEPTED
    history = await runs(board, 2)
    assert [run["status"] for run in history] == ["success", "success"]
    await no_more_runs(board, 2)


async def test_without_the_secret_the_webhook_is_unauthorized(board: Board) -> None:
    automation = await hook_rule(board)
    secret = automation["inbound"]["secret"]
    body = b'{"source": "mes"}'
    attempts = [
        {},
        {"X-Svc-Signature": signature("ahs_not-the-secret", body)},
        {"X-Svc-Signature": signature(secret, b'{"source": "someone else"}')},  # signed another body
        {"X-Svc-Signature": secret},
        {"X-Svc-Token": "ahs_not-the-secret"},
        {"X-Svc-Token": ""},
        # A wrong signature is not rescued by a right token: the signature is what is checked.
        {"X-Svc-Signature": "sha256=" + "0" * 64, "X-Svc-Token": secret},
        # Non-ASCII text where the hex or the secret belongs is just as wrong (not a server error).
        {"X-Svc-Signature": "sha256=é" + signature(secret, body)[8:]},
        {"X-Svc-Token": secret + "é"},
    ]
    for headers in attempts:
        error = refused(await post(board, automation, body, headers), 401, "UNAUTHORIZED")
        assert "secret" in error["message"], error
    # The secret of another rule does not open this one.
    other = await hook_rule(board, name="Other")
    refused(await post(board, automation, body, {"X-Svc-Token": other["inbound"]["secret"]}), 401, "UNAUTHORIZED")
    await no_more_runs(board, 0)


async def test_upper_case_hex_in_the_signature_is_accepted(board: Board) -> None:
    automation = await hook_rule(board)
    body = b'{"x": true}'
    reply = await post(board, automation, body, {"X-Svc-Signature": signature(automation["inbound"]["secret"],
                                                                               body).upper()})
    assert reply.status == 202, reply.body
    assert len(await runs(board, 1)) == 1


async def test_a_disabled_rule_answers_409_until_enabled_again(board: Board) -> None:
    automation = await hook_rule(board)
    off = await board.api.mutate("automations.toggle", {"id": automation["id"], "enabled": False})
    assert off.status == 200 and off.data["inbound"] == automation["inbound"]
    error = refused(await signed(board, automation, {"n": 1}), 409, "CONFLICT")
    assert "disabled" in error["message"]
    # Without the secret a disabled rule still says 401: only the secret's holder learns it is off.
    refused(await post(board, automation, b"{}", {"X-Svc-Token": "wrong"}), 401, "UNAUTHORIZED")
    await no_more_runs(board, 0)

    on = await board.api.mutate("automations.toggle", {"id": automation["id"], "enabled": True})
    assert on.status == 200 and on.data["inbound"]["secret"] == automation["inbound"]["secret"]
    assert (await signed(board, automation, {"n": 2})).status == 202
    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["triggerType"] == "webhook.received"


def posing_as(automation: dict[str, Any], automation_id: str) -> dict[str, Any]:
    """`automation` with its inbound URL pointed at `automation_id` instead (same secret)."""
    url = automation["inbound"]["url"].replace(automation["id"], automation_id)
    return {"id": automation_id, "inbound": {**automation["inbound"], "url": url}}


async def test_unknown_rules_other_hosts_and_other_triggers_are_not_found(board: Board) -> None:
    automation = await hook_rule(board)
    other = await make_org(board.org.anonymous.client)
    refused(await signed(board, automation, {}, host=other.host), 404, "NOT_FOUND")
    refused(await signed(board, automation, {}, host="localhost"), 404, "NOT_FOUND")  # the service's own host
    refused(await signed(board, posing_as(automation, "aut_doesnotexist"), {}), 404, "NOT_FOUND")

    # Another organization's rule, posted to on this organization's host, with its own secret.
    other_board = await make_board(other)
    theirs = await hook_rule(other_board)
    refused(await signed(board, theirs, {}, host=board.org.host), 404, "NOT_FOUND")

    # A rule with another trigger has no inbound URL: posting to its would-be URL is not found.
    plain = await create(board, name="Plain")
    assert "inbound" not in plain
    refused(await signed(board, posing_as(automation, plain["id"]), {}), 404, "NOT_FOUND")
    await no_more_runs(board, 0)

    assert (await signed(other_board, theirs, {})).status == 202  # their rule works on their host
    [run] = await runs(other_board, 1)
    assert run["automationRuleId"] == theirs["id"]


async def test_a_body_that_is_not_a_json_object_or_names_a_foreign_item_is_a_bad_request(board: Board) -> None:
    automation = await hook_rule(board)
    secret = automation["inbound"]["secret"]
    for body in (b"[1, 2]", b'"text"', b"42", b"null", b"{not json"):
        reply = await post(board, automation, body, {"X-Svc-Signature": signature(secret, body)})
        error = refused(reply, 400, "BAD_REQUEST")
        assert [detail["field"] for detail in error["details"]] == ["body"], (body, error)

    other_board = await make_board(board.org)
    foreign = await other_board.add_item("Elsewhere")
    archived = await board.add_item("Old")
    assert (await board.api.mutate("items.archive", {"id": archived["id"]})).status == 200
    for item_id in ("itm_doesnotexist", foreign["id"], archived["id"], 17, ["x"]):
        error = refused(await signed(board, automation, {"itemId": item_id}), 400, "BAD_REQUEST")
        assert [detail["field"] for detail in error["details"]] == ["itemId"], (item_id, error)
    await no_more_runs(board, 0)


async def test_text_postgres_cannot_store_is_a_bad_request_not_a_server_error(board: Board) -> None:
    """JSON may escape a NUL character; PostgreSQL text and jsonb cannot hold one."""
    automation = await hook_rule(board)
    refused(await signed(board, automation, {"note": "a\u0000b"}), 400, "BAD_REQUEST")
    refused(await signed(board, automation, {"itemId": "itm_\u0000"}), 400, "BAD_REQUEST")
    refused(await signed(board, automation, {"a\u0000": 1}), 400, "BAD_REQUEST")
    await no_more_runs(board, 0)


async def test_a_body_nested_too_deeply_is_a_bad_request(board: Board) -> None:
    automation = await hook_rule(board)
    body = b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    reply = await post(board, automation, body, {"X-Svc-Signature": signature(automation["inbound"]["secret"], body)})
    error = refused(reply, 400, "BAD_REQUEST")
    assert [detail["field"] for detail in error["details"]] == ["body"]
    await no_more_runs(board, 0)


async def test_a_body_past_the_input_bounds_is_a_bad_request_naming_it(board: Board) -> None:
    """The bounds of every input (protocol/json_bounds.py): 65 levels (which the decoder still reads, so no
    RecursionError stops it) and an integer past 64 bits, which no later step may have to carry."""
    automation = await hook_rule(board)
    nested: Any = 1
    for _ in range(MAX_DEPTH):
        nested = [nested]
    error = refused(await signed(board, automation, {"a": nested}), 400, "BAD_REQUEST")
    assert [detail["field"] for detail in error["details"]] == ["body"]
    error = refused(await signed(board, automation, {"count": 10**30, "ok": [2**63 - 1, -(2**63)]}),
                    400, "BAD_REQUEST")
    assert [detail["field"] for detail in error["details"]] == ["body.count"]
    await no_more_runs(board, 0)


async def test_header_bytes_that_are_not_utf8_are_unauthorized(board: Board) -> None:
    automation = await hook_rule(board)
    client = board.org.anonymous.client
    path = urlsplit(automation["inbound"]["url"]).path
    for header in (b"X-Svc-Token: \xff\xfe", b"X-Svc-Signature: sha256=\xff"):
        reader, writer = await asyncio.open_connection(client.host, client.port)
        writer.write(f"POST {path} HTTP/1.1\r\nHost: {board.org.host}\r\nContent-Length: 2\r\n"
                     "Connection: close\r\n".encode() + header + b"\r\n\r\n{}")
        await writer.drain()
        response = await reader.read()
        writer.close()
        await writer.wait_closed()
        head, _, body = response.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 401 "), response
        assert json.loads(body)["error"]["code"] == "UNAUTHORIZED"
    await no_more_runs(board, 0)


async def test_a_body_over_256_kb_is_refused(board: Board) -> None:
    automation = await hook_rule(board)
    refused(await signed(board, automation, {"blob": "x" * (256 * 1024)}), 413, "PAYLOAD_TOO_LARGE")
    await no_more_runs(board, 0)


async def test_an_item_id_makes_the_run_act_on_that_item(board: Board) -> None:
    column = await board.api.mutate("columns.create", {"boardId": board.id, "name": "Note", "type": "text"})
    assert column.status == 200, column.body
    note = column.data["id"]
    automation = await hook_rule(board, actions=[
        {"type": "set_value", "config": {"columnId": note, "value": "{item.name} flagged by the MES"}}])
    item = await board.add_item("Valve 9")
    bystander = await board.add_item("Other")

    reply = await signed(board, automation, {"itemId": item["id"], "reason": "pressure"})
    assert reply.status == 202 and reply.body == ACCEPTED
    [run] = await runs(board, 1)
    assert run["status"] == "success" and run["itemId"] == item["id"], run
    assert run["triggerType"] == "webhook.received"
    assert run["actionResults"] == [{"type": "set_value", "success": True}]
    changed = await board.api.query("items.get", {"id": item["id"]})
    assert changed.data["values"][note] == "Valve 9 flagged by the MES"
    untouched = await board.api.query("items.get", {"id": bystander["id"]})
    assert untouched.data["values"].get(note) is None


async def test_without_an_item_item_actions_fail_and_the_others_work(board: Board) -> None:
    automation = await hook_rule(board, name="Shift report", actions=[
        {"type": "set_value", "config": {"columnId": board.column("status")["id"], "value": "Done"}},
        {"type": "send_notification", "config": {"userIds": [board.org.owner_id], "message": "Report in"}},
        {"type": "create_item", "config": {"boardId": board.id, "groupId": board.group_id,
                                           "name": "Follow up on {board.name}"}}])
    assert (await signed(board, automation, {"shift": "late"})).status == 202
    [run] = await runs(board, 1)
    assert run["status"] == "partial_failure" and run["itemId"] is None
    assert run["actionResults"] == [
        {"type": "set_value", "success": False, "error": "this run has no item to act on"},
        {"type": "send_notification", "success": True},
        {"type": "create_item", "success": True}]
    assert run["error"] == "set_value: this run has no item to act on"
    notes = await board.api.query("notifications.list", {"limit": 5})
    assert [note["body"] for note in notes.data["notifications"]] == ["Report in"]
    items = await board.api.query("items.list", {"boardId": board.id})
    assert items.status == 200, items.body
    assert [i["name"] for i in items.data["items"]] == ["Follow up on Tier 1 board"]


async def test_a_webhook_run_passes_what_it_received_to_call_webhook(board: Board, receiver: Receiver) -> None:
    automation = await hook_rule(board, name="Relay", actions=[
        {"type": "call_webhook", "config": {"url": receiver.url, "method": "POST"}}])
    item = await board.add_item("Press 2")
    payload = {"itemId": item["id"], "reading": {"bar": 7.5}, "tags": ["a", "b"]}
    assert (await signed(board, automation, payload)).status == 202
    relayed = json.loads((await receiver.next()).body)
    [run] = await runs(board, 1)
    assert run["status"] == "success"
    assert relayed["trigger"] == "webhook.received" and relayed["received"] == payload
    assert relayed["automation"] == {"id": automation["id"], "name": "Relay"}
    assert relayed["item"]["id"] == item["id"] and relayed["item"]["name"] == "Press 2"


async def test_a_repeated_delivery_id_runs_once(board: Board) -> None:
    automation = await hook_rule(board)
    first = await signed(board, automation, {"n": 1}, {"webhook-id": "msg_1"})
    again = await signed(board, automation, {"n": 1}, {"webhook-id": "msg_1"})
    assert first.status == 202 and first.body == ACCEPTED
    assert again.status == 202 and again.body == {"data": {"accepted": True, "duplicate": True}}
    assert len(await runs(board, 1)) == 1
    await no_more_runs(board, 1)

    # X-Svc-Delivery names a delivery too; a new id is a new run.
    by_delivery = await signed(board, automation, {"n": 2}, {"X-Svc-Delivery": "dlv_7"})
    by_delivery_again = await signed(board, automation, {"n": 2}, {"X-Svc-Delivery": "dlv_7"})
    fresh = await signed(board, automation, {"n": 3}, {"webhook-id": "msg_2"})
    assert by_delivery.body == ACCEPTED and fresh.body == ACCEPTED
    assert by_delivery_again.body == {"data": {"accepted": True, "duplicate": True}}
    assert len(await runs(board, 3)) == 3
    await no_more_runs(board, 3)

    # Without a delivery id every post is a run of its own.
    for _ in range(2):
        assert (await signed(board, automation, {"n": 4})).body == ACCEPTED
    assert len(await runs(board, 5)) == 5
    await no_more_runs(board, 5)
