"""The node's queue of one-time-code requests: `forms.requestOtp` only puts the request here and answers, so
that how long it takes tells nothing about whether the form or the e-mail exist; the `form-otp` worker
(actors/forms/otp.py) looks the form up and mails the code. Bounded: when full a request is dropped (the
respondent asks again), never queued without limit. One per node (`node.plugins[OTP_REQUESTS]`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog

from actors.kernel.plugins import Slot
from actors.kernel.supervisor import park

log = structlog.get_logger("obeya.forms.otp")

MAX_WAITING = 1000


@dataclass(frozen=True)
class OtpRequest:
    org_id: str
    org_name: str
    form_slug: str
    email: str  # lower case
    token: str | None  # the distribution tracking token the respondent came with


class OtpQueue:
    def __init__(self, size: int = MAX_WAITING) -> None:
        self._queue: asyncio.Queue[OtpRequest] = asyncio.Queue(size)

    def offer(self, request: OtpRequest) -> None:
        try:
            self._queue.put_nowait(request)
        except asyncio.QueueFull:
            log.warning("otp_request_dropped", reason="queue full")

    async def next(self) -> OtpRequest:
        """The next request; the worker is parked (idle to its supervisor) while none waits."""
        getter = asyncio.ensure_future(self._queue.get())
        try:
            await park(lambda: getter.done() or not self._queue.empty(), getter)
        finally:
            getter.cancel()
        return getter.result()


OTP_REQUESTS: Slot[OtpQueue] = Slot("queue of one-time-code requests")
