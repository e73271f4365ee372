"""forms.createDistribution, getDistributionStatus and sendReminders: the mails and their links through the
real SMTP sink, the stages a tracking token moves its recipient through, the stats, reminders, and who may
do what."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from actors.forms.respondents import recipient_stage
from actors.kernel.mailer import REDACTED
from tests.harness import make_org
from tests.integration.boards.conftest import Board, make_board
from tests.integration.forms_respondents.conftest import content, link_token, mailed, make_form, settle
from tests.smtp_sink import QUIET_PLAIN_AUTH
from web.keys import NODE

pytestmark = QUIET_PLAIN_AUTH


async def distribute(on: Board, form: dict[str, Any], *recipients: dict[str, Any]) -> dict[str, Any]:
    reply = await on.api.mutate("forms.createDistribution", {"formId": form["id"], "recipients": list(recipients)})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def status(on: Board, form: dict[str, Any]) -> dict[str, Any]:
    reply = await on.api.query("forms.getDistributionStatus", {"formId": form["id"]})
    assert reply.status == 200, reply.body
    return dict(reply.data)


async def stage(on: Board, form: dict[str, Any], token: str, to: str) -> None:
    node = on.org.anonymous.client.server.app[NODE]
    async with node.pool.acquire() as conn:
        assert await recipient_stage(conn, on.org.id, form["id"], token, to, node.clock.now()) is not None  # type: ignore[arg-type]


async def test_each_recipient_is_mailed_a_link_with_a_token_of_their_own(board: Board, sink: Any) -> None:
    form = await make_form(board)
    sent = await distribute(board, form, {"email": "ann@supplier.test", "name": "Ann"},
                            {"email": "Ben@Supplier.test"}, {"email": "ANN@supplier.test", "name": "Ann again"})
    assert sent == {"success": True, "sentCount": 2, "message": "Sent the form to 2 recipients"}

    [to_ann] = await mailed(sink, "ann@supplier.test")
    [to_ben] = await mailed(sink, "Ben@Supplier.test")
    assert form["name"] in to_ann["Subject"] and content(to_ann).startswith("Hello Ann,\n")
    assert content(to_ben).startswith("Hello,\n")
    ann_token, ben_token = link_token(to_ann, board, form), link_token(to_ben, board, form)
    assert ann_token != ben_token and len(ann_token) >= 40
    # The database keeps neither token: the stored e-mails show them redacted, the recipients only a hash.
    pool = board.org.anonymous.client.server.app[NODE].pool
    bodies = [row["body"] for row in await pool.fetch(
        "SELECT body FROM emails WHERE organization_id = $1 AND kind = 'form_distribution'", board.org.id)]
    assert len(bodies) == 2 and all(REDACTED in body and ann_token not in body and ben_token not in body
                                    for body in bodies)
    hashes = await pool.fetch("SELECT token_hash FROM form_recipients WHERE form_id = $1", form["id"])
    assert {row["token_hash"] for row in hashes}.isdisjoint({ann_token, ben_token})

    seen = await status(board, form)
    assert [(r["email"], r["name"], r["status"], r["reminderCount"]) for r in seen["recipients"]] == [
        ("ann@supplier.test", "Ann", "sent", 0), ("Ben@Supplier.test", None, "sent", 0)]
    first = seen["recipients"][0]
    assert first["id"].startswith("dr_") and first["sentAt"].endswith("Z")
    assert (first["openedAt"], first["startedAt"], first["completedAt"]) == (None, None, None)
    assert seen["stats"] == {"total": 2, "opened": 0, "started": 0, "completed": 0, "responseRate": 0.0}

    again = await distribute(board, form, {"email": "ann@SUPPLIER.test"}, {"email": "cid@supplier.test"})
    assert again["sentCount"] == 1 and "1 already had it" in again["message"]
    await mailed(sink, "cid@supplier.test")
    assert len(sink.to("ann@supplier.test")) == 1
    assert (await status(board, form))["stats"]["total"] == 3


async def test_stages_stats_and_reminders(board: Board, sink: Any) -> None:
    form = await make_form(board)
    people = ["opens@s.test", "starts@s.test", "completes@s.test", "ignores@s.test"]
    await distribute(board, form, *({"email": email} for email in people))
    tokens = {email: link_token((await mailed(sink, email))[0], board, form) for email in people}

    await stage(board, form, tokens["opens@s.test"], "opened")
    # An OTP request carrying the token marks its recipient started (the form-otp worker does it).
    otp = await board.org.anonymous.mutate("forms.requestOtp", {
        "formSlug": form["slug"], "organizationSlug": board.org.slug, "email": "starts@s.test",
        "t": tokens["starts@s.test"]})
    assert otp.data == {"sent": True}
    await settle(board.org.anonymous)
    await stage(board, form, tokens["completes@s.test"], "completed")  # FORMS' submit does it with `t`

    seen = await status(board, form)
    by_email = {r["email"]: r for r in seen["recipients"]}
    assert {email: r["status"] for email, r in by_email.items()} == {
        "opens@s.test": "opened", "starts@s.test": "started", "completes@s.test": "completed",
        "ignores@s.test": "sent"}
    done = by_email["completes@s.test"]
    assert done["openedAt"] and done["startedAt"] and done["completedAt"]  # the skipped stages are filled in
    assert by_email["starts@s.test"]["openedAt"] and by_email["starts@s.test"]["completedAt"] is None
    assert seen["stats"] == {"total": 4, "opened": 3, "started": 2, "completed": 1, "responseRate": 25.0}

    reminded = await board.api.mutate("forms.sendReminders", {"formId": form["id"]})
    assert reminded.data == {"success": True, "remindersSent": 3, "message": "Sent 3 reminders"}
    for email, mails in (("opens@s.test", 2), ("starts@s.test", 3), ("ignores@s.test", 2)):  # 3: an OTP too
        reminder = (await mailed(sink, email, mails))[-1]
        assert reminder["Subject"].startswith("Reminder: ")
        assert link_token(reminder, board, form) == tokens[email]  # the same link again
    assert len(sink.to("completes@s.test")) == 1
    counts = {r["email"]: r["reminderCount"] for r in (await status(board, form))["recipients"]}
    assert counts == {"opens@s.test": 1, "starts@s.test": 1, "completes@s.test": 0, "ignores@s.test": 1}
    # The reminded link still tracks its recipient.
    await stage(board, form, tokens["ignores@s.test"], "completed")
    stats = (await status(board, form))["stats"]
    assert (stats["completed"], stats["responseRate"]) == (2, 50.0)


async def test_response_rate_has_one_decimal(board: Board, sink: Any) -> None:
    form = await make_form(board)
    people = ["a@s.test", "b@s.test", "c@s.test"]
    await distribute(board, form, *({"email": email} for email in people))
    await stage(board, form, link_token((await mailed(sink, "a@s.test"))[0], board, form), "completed")
    assert (await status(board, form))["stats"]["responseRate"] == 33.3
    await stage(board, form, link_token((await mailed(sink, "b@s.test"))[0], board, form), "completed")
    assert (await status(board, form))["stats"]["responseRate"] == 66.7
    await stage(board, form, link_token((await mailed(sink, "c@s.test"))[0], board, form), "completed")
    nothing = await board.api.mutate("forms.sendReminders", {"formId": form["id"]})
    assert nothing.data["remindersSent"] == 0 and (await status(board, form))["stats"]["responseRate"] == 100.0


@pytest.mark.parametrize("form_status", ["draft", "closed"])
async def test_only_a_published_form_is_distributed(quiet_board: Board, form_status: str) -> None:
    board = quiet_board
    form = await make_form(board, status=form_status)
    for name, input in (("forms.createDistribution", {"formId": form["id"], "recipients": [{"email": "a@s.test"}]}),
                        ("forms.sendReminders", {"formId": form["id"]})):
        reply = await board.api.mutate(name, input)
        assert reply.status == 400 and form_status in reply.error["message"], reply.body


async def test_recipients_are_checked(quiet_board: Board) -> None:
    board = quiet_board
    form = await make_form(board)
    for recipients in ([], [{"email": f"r{i}@s.test"} for i in range(501)], [{"email": "not an address"}],
                       [{"email": "a@s.test", "name": "n" * 201}]):
        reply = await board.api.mutate("forms.createDistribution", {"formId": form["id"], "recipients": recipients})
        assert reply.status == 400 and reply.error["data"]["code"] == "BAD_REQUEST", reply.body
    five_hundred = await board.api.mutate("forms.createDistribution", {
        "formId": form["id"], "recipients": [{"email": f"r{i}@s.test"} for i in range(500)]})
    assert five_hundred.status == 200 and five_hundred.data["sentCount"] == 500


async def test_who_may_distribute_and_tenant_isolation(quiet_board: Board) -> None:
    board = quiet_board
    form = await make_form(board)
    _, guest = await board.org.add_user("guest")
    _, member = await board.org.add_user("member")
    recipients = {"formId": form["id"], "recipients": [{"email": "a@s.test"}]}
    assert (await guest.mutate("forms.createDistribution", recipients)).status == 403
    assert (await guest.query("forms.getDistributionStatus", {"formId": form["id"]})).status == 403
    assert (await guest.mutate("forms.sendReminders", {"formId": form["id"]})).status == 403
    assert (await board.org.anonymous.query("forms.getDistributionStatus", {"formId": form["id"]})).status == 401
    assert (await member.mutate("forms.createDistribution", recipients)).status == 200
    assert (await member.query("forms.getDistributionStatus", {"formId": form["id"]})).status == 200

    other = await make_board(await make_org(board.org.anonymous.client))
    other_form = await make_form(other)
    for api in (board.api, other.api):
        mine = form if api is other.api else other_form  # each org asks for the other's form
        assert (await api.mutate("forms.createDistribution", {**recipients, "formId": mine["id"]})).status == 404
        assert (await api.query("forms.getDistributionStatus", {"formId": mine["id"]})).status == 404
        assert (await api.mutate("forms.sendReminders", {"formId": mine["id"]})).status == 404
    assert (await other.api.query("forms.getDistributionStatus", {"formId": other_form["id"]})).data["recipients"] == []


async def test_the_same_address_sent_twice_at_once_is_one_recipient(quiet_board: Board) -> None:
    board = quiet_board
    form = await make_form(board)
    recipients = {"formId": form["id"], "recipients": [{"email": f"r{i}@s.test"} for i in range(20)]}
    replies = await asyncio.gather(*(board.api.mutate("forms.createDistribution", recipients) for _ in range(3)))
    assert all(reply.status == 200 for reply in replies), [reply.body for reply in replies]
    assert sum(reply.data["sentCount"] for reply in replies) == 20
    assert (await status(board, form))["stats"]["total"] == 20
