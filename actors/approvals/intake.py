"""Where forms hand submissions to approval flows: a submission entering its form's active flow, a
respondent's revised answers coming back through the revision link; what a form's signed (GxP) decisions
keep from deletion (the form, its board, project and workspace); and a departed approver's `all` steps.
The forms and tenancy packages call these; the approval-flow actor (this package) does the work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog

from actors.approvals.commands import Departed, Open, Revise
from actors.approvals.deciders import token_hash
from actors.approvals.routing import ask_flow, context
from actors.kernel.node import Node
from protocol.errors import ApiError, Conflict, NotFound
from storage import approvals as repo
from storage import forms as form_repo
from storage.connection import Conn

log = structlog.get_logger("obeya.approvals")


async def _respondent_email(node: Node, submission: Any) -> str | None:
    if submission["respondent_email"]:
        return str(submission["respondent_email"])
    if submission["submitted_by"]:
        return await repo.user_email(node.pool, submission["submitted_by"])
    return None


async def open_request(node: Node, org_id: str, form_id: str, submission_id: str) -> str | None:
    """Open an approval request for the submission if its form has an active flow; the request id, or None
    when the form has none. Safe to call twice for one submission (the second returns the same request)."""
    for _ in range(2):  # a flow deactivated under the first try: its actor refused, and reloaded
        existing = await repo.request_of_submission(node.pool, org_id, submission_id)
        if existing is not None:
            return str(existing["id"])
        flow_id = await repo.active_flow_id(node.pool, org_id, form_id)
        form = await form_repo.get_form(node.pool, org_id, form_id)
        submission = await form_repo.get_submission(node.pool, org_id, submission_id)
        if flow_id is None or form is None or submission is None or submission["form_id"] != form_id:
            return None
        message = Open(submission_id=submission_id, item_id=submission["item_id"], data=submission["data"],
                       version=submission["version"], respondent_email=await _respondent_email(node, submission))
        try:
            request_id: str | None = await ask_flow(node, None, org_id, flow_id, message,
                                                    await context(node, org_id, form))
            return request_id
        except Conflict:
            continue  # opened concurrently (unique submission), or the flow stopped being active
    existing = await repo.request_of_submission(node.pool, org_id, submission_id)
    return None if existing is None else str(existing["id"])


async def revision_answers(node: Node, org_id: str, form_id: str, token: str) -> dict[str, Any] | None:
    """The answers (the submission's current version) a live revision link of this form is for; None when
    the token is unknown, used or its request no longer awaits a revision."""
    request = await repo.request_by_revision(node.pool, org_id, form_id, token_hash(token))
    return None if request is None else dict(request["data"])


async def submit_revision(node: Node, org_id: str, form_id: str, token: str,
                          answers: dict[str, Any]) -> dict[str, Any]:
    """Take a respondent's revised answers (already validated against the schema): they become the
    submission's next version and the request resumes at the node that returned it. Answers
    `{success: true, message, submissionId}`; NotFound for a token that is not a live revision link."""
    request = await repo.request_by_revision(node.pool, org_id, form_id, token_hash(token))
    form = await form_repo.get_form(node.pool, org_id, form_id)
    if request is None or form is None:
        raise NotFound("revision link not found")
    reply: dict[str, Any] = await ask_flow(node, None, org_id, request["flow_id"],
                                           Revise(token_hash(token), answers), await context(node, org_id, form))
    return reply


async def blocks_form_deletion(conn: Conn, org_id: str, form_id: str) -> str | None:
    """Why the form may not be deleted now (a request still pending or in progress, or a GxP record that
    must be kept), or None when it may. Read in the deleting transaction, after
    `storage.form_definitions.lock_for_deletion`."""
    open_requests, signed = await repo.form_blockers(conn, org_id, form_id)
    if open_requests:
        return f"the form has {open_requests} approval request(s) pending or in progress"
    if signed:
        return "the form's approvals hold signed (GxP) decisions, which are kept as a record"
    return None


async def blocks_boards_deletion(conn: Conn, org_id: str, what: str, board_ids: Sequence[str]) -> None:
    """Conflict when `what` (a board, project or workspace, deleted with these boards) may not go because a
    form on the boards holds signed (GxP) approval decisions, which are kept as a record."""
    names = await repo.signed_forms_on_boards(conn, org_id, board_ids) if board_ids else []
    if names:
        raise Conflict(f"the {what} cannot be deleted: GxP signatures must be kept, and the approvals of its "
                       f"form(s) {', '.join(repr(n) for n in names)} hold signed decisions")


async def member_left(node: Node, org_id: str, user_id: str) -> int:
    """After a member's removal committed: each flow with open requests completes the `all` steps that waited
    only for them (actors/approvals/deciders.py `departed`); how many steps completed. A flow that fails is
    logged and skipped (its step then completes with the next decision or expires)."""
    completed = 0
    for row in await repo.flows_with_open_requests(node.pool, org_id):
        form = await form_repo.get_form(node.pool, org_id, row["form_id"])
        if form is None:
            continue
        try:
            completed += int(await ask_flow(node, None, org_id, row["flow_id"], Departed(user_id),
                                            await context(node, org_id, form)))
        except ApiError as error:
            log.warning("approval_departure_failed", flow=row["flow_id"], error=error.message)
    return completed
