"""The page an approver's e-mailed link opens: `GET /api/approvals/decide?token=` shows a plain HTML form
(no JavaScript) that POSTs the decision to the same path, which records it like
`formApprovalFlows.submitDecisionByToken` with the client's address and user agent. A GET never decides:
mail scanners follow links. The form carries a CSRF value bound to the token (HMAC under the node's key)."""

from __future__ import annotations

import hashlib
import hmac
import html

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from actors.approvals.handlers import decide_by_token
from protocol.approvals import TokenDecisionInput
from protocol.caller import Caller
from protocol.errors import ApiError
from web.keys import CALLER, NODE
from web.plain_pages import plain_page

PATH = "/api/approvals/decide"
_LABELS = {"approved": "Approve", "rejected": "Reject"}
# No script, style or frame; the form posts only here. The token in the URL never leaves as a Referer.


def _csrf(key: str | None, token: str) -> str:
    return hmac.new((key or "obeya-approval-page").encode(), f"approval:{token}".encode(), hashlib.sha256).hexdigest()



async def show(request: web.Request) -> web.Response:
    token = request.query.get("token", "")
    choice = "rejected" if request.query.get("decision") == "rejected" else "approved"
    node = request.app[NODE]
    fields = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in
                     (("token", token), ("csrf", _csrf(node.secret_key, token))))
    return plain_page("Confirm your decision",
                      f'<form method="post" action="{PATH}">{fields}'
                      '<p><label>Comment <textarea name="comment"></textarea></label></p>'
                      f'<button type="submit" name="decision" value="{choice}">{_LABELS[choice]}</button></form>')


async def post(request: web.Request) -> web.Response:
    try:
        form = await request.post()
    except (ValueError, AssertionError, HttpProcessingError):  # aiohttp's refusals of a malformed body
        return plain_page("This form could not be read", "<p>Open the link from your e-mail again.</p>", 400)
    token, decision = str(form.get("token", "")), str(form.get("decision", ""))
    node = request.app[NODE]
    if not hmac.compare_digest(str(form.get("csrf", "")), _csrf(node.secret_key, token)):
        return plain_page("This form has expired", "<p>Open the link from your e-mail again.</p>", 403)
    caller: Caller = request[CALLER]
    if caller.organization is None or decision not in _LABELS:
        return plain_page("Decision link not found", "", 404)
    comment = str(form.get("comment", "")) or None
    data = TokenDecisionInput(token=token[:200], decision=decision,  # type: ignore[arg-type]
                              comment=comment[:5000] if comment else None, ipAddress=request.remote,
                              userAgent=(request.headers.get("User-Agent") or "")[:1000] or None)
    try:
        await decide_by_token(node, caller.organization.id, data)
    except ApiError as error:
        return plain_page("Your decision could not be recorded", f"<p>{html.escape(error.message)}</p>", error.status)
    return plain_page("Thank you", f"<p>Your decision ({html.escape(decision)}) was recorded.</p>")


def add_approval_routes(app: web.Application) -> None:
    app.router.add_get(PATH, show)
    app.router.add_post(PATH, post)
