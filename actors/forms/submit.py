"""What a form's respondent does (docs/forms-and-approvals.md): read a published or closed form's
public definition, and submit answers.

A submission is durable before it is acknowledged, and retry-safe. Step 1 is one transaction that stores
the submission (its item id chosen now), version 1 and the distribution recipient's `completed` mark, with
the `Idempotency-Key` and a hash of the request; steps 2-4 follow (actors/forms/pipeline.py). A retry with
the same key gets the first reply and makes nothing (the same key with another body is 409); a refused
mapped value (step 2) removes the submission again, so nothing half-written stays, unless it was
acknowledged meanwhile: a submission the respondent was told was received (steps 2-4 deferred) is never removed;
a retry of it finishes it the way the sweeper does.

The respondent, as `allowMultiple` compares them: a member's session (`user:<id>`), else a session token
from `forms.verifyOtp` (`email:<address>`), else a distribution token (`recipient:<id>`), else anonymous.
A second submission of one known respondent waits for the first on a lock per form and respondent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg
import msgspec
import structlog

from actors.approvals.intake import revision_answers, submit_revision
from actors.forms.access import find_form
from actors.forms.answers import file_ids, validate_answers
from actors.forms.pipeline import finish, finish_acknowledged
from actors.forms.respondents import recipient_stage, session_email, token_hash
from actors.forms.views import public_form
from actors.kernel.node import Node
from protocol.caller import Caller
from protocol.errors import ApiError, Conflict, FieldError, NotFound, Unauthorized, ValidationFailed
from protocol.form_schema import FormSchema, FormSettings
from protocol.ids import Prefix, new_id
from storage import form_submissions as repo
from storage.connection import Conn

log = structlog.get_logger("obeya.forms")


# Body properties that steer the submission rather than answer the form.
DISTRIBUTION_FIELD, REVISION_FIELD = "distributionToken", "revisionToken"


@dataclass(frozen=True)
class Submitted:
    reply: dict[str, Any]
    replayed: bool = False


@dataclass(frozen=True)
class Respondent:
    key: str | None           # user:<id>, email:<address>; recipient:<id> is known only inside step 1
    user_id: str | None
    email: str | None


async def _reachable(node: Node, org_id: str, ref: str) -> asyncpg.Record:
    """A published or closed form; a draft or unknown one is 404."""
    form = await find_form(node.pool, org_id, ref)
    if form is None or form["status"] == "draft":
        raise NotFound("form not found")
    return form


async def public_definition(node: Node, org_id: str, ref: str, *, token: str | None,
                            revision: str | None) -> dict[str, Any]:
    """The form as a respondent sees it; `token` marks its recipient opened, `revision` adds the answers the
    revision link is for (404 for a link that is not live)."""
    form = await _reachable(node, org_id, ref)
    view = public_form(form)
    if token:
        await recipient_stage(node.pool, org_id, form["id"], token, "opened", node.clock.now())
    if revision:
        answers = await revision_answers(node, org_id, form["id"], revision)
        if answers is None:
            raise NotFound("revision link not found")
        view["answers"] = answers
    return view


def _reply(form: Mapping[str, Any], submission_id: str) -> dict[str, Any]:
    settings = form["settings"]
    return {"success": True, "message": settings.get("successMessage"), "submissionId": submission_id,
            "redirectUrl": settings.get("redirectUrl")}


async def _respondent(node: Node, caller: Caller, form: Mapping[str, Any], session_token: str | None,
                      settings: FormSettings) -> Respondent:
    if caller.user_id is not None and caller.is_member:
        return Respondent(f"user:{caller.user_id}", caller.user_id, caller.user_email)
    if session_token is not None:
        email = await session_email(node.pool, form["organization_id"], form["id"], session_token, node.clock.now())
        if email is None:
            raise Unauthorized("the form session is not valid for this form; verify your e-mail again")
        return Respondent(f"email:{email.lower()}", None, email)
    if settings.requireAuth:
        raise Unauthorized("this form needs a member's sign-in or a verified e-mail")
    return Respondent(None, None, None)


async def _check_files(conn: Conn, org_id: str, form_id: str, schema: FormSchema, answers: dict[str, Any]) -> None:
    wanted = file_ids(schema, answers)
    if not wanted:
        return
    usable = await repo.usable_files(conn, org_id, form_id, wanted)
    faults = [FieldError(component.key, "names a file that was not uploaded for this form")
              for component in schema.components
              if component.type == "file" and any(f not in usable for f in answers.get(component.key) or ())]
    if faults:
        raise ValidationFailed.naming(faults)


async def _replayed(node: Node, caller: Caller, form: Mapping[str, Any], stored: Mapping[str, Any],
                    digest: str) -> Submitted | None:
    """The first reply again, for a retry with the same Idempotency-Key and request, finishing the submission
    the way the sweeper does if its steps 2-4 had not run: it was acknowledged, so it is never removed now.
    None when its first request removed it meanwhile (a refused value): the retry is then a new request."""
    if stored["request_hash"] != digest:
        raise Conflict("this Idempotency-Key was used for another submission",
                       details=[FieldError("Idempotency-Key", "was used with another body")])
    if stored["completed_at"] is None:
        try:
            if not await finish_acknowledged(node, caller, form, stored):
                return None
        except (ApiError, TimeoutError) as error:
            log.warning("form_submission_deferred", submission=stored["id"], error=str(error))
    return Submitted(_reply(form, stored["id"]), replayed=True)


async def _finish_or_later(node: Node, caller: Caller, form: Mapping[str, Any], submission: Mapping[str, Any],
                           token: str | None) -> None:
    """Steps 2-4 now; a refused mapped value removes the submission (422), with the distribution marks it made
    (`token`'s recipient is no longer completed), unless a retry or the sweeper acknowledged it meanwhile (they
    finish it). Any other failure acknowledges the stored submission and leaves it to the sweeper: it is
    durable, so the respondent is told it was received."""
    org_id = submission["organization_id"]
    try:
        await finish(node, caller, form, submission)
    except ValidationFailed:
        async with node.write(caller, org_id=org_id) as uow:
            if not await repo.delete_unacknowledged(uow.conn, org_id, submission["id"]):
                return  # acknowledged meanwhile: it is received, and its taker finishes it
            if token:
                await repo.unmark_recipient(uow.conn, org_id, form["id"], token_hash(token),
                                            submission["submitted_at"])
        raise
    except (ApiError, TimeoutError) as error:
        log.warning("form_submission_deferred", submission=submission["id"], error=str(error))
        async with node.pool.acquire() as conn:
            await repo.acknowledge(conn, org_id, submission["id"], node.clock.now())


async def submit(node: Node, caller: Caller, ref: str, body: dict[str, Any], *, token: str | None,
                 session_token: str | None, idempotency_key: str | None, digest: str,
                 count_form: Callable[[str], Awaitable[None]] | None = None) -> Submitted:
    """Take a respondent's answers (`body`: one property per form key); `digest` identifies the request for
    the Idempotency-Key. `count_form(form id)` runs once the form is found, before anything else (the edge's
    per-form rate limit, web/rate_limit.py `count_submission`)."""
    org_id = caller.org_id
    form = await _reachable(node, org_id, ref)
    if count_form is not None:
        await count_form(form["id"])
    schema = msgspec.convert(form["schema"], FormSchema)
    settings = msgspec.convert(form["settings"], FormSettings)
    respondent = await _respondent(node, caller, form, session_token, settings)
    token = token or _text_field(body, DISTRIBUTION_FIELD)
    if idempotency_key is not None:
        stored = await repo.by_key(node.pool, org_id, form["id"], idempotency_key)
        replayed = None if stored is None else await _replayed(node, caller, form, stored, digest)
        if replayed is not None:
            return replayed
    revision = _text_field(body, REVISION_FIELD)
    if revision is None and form["status"] == "closed":
        raise Conflict("form is closed")  # to new responses: revising one already taken still goes on
    answers = validate_answers(schema, {k: v for k, v in body.items() if k not in (DISTRIBUTION_FIELD,
                                                                                    REVISION_FIELD)})
    await _check_files(node.pool, org_id, form["id"], schema, answers)
    if revision is not None:
        return Submitted(await submit_revision(node, org_id, form["id"], revision, answers))

    try:
        submission = await _store(node, caller, form, settings, respondent, answers, token=token,
                                  idempotency_key=idempotency_key, digest=digest)
    except _Raced as raced:
        replayed = await _replayed(node, caller, form, raced.stored, digest)
        if replayed is None:
            raise Conflict("a request with this Idempotency-Key was refused meanwhile; send it again") from None
        return replayed
    await _finish_or_later(node, caller, form, submission, token)
    return Submitted(_reply(form, submission["id"]))


async def _store(node: Node, caller: Caller, form: Mapping[str, Any], settings: FormSettings,
                 respondent: Respondent, answers: dict[str, Any], *, token: str | None,
                 idempotency_key: str | None, digest: str) -> asyncpg.Record:
    """Step 1: the submission, version 1 and the recipient's `completed` mark, in one transaction."""
    org_id = caller.org_id
    async with node.write(caller, org_id=org_id) as uow:
        conn = uow.conn
        if idempotency_key is not None:
            await repo.lock(conn, form["id"], "key", idempotency_key)
            stored = await repo.by_key(conn, org_id, form["id"], idempotency_key)
            if stored is not None:
                raise _Raced(stored)
        key, email = respondent.key, respondent.email
        if token:
            recipient = await recipient_stage(conn, org_id, form["id"], token, "completed", uow.now)
            if recipient is not None and key is None:
                key, email = f"recipient:{recipient['id']}", recipient["email"]
        if key is not None and not settings.allowMultiple:
            await repo.lock(conn, form["id"], key)
            if await repo.respondent_submitted(conn, org_id, form["id"], key):
                raise Conflict("a response to this form was already submitted; it takes one per respondent")
        submission = await repo.insert(
            conn, submission_id=new_id(Prefix.FORM_SUBMISSION), org_id=org_id, form_id=form["id"],
            board_id=form["board_id"], data=answers, item_id=new_id(Prefix.ITEM), submitted_by=respondent.user_id,
            respondent=key,
            respondent_email=email, idempotency_key=idempotency_key,
            request_hash=digest if idempotency_key is not None else None, now=uow.now)
    return submission


class _Raced(Exception):
    """Another request with the same Idempotency-Key stored its submission first."""

    def __init__(self, stored: asyncpg.Record) -> None:
        super().__init__("raced")
        self.stored = stored


def _text_field(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 200:
        raise ValidationFailed.of(name, "must be a token string")
    return value
