"""Why an e-mailed decision link cannot decide: one set of rules, in one order, for the link's page (which reads
the link before anything is decided) and for its decision (the procedure `submitDecisionByToken`, the page's
POST, and the flow actor that records it), so that all of them refuse a link with the same status and words.
A link that was good once (used, its step complete, its request decided or expired) is 409 CONFLICT, the
platform's code for a state that no longer allows the change; one that may never decide by e-mail (a GxP
request, an approver who left) is 403."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.approvals import OPEN_STATUSES
from protocol.errors import ApiError, Conflict, Forbidden

_ENDED = {"approved": "This request is already decided: it was approved.",
          "rejected": "This request is already decided: it was rejected.",
          "expired": "This request expired before it was decided."}
# What the flow actor can say of a link no longer among its live ones (the handler, reading the database first,
# says more unless another decision came in between).
SPENT = "This link was used or is no longer valid. A decision is final."


@dataclass(frozen=True)
class LinkFacts:
    """What the rules look at, read from the database (the page) or from the flow actor's state."""

    decided: str | None       # the approver's decision of the link's step (by this link, its pair or signed in)
    request_status: str
    link_step: int
    request_step: int
    voided: bool              # the step completed or went back to its respondent
    gxp_required: bool        # the regime the request opened under
    approver_is_member: bool


def link_refusal(facts: LinkFacts) -> ApiError | None:
    """The error the link meets (its status and message), or None when it may decide."""
    if facts.decided is not None:
        return Conflict(f"You already decided this step: you {facts.decided} it. A decision is final.")
    if facts.request_status not in OPEN_STATUSES:
        return Conflict(_ENDED.get(facts.request_status, "This request is already decided."))
    if facts.voided or facts.link_step != facts.request_step:
        return Conflict("This step no longer waits for you: another approver completed it, or the submission "
                        "went back to its respondent (a new step sends new links).")
    if facts.gxp_required:
        return Forbidden("Decisions on this request need your signature: sign in to Obeya and decide it there.")
    if not facts.approver_is_member:
        return Forbidden("The approver of this link is no longer a member of the organization.")
    return None
