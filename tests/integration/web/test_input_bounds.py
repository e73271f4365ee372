"""Bounds every input holds whatever its procedure declares (web/inputs.py): JSON nested past 64 levels and
integers past 64 bits are bad input naming the field (400 over RPC, 422 over REST, 400 in both for `limit`,
`cursor`), in single calls, batches and REST bodies and queries, and Socket.IO events; so is a cursor whose key is out
of range — never a 500, and no traceback logged."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest

from protocol.pagination import encode_cursor
from server.logging_setup import configure_logging
from tests.harness import Org, Reply
from tests.integration.automations.conftest import rule
from tests.integration.boards.conftest import Board, make_board
from tests.integration.live.conftest import Screen
from tests.plain_logging import use_plain_tracebacks


@pytest.fixture
def logs(capsys: pytest.CaptureFixture[str]) -> Iterator[pytest.CaptureFixture[str]]:
    configure_logging(cache=False)
    try:
        yield capsys
    finally:
        use_plain_tracebacks()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def _send(org: Org, method: str, path: str, body: str | None = None) -> Reply:
    api = org.owner
    headers = api.headers({"Content-Type": "application/json"} if body is not None else None)
    async with api.client.request(method, path, data=body, headers=headers) as response:
        return await api._reply(response)


def assert_too_deep(reply: Reply, status: int) -> None:
    assert reply.status == status, (reply.status, str(reply.body)[:300])
    error = reply.body["error"]
    details = error["data"]["details"] if "data" in error else error["details"]
    assert details == [{"field": "input", "message": "nests more than 64 levels deep"}]


def assert_no_traceback(logs: pytest.CaptureFixture[str]) -> None:
    output = logs.readouterr().err
    assert "unhandled_error" not in output and "Traceback" not in output and "RecursionError" not in output


async def test_rpc_get_with_json_nested_1000_levels_is_a_400(org: Org, logs: pytest.CaptureFixture[str]) -> None:
    deep = quote(f'{{"json":{{"id":{nested(1000)}}}}}')
    assert_too_deep(await _send(org, "GET", f"/api/trpc/auth.me?input={deep}"), 400)
    batch = quote(f'{{"0":{{"json":{nested(1000)}}}}}')
    assert_too_deep(await _send(org, "GET", f"/api/trpc/auth.me,auth.me?batch=1&input={batch}"), 400)
    assert_no_traceback(logs)


@pytest.mark.parametrize("depth", [1000, 100_000])
async def test_rpc_post_batch_and_rest_with_deep_json_answer_bad_input(
        org: Org, logs: pytest.CaptureFixture[str], depth: int) -> None:
    deep = nested(depth)
    assert_too_deep(await _send(org, "POST", "/api/trpc/projects.create", f'{{"json":{deep}}}'), 400)
    assert_too_deep(await _send(org, "POST", "/api/trpc/projects.create", deep), 400)
    batch = f'{{"0":{{"json":{{"name":"x"}}}},"1":{{"json":{{"name":{deep}}}}}}}'
    assert_too_deep(await _send(org, "POST", "/api/trpc/projects.create,projects.create?batch=1", batch), 400)
    assert_too_deep(await _send(org, "POST", "/api/v1/webhooks", f'{{"url":{deep}}}'), 422)
    # superjson's meta tree is walked recursively: it is bounded too.
    meta = f'{{"json":{{}},"meta":{{"values":{{"a":{deep}}}}}}}'
    assert_too_deep(await _send(org, "POST", "/api/trpc/projects.create", meta), 400)
    assert_no_traceback(logs)


async def test_nesting_up_to_the_limit_is_accepted(org: Org) -> None:
    """A call_webhook body (any JSON) nested 50 levels fits in the 64 levels of the whole request; 70 do not."""
    board = await make_board(org)

    def body(depth: int) -> Any:
        value: Any = "leaf"
        for _ in range(depth):
            value = {"v": value}
        return value

    def definition(depth: int) -> dict[str, Any]:
        return rule(board.id, actions=[{"type": "call_webhook", "config": {
            "url": "https://93.184.215.14/hook", "method": "POST", "body": body(depth)}}])

    accepted = await board.api.mutate("automations.create", definition(50))
    assert accepted.status == 200, accepted.body
    assert_too_deep(await board.api.mutate("automations.create", definition(70)), 400)


def assert_refused(reply: Reply, status: int, field: str) -> None:
    assert reply.status == status, (reply.status, reply.body)
    error = reply.body["error"]
    details = error["data"]["details"] if "data" in error else error["details"]
    assert [detail["field"] for detail in details] == [field], details


@pytest.mark.parametrize("since", [10**30, 2**63, -(2**63) - 1])
async def test_events_since_past_64_bits_is_a_400_naming_since(org: Org, logs: pytest.CaptureFixture[str],
                                                              since: int) -> None:
    board = await make_board(org)
    stream = f"board:{board.id}"
    rpc = await org.owner.query("events.list", {"stream": stream, "since": since})
    assert_refused(rpc, 400, "since")
    assert "must be an integer from -9223372036854775808 to 9223372036854775807" in rpc.body["error"]["message"]
    rest = await org.owner.rest("GET", "/api/v1/events", params={"stream": stream, "since": str(since)})
    assert_refused(rest, 422, "since")
    assert_no_traceback(logs)


async def test_the_largest_64_bit_since_is_answered(org: Org) -> None:
    board = await make_board(org)
    reply = await org.owner.query("events.list", {"stream": f"board:{board.id}", "since": 2**63 - 1})
    assert reply.status == 200, reply.body
    assert reply.data["events"] == []


async def test_limit_and_cursor_past_64_bits_are_400s_in_both_styles(org: Org) -> None:
    board = await make_board(org)
    stream = f"board:{board.id}"
    assert_refused(await org.owner.query("events.list", {"stream": stream, "limit": 10**30}), 400, "limit")
    assert_refused(await org.owner.rest("GET", "/api/v1/events", params={"stream": stream, "limit": str(10**30)}),
                   400, "limit")
    for cursor in (encode_cursor(10**30, "x"), encode_cursor(0, 10**30, "x"), encode_cursor(2**63, 1.5, "x")):
        listed = await board.api.query("items.list", {"boardId": board.id, "cursor": cursor})
        assert_refused(listed, 400, "cursor")
        rest = await org.owner.rest("GET", "/api/v1/webhooks/whk_x/deliveries", params={"cursor": cursor})
        assert rest.status in (400, 404) and rest.status != 500
    deep_cursor = encode_cursor(json.loads(nested(500)), "x")
    assert_refused(await board.api.query("items.list", {"boardId": board.id, "cursor": deep_cursor}), 400, "cursor")


async def test_an_integer_past_64_bits_anywhere_in_the_input_is_named(org: Org) -> None:
    board = await make_board(org)
    reply = await board.api.mutate("automations.create", rule(board.id, actions=[{"type": "call_webhook", "config": {
        "url": "https://93.184.215.14/hook", "method": "POST", "body": {"count": 10**30}}}]))
    assert_refused(reply, 400, "actions.0.config.body.count")
    rest = await org.owner.rest("POST", "/api/v1/webhooks", {
        "url": "https://93.184.215.14/", "events": ["item.created"], "description": 2**64})
    assert_refused(rest, 422, "description")


THIRTY_NINES = "9" * 30
SOCKET = "Socket.IO subscribe since"


async def _screen_subscribe(org: Org, board: Board, since: int) -> tuple[int, dict[str, Any]]:
    """A Socket.IO subscribe refused: its error, and the status its code stands for (BAD_REQUEST: 400)."""
    screen = Screen()
    try:
        await screen.connect(org.owner)
        answer = await screen.call("subscribe", {"room": f"board:{board.id}", "since": since})
    finally:
        await screen.close()
    assert answer["ok"] is False, answer
    return {"BAD_REQUEST": 400}.get(answer["error"]["code"], 0), answer["error"]


async def _rpc(reply: Awaitable[Reply]) -> tuple[int, dict[str, Any]]:
    answered = await reply
    error = answered.body["error"] if answered.status != 200 else {}
    return answered.status, {"message": error.get("message"), **error.get("data", {})}


async def _rest(reply: Awaitable[Reply]) -> tuple[int, dict[str, Any]]:
    answered = await reply
    return answered.status, answered.body.get("error", {}) if answered.status != 200 else {}


ENTRY_POINTS: dict[str, tuple[Callable[[Org, Board], Awaitable[tuple[int, dict[str, Any]]]], int, str]] = {
    "events.list cursor": (lambda org, board: _rpc(org.owner.query(
        "events.list", {"stream": f"board:{board.id}", "cursor": THIRTY_NINES})), 400, "cursor"),
    "events.list since": (lambda org, board: _rpc(org.owner.query(
        "events.list", {"stream": f"board:{board.id}", "since": int(THIRTY_NINES)})), 400, "since"),
    "GET /api/v1/events cursor": (lambda org, board: _rest(org.owner.rest(
        "GET", "/api/v1/events", params={"stream": f"board:{board.id}", "cursor": THIRTY_NINES})), 400, "cursor"),
    "GET /api/v1/events since": (lambda org, board: _rest(org.owner.rest(
        "GET", "/api/v1/events", params={"stream": f"board:{board.id}", "since": THIRTY_NINES})), 422, "since"),
    "items.list forged cursor": (lambda org, board: _rpc(board.api.query(
        "items.list", {"boardId": board.id, "cursor": encode_cursor(int(THIRTY_NINES), 0, "itm_x")})), 400,
        "cursor"),
    "GET /api/v1/items limit": (lambda org, board: _rest(org.owner.rest(
        "GET", "/api/v1/items", params={"boardId": board.id, "limit": str(2**64)})), 400, "limit"),
    "kpis.setValue value": (lambda org, board: _rpc(org.owner.mutate(
        "kpis.setValue", {"kpiId": "kpi_x", "value": 2**64})), 400, "value"),
    "POST /api/v1/kpis/{id}/values value": (lambda org, board: _rest(org.owner.rest(
        "POST", "/api/v1/kpis/kpi_x/values", {"value": 2**64})), 422, "value"),
    "automations.getExecutionHistory cursor before year 1 in UTC": (lambda org, board: _rpc(org.owner.query(
        "automations.getExecutionHistory", {"boardId": board.id, "cursor": "0001-01-01T00:00:00+14:00"})), 400,
        "cursor"),
    SOCKET: (lambda org, board: _screen_subscribe(org, board, 2**64), 400, "since"),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
async def test_an_integer_or_cursor_out_of_range_is_refused_naming_it(org: Org, logs: pytest.CaptureFixture[str],
                                                                      entry: str) -> None:
    call, status, field = ENTRY_POINTS[entry]
    answered, error = await call(org, await make_board(org))
    assert answered == status, (answered, error)
    assert field in error["message"], error
    if entry != SOCKET:  # a Socket.IO error carries its code and message only
        assert [detail["field"] for detail in error["details"]] == [field], error
    assert_no_traceback(logs)
