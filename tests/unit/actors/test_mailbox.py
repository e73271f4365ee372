"""The bounded mailbox: order, batches, the soft limit warns once, the hard limit rejects, close fails."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from actors.runtime.mailbox import Mailbox
from protocol.errors import ServiceUnavailable, TooManyRequests


async def test_take_returns_at_most_the_limit_in_arrival_order() -> None:
    mailbox = Mailbox("a", soft_limit=10, hard_limit=10)
    for n in range(5):
        mailbox.put(n)

    assert [e.message for e in mailbox.take(3)] == [0, 1, 2]
    assert [e.message for e in mailbox.take(3)] == [3, 4]
    assert mailbox.take(3) == []


async def test_full_mailbox_answers_too_many_requests() -> None:
    mailbox = Mailbox("a", soft_limit=2, hard_limit=3)
    for n in range(3):
        mailbox.put(n)

    with pytest.raises(TooManyRequests):
        mailbox.put(3)
    assert len(mailbox) == 3
    mailbox.take(1)
    mailbox.put(4)


async def test_soft_limit_warns_once_per_crossing() -> None:
    mailbox = Mailbox("a", soft_limit=2, hard_limit=10)
    with capture_logs() as logs:
        for n in range(5):
            mailbox.put(n)
        mailbox.take(10)
        for n in range(2):
            mailbox.put(n)

    assert [entry["event"] for entry in logs] == ["mailbox.soft_limit", "mailbox.soft_limit"]
    assert logs[0]["depth"] == 2


async def test_close_fails_queued_messages_and_refuses_new_ones() -> None:
    mailbox = Mailbox("a", soft_limit=5, hard_limit=5)
    queued = [mailbox.put(n) for n in range(2)]
    error = ServiceUnavailable("stopping")

    assert mailbox.close(error) == 2

    assert all(envelope.future.exception() is error for envelope in queued)
    with pytest.raises(ServiceUnavailable):
        mailbox.put(9)


async def test_limits_must_be_ordered() -> None:
    with pytest.raises(ValueError):
        Mailbox("a", soft_limit=5, hard_limit=4)
