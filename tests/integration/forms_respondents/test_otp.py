"""forms.requestOtp and forms.verifyOtp on the test's clock, with the codes read from the real SMTP sink:
the session token and what it is good for, expiry at 10 minutes, 5 wrong attempts, the hourly limit, a new
code voiding the old, requests that mail nothing yet answer the same, and tenant isolation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from actors.forms.respondents import session_email
from actors.runtime.clock import ManualClock
from tests.harness import Api, make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.forms_respondents.conftest import mailed, make_form, otp_code, settle
from tests.smtp_sink import QUIET_PLAIN_AUTH, Sink
from web.keys import NODE

pytestmark = QUIET_PLAIN_AUTH
EMAIL = "resp@outside.test"


async def request_code(on: Board, form: dict[str, Any], email: str = EMAIL, api: Api | None = None,
                       **extra: Any) -> None:
    reply = await (api or on.org.anonymous).mutate("forms.requestOtp", {
        "formSlug": form["slug"], "organizationSlug": on.org.slug, "email": email, **extra})
    assert reply.status == 200 and reply.data == {"sent": True}, reply.body
    await settle(on.org.anonymous)


async def verify(on: Board, form_id: str, code: str, email: str = EMAIL, api: Api | None = None) -> dict[str, Any]:
    reply = await (api or on.org.anonymous).mutate("forms.verifyOtp", {"formId": form_id, "email": email,
                                                                       "code": code})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def codes_stored(on: Board, email: str = EMAIL) -> int:
    pool = on.org.anonymous.client.server.app[NODE].pool
    count: int = await pool.fetchval(
        "SELECT count(*) FROM emails WHERE organization_id = $1 AND recipient = $2 AND kind = 'form_otp'",
        on.org.id, email)
    return count


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


async def test_a_code_opens_a_session_for_its_form_and_email_only(board: Board, sink: Sink) -> None:
    form, other_form = await make_form(board), await make_form(board, name="Another")
    await request_code(board, form, "Resp@Outside.test")
    [message] = await mailed(sink, "resp@outside.test")
    code = otp_code(message)
    assert form["name"] in message["Subject"] and code not in message["Subject"]
    stored = await board.org.anonymous.client.server.app[NODE].pool.fetchrow(
        """SELECT e.body, o.code_hash FROM emails e JOIN form_otps o ON o.organization_id = e.organization_id
            WHERE e.organization_id = $1 AND e.recipient = $2 AND o.email = $2""", board.org.id, EMAIL)
    assert code not in stored["body"] and code not in stored["code_hash"]  # redacted mail, keyed hash

    assert await verify(board, other_form["id"], code) == {
        "valid": False, "error": "no valid code for this form and e-mail: request a new one"}
    assert (await verify(board, form["id"], code, email="someone@else.test"))["valid"] is False
    opened = await verify(board, form["id"], code, email="RESP@outside.test")
    assert opened["valid"] is True and opened["sessionToken"].startswith("svc_fst_")
    assert len(opened["sessionToken"]) == len("svc_fst_") + 43

    node = board.org.anonymous.client.server.app[NODE]
    async with node.pool.acquire() as conn:
        now = node.clock.now()
        assert await session_email(conn, board.org.id, form["id"], opened["sessionToken"], now) == EMAIL
        assert await session_email(conn, board.org.id, other_form["id"], opened["sessionToken"], now) is None
    assert (await verify(board, form["id"], code))["valid"] is False  # used once


async def test_a_code_expires_after_ten_minutes_and_a_session_after_a_day(board: Board, sink: Sink,
                                                                          clock: ManualClock) -> None:
    form = await make_form(board)
    await request_code(board, form)
    first = otp_code((await mailed(sink, EMAIL))[0])
    clock.advance(10 * 60)
    expired = {"valid": False, "error": "the code has expired: request a new one"}
    assert await verify(board, form["id"], first) == expired

    await request_code(board, form)
    second = otp_code((await mailed(sink, EMAIL, 2))[1])
    clock.advance(10 * 60 - 1)
    opened = await verify(board, form["id"], second)
    assert opened["valid"] is True
    node = board.org.anonymous.client.server.app[NODE]
    async with node.pool.acquire() as conn:
        assert await session_email(conn, board.org.id, form["id"], opened["sessionToken"],
                                   clock.now() + timedelta(hours=23)) == EMAIL
        clock.advance(24 * 3600)
        assert await session_email(conn, board.org.id, form["id"], opened["sessionToken"], clock.now()) is None


async def test_the_fifth_wrong_attempt_voids_the_code(board: Board, sink: Sink) -> None:
    form = await make_form(board)
    await request_code(board, form)
    code = otp_code((await mailed(sink, EMAIL))[0])
    for _ in range(4):
        assert await verify(board, form["id"], wrong(code)) == {"valid": False, "error": "wrong code"}
    assert (await verify(board, form["id"], code))["valid"] is True  # four wrong guesses leave it usable

    await request_code(board, form)
    code = otp_code((await mailed(sink, EMAIL, 2))[1])
    for _ in range(4):
        await verify(board, form["id"], wrong(code))
    assert await verify(board, form["id"], wrong(code)) == {
        "valid": False, "error": "wrong code; too many attempts: request a new one"}
    assert (await verify(board, form["id"], code))["valid"] is False


async def test_a_new_code_voids_the_older_one(board: Board, sink: Sink) -> None:
    form = await make_form(board)
    await request_code(board, form)
    await request_code(board, form)
    old, new = (otp_code(message) for message in await mailed(sink, EMAIL, 2))
    if old != new:  # one in a million they are equal
        assert (await verify(board, form["id"], old))["valid"] is False
    assert (await verify(board, form["id"], new))["valid"] is True


async def test_at_most_five_codes_an_hour_per_email(board: Board, sink: Sink, clock: ManualClock) -> None:
    form, other_form = await make_form(board), await make_form(board, name="Another")
    for index in range(5):
        await request_code(board, form if index % 2 else other_form)
        clock.advance(60)
    assert await codes_stored(board) == 5
    await request_code(board, form)  # the sixth within the hour: answered the same, nothing mailed
    assert await codes_stored(board) == 5
    await request_code(board, form, "another@outside.test")  # another e-mail has its own count
    assert await codes_stored(board, "another@outside.test") == 1
    await mailed(sink, EMAIL, 5)

    clock.advance(3600 - 4 * 60)  # the first code is now more than an hour old
    await request_code(board, form)
    assert await codes_stored(board) == 6
    code = otp_code((await mailed(sink, EMAIL, 6))[-1])
    assert (await verify(board, form["id"], code))["valid"] is True


async def test_requests_that_mail_nothing_answer_the_same(board: Board, sink: Sink) -> None:
    draft, closed = await make_form(board, status="draft"), await make_form(board, status="closed")
    published = await make_form(board)
    await request_code(board, draft)
    await request_code(board, closed)
    await request_code(board, {"slug": "no-such-form"})
    await request_code(board, published, api=None, organizationSlug="some-other-org")
    on_bare_host = await board.org.anonymous.on_host("localhost").mutate("forms.requestOtp", {
        "formSlug": published["slug"], "organizationSlug": board.org.slug, "email": EMAIL})
    assert on_bare_host.data == {"sent": True}
    await settle(board.org.anonymous)
    assert await codes_stored(board) == 0
    bad = await board.org.anonymous.mutate("forms.requestOtp", {"formSlug": published["slug"],
                                                                "organizationSlug": board.org.slug, "email": "x"})
    assert bad.status == 400
    assert (await board.org.anonymous.mutate("forms.verifyOtp", {"formId": published["id"], "email": EMAIL,
                                                                 "code": "12345"})).status == 400


async def test_tenant_isolation(board: Board, sink: Sink) -> None:
    form = await make_form(board)
    other = await make_board(await make_org(board.org.anonymous.client))
    # Asked on the other organization's host, naming this one: nothing.
    await request_code(board, form, api=other.org.anonymous)
    assert await codes_stored(board) == 0
    await request_code(board, form)
    code = otp_code((await mailed(sink, EMAIL))[0])
    assert (await verify(board, form["id"], code, api=other.org.anonymous))["valid"] is False
    assert (await verify(board, form["id"], code))["valid"] is True
