"""One-time passwords for a form's anonymous respondents: `forms.requestOtp` mails a 6-digit
code, `forms.verifyOtp` exchanges it for a session token (`svc_fst_…`, 24 hours, for that form and e-mail)
that the public form paths accept as `Authorization: Bearer` (web/context.py puts it under FORM_SESSION).

requestOtp answers `{sent: true}` at once whatever it was asked: it queues the request on the node
(actors/forms/otp_queue.py) and the `form-otp` worker below does the lookups and the mail, so neither the
answer nor its time tells whether the form or the e-mail exist. A code is for a published form; it is stored
as an HMAC (actors/forms/keyed.py), lives 10 minutes, a new one voids the older ones of that form and e-mail,
an e-mail gets at most 5 codes an hour in an organization (more are silently not sent), and the 5th wrong
guess voids it."""

from __future__ import annotations

import hmac
import secrets
from datetime import timedelta
from typing import Any

import structlog

from actors.forms import keyed
from actors.forms.otp_queue import OTP_REQUESTS, OtpRequest
from actors.forms.respondents import recipient_stage, token_hash
from actors.kernel.handlers import Implementations
from actors.kernel.mailer import queue_mail
from actors.kernel.node import Node
from protocol import form_distribution as proto
from protocol.caller import Caller
from protocol.ids import Prefix, new_id
from storage import form_respondents as repo
from storage.forms import form_by_slug, get_form

procedures = Implementations()

log = structlog.get_logger("obeya.forms.otp")

CODE_LIFETIME = timedelta(minutes=10)
MAX_ATTEMPTS = 5
CODES_PER_HOUR = 5
SESSION_LIFETIME = timedelta(hours=24)
SESSION_PREFIX = "svc_fst_"


@procedures.implement(proto.REQUEST_OTP)
async def request_otp(node: Node, caller: Caller, data: proto.RequestOtpInput) -> dict[str, Any]:
    """The organization is the host's; `organizationSlug` must name it, else nothing is queued."""
    org = caller.organization
    if org is not None and data.organizationSlug.lower() == org.slug.lower():
        node.plugins[OTP_REQUESTS].offer(OtpRequest(org_id=org.id, org_name=org.name, form_slug=data.formSlug,
                                                    email=data.email.lower(), token=data.t))
    return {"sent": True}


async def send_code(node: Node, request: OtpRequest) -> bool:
    """Mail a new code for the request, when its form is published and the e-mail is under its hourly limit;
    whether one was queued. A tracking token of the form's distribution marks its recipient started."""
    async with node.write(None, org_id=request.org_id) as uow:
        conn, now = uow.conn, uow.now
        form = await form_by_slug(conn, request.org_id, request.form_slug)
        if form is None or form["status"] != "published":
            return False
        if request.token is not None:
            await recipient_stage(conn, request.org_id, form["id"], request.token, "started", now)
        await repo.lock_respondent(conn, request.org_id, request.email)
        if await repo.codes_since(conn, request.org_id, request.email, now - timedelta(hours=1)) >= CODES_PER_HOUR:
            log.info("otp_refused", reason="hourly limit", form_id=form["id"])
            return False
        code = f"{secrets.randbelow(10**6):06d}"
        await repo.void_codes(conn, request.org_id, form["id"], request.email, now)
        await repo.insert_code(conn, code_id=new_id(Prefix.FORM_CODE), org_id=request.org_id, form_id=form["id"],
                               email=request.email, expires_at=now + CODE_LIFETIME, now=now,
                               code_hash=await keyed.code_hash(conn, node.settings.secret_key, form["id"],
                                                               request.email, code))
        minutes = int(CODE_LIFETIME.total_seconds() // 60)
        await queue_mail(conn, org_id=request.org_id, kind="form_otp", to=request.email,
                         subject=f"Your code for {form['name']} ({request.org_name})",
                         body=f"Your code for the form \"{form['name']}\" of {request.org_name}: {code}\n\n"
                              f"It is valid for {minutes} minutes. If you did not ask for it, ignore this e-mail.\n",
                         smtp_configured=node.settings.smtp is not None, secrets=[code],
                         secret_key=node.settings.secret_key)
    return True


async def send_codes_forever(node: Node) -> None:
    """The `form-otp` worker: one request after the other. A request that fails is logged and dropped (the
    respondent asks again); the worker goes on with the next."""
    requests = node.plugins[OTP_REQUESTS]
    while True:
        request = await requests.next()
        try:
            await send_code(node, request)
        except Exception as error:  # one bad request must not stop the codes of the others
            log.exception("otp_request_failed", error=repr(error))


def _invalid(error: str) -> dict[str, Any]:
    return {"valid": False, "error": error}


@procedures.implement(proto.VERIFY_OTP)
async def verify_otp(node: Node, caller: Caller, data: proto.VerifyOtpInput) -> dict[str, Any]:
    """Check the newest code of the form and e-mail (compared in constant time); each wrong guess counts, the
    5th voids the code. A right one is used up and opens a session."""
    org = caller.organization
    if org is None:
        return _invalid("no such code: request a new one")
    email = data.email.lower()
    async with node.write(caller, org_id=org.id) as uow:
        conn, now = uow.conn, uow.now
        given = await keyed.code_hash(conn, node.settings.secret_key, data.formId, email, data.code)
        form = await get_form(conn, org.id, data.formId)
        row = None if form is None else await repo.newest_code(conn, org.id, data.formId, email)
        if row is None or row["used_at"] is not None or row["voided_at"] is not None:
            return _invalid("no valid code for this form and e-mail: request a new one")
        if row["expires_at"] <= now:
            return _invalid("the code has expired: request a new one")
        if not hmac.compare_digest(given, row["code_hash"]):
            voided = row["attempts"] + 1 >= MAX_ATTEMPTS
            await repo.failed_attempt(conn, row["id"], void_at=now if voided else None)
            return _invalid("wrong code; too many attempts: request a new one" if voided else "wrong code")
        await repo.use_code(conn, row["id"], now)
        token = SESSION_PREFIX + secrets.token_urlsafe(32)
        await repo.insert_session(conn, token_hash=token_hash(token), org_id=org.id, form_id=data.formId,
                                  email=email, expires_at=now + SESSION_LIFETIME, now=now)
    return {"valid": True, "sessionToken": token}
