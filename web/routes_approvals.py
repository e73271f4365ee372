"""The page an approver's e-mailed link opens: `GET /api/approvals/decide?token=` says what is being decided (the
form, who asks, when it was submitted, the first answers, the step of the flow) and shows a plain HTML form (no
JavaScript) offering both decisions, the link's own chosen; it POSTs to the same path, which records the decision
like `formApprovalFlows.submitDecisionByToken` with the client's address and user agent. A link that can no
longer decide says why at once (404 unknown here, 409 used or no longer current, 403), with no form, in the words
and status its POST and the procedure would answer (actors/approvals/link_rules.py). A GET never
decides: mail scanners follow links. The form carries a CSRF value bound to the token (HMAC under the node's
key)."""

from __future__ import annotations

import hashlib
import hmac
import html
from datetime import UTC

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from actors.approvals.handlers import DecisionLink, decide_by_token, read_decision_link
from protocol.approvals import TokenDecisionInput
from protocol.caller import Caller
from protocol.errors import ApiError
from web.keys import CALLER, NODE
from web.plain_pages import plain_page

PATH = "/api/approvals/decide"
_LABELS = {"approved": "Approve", "rejected": "Reject"}
_REFUSED = {404: "Decision link not found", 409: "This link is no longer valid",
            403: "This link cannot decide this request"}
# No script or frame (plain_pages' policy); the form posts only here. The token in the URL never leaves as a Referer.


def _csrf(key: str | None, token: str) -> str:
    return hmac.new((key or "obeya-approval-page").encode(), f"approval:{token}".encode(), hashlib.sha256).hexdigest()


def _rows(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>" for term, text in pairs)


def _summary(link: DecisionLink) -> str:
    flow = f"the approval flow \u201c{link.flow_name}\u201d"
    facts = [("Form", link.form_name), ("Asked by", link.submitted_by or f"{flow} (an anonymous response)"),
             ("Submitted", link.submitted_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")),
             ("Step", f"{link.step_number}{'' if link.step_count is None else f' of {link.step_count}'}: "
                      f"{link.step_name}, in {flow}")]
    answers = _rows(link.answers) if link.answers else "<dt>No answers</dt><dd>The response is empty.</dd>"
    more = (f"<p>And {link.more_answers} more answer{'s' if link.more_answers > 1 else ''}, not shown here.</p>"
            if link.more_answers else "")
    return f"<dl>{_rows(facts)}</dl><h2>Answers</h2><dl>{answers}</dl>{more}"


def _choices(chosen: str) -> str:
    order = [chosen, *(decision for decision in _LABELS if decision != chosen)]
    return "".join(f'<label class="choice"><input type="radio" name="decision" value="{decision}"'
                   f'{" checked" if decision == chosen else ""}> {_LABELS[decision]}</label>' for decision in order)


async def show(request: web.Request) -> web.Response:
    token = request.query.get("token", "")
    caller: Caller = request[CALLER]
    if caller.organization is None or not token or len(token) > 200:
        return plain_page(_REFUSED[404], "<p>This decision link is not known here. Check that you opened the whole "
                                         "link from your e-mail.</p>", 404)
    node = request.app[NODE]
    try:
        link = await read_decision_link(node, caller.organization.id, token)
    except ApiError as error:
        return plain_page(_REFUSED.get(error.status, "This link cannot decide"),
                          f"<p>{html.escape(error.message)}</p>", error.status)
    fields = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in
                     (("token", token), ("csrf", _csrf(node.settings.secret_key, token))))
    return plain_page(f"Approval requested: {link.form_name}",
                      f"{_summary(link)}<form method=\"post\" action=\"{PATH}\">{fields}"
                      f"<fieldset><legend>Your decision</legend>{_choices(link.decision)}</fieldset>"
                      '<p><label for="comment">Comment (optional)</label>'
                      '<textarea id="comment" name="comment" rows="3" maxlength="5000"></textarea></p>'
                      '<p><button type="submit">Send my decision</button></p>'
                      "<p>A decision is final once sent.</p></form>")


async def post(request: web.Request) -> web.Response:
    try:
        form = await request.post()
    except (ValueError, AssertionError, HttpProcessingError):  # aiohttp's refusals of a malformed body
        return plain_page("This form could not be read", "<p>Open the link from your e-mail again.</p>", 400)
    token, decision = str(form.get("token", "")), str(form.get("decision", ""))
    node = request.app[NODE]
    if not hmac.compare_digest(str(form.get("csrf", "")), _csrf(node.settings.secret_key, token)):
        return plain_page("This form has expired", "<p>Open the link from your e-mail again.</p>", 403)
    caller: Caller = request[CALLER]
    if caller.organization is None or decision not in _LABELS:
        return plain_page("Decision link not found", "", 404)
    comment = str(form.get("comment", "")) or None
    data = TokenDecisionInput(token=token[:200], decision=decision,  # type: ignore[arg-type]
                              comment=comment[:5000] if comment else None, ipAddress=request.remote,
                              userAgent=(request.headers.get("User-Agent") or "")[:1000] or None)
    try:
        await decide_by_token(node, caller.organization.id, data, either_decision=True)
    except ApiError as error:
        return plain_page("Your decision could not be recorded", f"<p>{html.escape(error.message)}</p>", error.status)
    return plain_page("Thank you", f"<p>Your decision ({html.escape(decision)}) was recorded.</p>")


def add_approval_routes(app: web.Application) -> None:
    app.router.add_get(PATH, show)
    app.router.add_post(PATH, post)
