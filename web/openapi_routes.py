"""What web/openapi.py cannot read off a handler: the routes of files, public forms and approval decisions take
multipart bodies, answer with bytes or HTML, need no credential or a form session, and take query tokens. Each
is described here once, beside the Structs of the replies the document names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from protocol.files import READ, UPLOAD
from protocol.form_schema import FormSchema
from protocol.imports import UPLOAD as UPLOAD_CSV
from protocol.registry import Procedure


class FileView(msgspec.Struct):
    """A stored file (`POST /api/v1/files`, `POST /api/forms/{formId}/files`)."""

    id: str
    name: str
    size: int
    type: str
    url: str


class PublicFormSettings(msgspec.Struct):
    successMessage: str | None


class PublicForm(msgspec.Struct):
    """A published or closed form as a respondent sees it; `answers` only with a live `?revision=` token."""

    id: str
    slug: str
    name: str
    description: str | None
    schema: FormSchema
    settings: PublicFormSettings
    requireAuth: bool
    status: str
    answers: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


class SubmitReply(msgspec.Struct):
    """A submission received (stored durably before this answer)."""

    success: bool
    message: str | None
    submissionId: str
    redirectUrl: str | None


class Answers(msgspec.Struct):
    """One property per form key (file fields: arrays of file ids), and these two, which steer the submission."""

    distributionToken: str | None = None
    revisionToken: str | None = None


class DecisionForm(msgspec.Struct):
    """The confirmation page's form (application/x-www-form-urlencoded)."""

    token: str
    csrf: str
    decision: str
    comment: str | None = None


class ImportColumn(msgspec.Struct):
    index: int
    header: str
    sampleValues: list[str]


class ImportSession(msgspec.Struct):
    """An uploaded CSV file waiting to be mapped (import.uploadCsv)."""

    importId: str
    boardId: str
    fileName: str
    fileSize: int
    delimiter: str
    encoding: str
    totalRows: int
    columns: list[ImportColumn]
    status: str
    expiresAt: str


class ImportSessionJson(msgspec.Struct):
    json: ImportSession


class ImportSessionData(msgspec.Struct):
    data: ImportSessionJson


class UploadCsvResult(msgspec.Struct):
    """The tRPC envelope of import.uploadCsv's reply."""

    result: ImportSessionData


DOCUMENTED = (FileView, PublicForm, SubmitReply, Answers, DecisionForm, UploadCsvResult)
HTML, ANY, BYTES, MULTIPART = "text/html", "*/*", "application/octet-stream", "multipart/form-data"
# multipart/form-data with the file in the field `file` (at most 25 MB).
FILE_UPLOAD: dict[str, Any] = {"type": "object", "required": ["file"], "properties": {
    "file": {"type": "string", "contentMediaType": BYTES, "description": "the file, at most 25 MB"}}}


# multipart/form-data: the CSV file in `file`, the board in `boardId`, optionally the delimiter.
CSV_UPLOAD: dict[str, Any] = {"type": "object", "required": ["file", "boardId"], "properties": {
    "file": {"type": "string", "contentMediaType": "text/csv",
             "description": "the CSV file, at most 10 MB, UTF-8 with or without a BOM"},
    "boardId": {"type": "string", "description": "the board the items go to"},
    "delimiter": {"type": "string", "enum": [",", ";", "\t", "|", "tab"],
                  "description": "the cell delimiter; detected when absent"}}}


@dataclass(frozen=True)
class Described:
    """One route: its summary, who may call it, its query parameters and headers, body and replies."""

    summary: str
    status: int = 200
    procedure: Procedure | None = None   # whose access rules the route applies; None: no credential needed
    form_session: bool = False           # a form's `svc_fst_` bearer or a member session, if the form requires it
    query: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    body: tuple[str, type[msgspec.Struct] | dict[str, Any]] | None = None    # media type, Struct or schema
    reply: str = "application/json"
    data: type[msgspec.Struct] | None = None    # the reply is `{data: <this>}`
    bare: type[msgspec.Struct] | None = None    # the reply is this, without an envelope
    refusals: dict[int, str] = field(default_factory=dict)
    reply_headers: tuple[tuple[str, str], ...] = ()


_TRACKING = ("t", "a distribution recipient's tracking token (marks the recipient's progress)")
_UPLOAD_REFUSALS = {413: "the file is larger than 25 MB (refused before the body is read)",
                    422: "no `file` field, not multipart, or an empty file"}
_FORM_UPLOAD_REFUSALS = {401: "the form requires a member's session or a form session (`forms.verifyOtp`)",
                         404: "no published form with a file field by this id or slug", **_UPLOAD_REFUSALS}

ROUTES: dict[tuple[str, str], Described] = {
    ("POST", "/api/v1/files"): Described(
        UPLOAD.summary, 201, procedure=UPLOAD, body=(MULTIPART, FILE_UPLOAD), data=FileView,
        refusals=_UPLOAD_REFUSALS),
    ("GET", "/api/v1/files/{id}"): Described(
        "Download a file of the organization: its bytes with its own Content-Type, as an attachment "
        "(`X-Content-Type-Options: nosniff`); types a browser could run come as application/octet-stream",
        procedure=READ, reply=ANY, refusals={404: "no such file in this organization"}),
    ("GET", "/api/forms/{form_id}"): Described(
        "A published or closed form's public definition, by id or slug", data=PublicForm,
        query=(_TRACKING, ("revision", "a revision link's token: adds the `answers` to revise (404 when used or "
                                       "not live)")),
        refusals={404: "a draft or unknown form, or a revision token that is not live"}),
    ("POST", "/api/forms/{form_id}/submit"): Described(
        "Submit answers: one body property per form key (file fields: arrays of file ids), plus "
        "`distributionToken` or `revisionToken`", form_session=True, query=(_TRACKING,),
        headers=(("Idempotency-Key", "a retry with the same key and body gets the first reply and makes "
                                     "nothing; the same key with another body is 409"),),
        body=("application/json", Answers), bare=SubmitReply,
        reply_headers=(("Idempotent-Replayed", "`true` on a replayed reply"),),
        refusals={401: "the form requires a member's session or a form session (`forms.verifyOtp`)",
                  404: "a draft or unknown form", 409: "the form is closed, one response per respondent, or an "
                                                      "Idempotency-Key reused with another body",
                  422: "answers that fail the form's schema: `details[]` names each form key"}),
    ("POST", "/api/forms/{form_id}/files"): Described(
        "Upload a file for a published form with a file field (multipart field `file`, at most 25 MB)", 201,
        form_session=True, query=(_TRACKING,), body=(MULTIPART, FILE_UPLOAD), data=FileView,
        refusals=_FORM_UPLOAD_REFUSALS),
    ("POST", f"/api/trpc/{UPLOAD_CSV.name}"): Described(
        UPLOAD_CSV.summary, procedure=UPLOAD_CSV, body=(MULTIPART, CSV_UPLOAD), bare=UploadCsvResult,
        refusals={400: "`details[]` names the field: `file` (not UTF-8, naming the byte and its offset; UTF-16; "
                       "empty; unreadable row), `boardId` or `delimiter`",
                  403: "the plan does not include csv_import, or the caller is a guest",
                  404: "no such board in the organization", 413: "the file is larger than 10 MB"}),
    ("GET", "/api/approvals/decide"): Described(
        "The confirmation page an approver's e-mailed link opens (HTML); a GET never decides",
        query=(("token", "the single-use decision token from the e-mail"),
               ("decision", "`approved` (default) or `rejected`")), reply=HTML),
    ("POST", "/api/approvals/decide"): Described(
        "Record the decision the confirmation page posts, like formApprovalFlows.submitDecisionByToken (HTML)",
        body=("application/x-www-form-urlencoded", DecisionForm), reply=HTML,
        refusals={403: "the page's CSRF value does not match, the request requires GxP signatures, or the "
                       "approver left the organization",
                  404: "an unknown token", 409: "the link was used, its step is complete or not current, or its "
                                               "request is decided or expired"}),
    ("GET", "/api/v1/auth/sso/start"): Described(
        "Start single sign-on on the organization's host: 302 to its identity provider, with a cookie binding the "
        "sign-in to this browser (docs/sign-in.md)",
        302, query=(("returnTo", "a path on this host to land on after signing in"),), reply=HTML,
        refusals={403: "the plan does not include sso, or single sign-on is not configured",
                  404: "no organization on this host",
                  503: "the client secret cannot be opened, or the identity provider could not be reached"}),
    ("GET", "/api/v1/auth/sso/callback"): Described(
        "Where the identity provider returns the browser: checks the state and the ID token, sets the session "
        "cookie and redirects (302) to `returnTo`; a refusal is a plain page",
        302, query=(("code", "the authorization code"), ("state", "the sign-in's state, bound to the browser"),
                    ("error", "the provider's refusal, if it refused")), reply=HTML,
        refusals={400: "a missing, unknown or expired state, or one started in another browser",
                  401: "the identity provider refused, or the ID token's checks failed",
                  403: "the e-mail is unverified, not a member, or the membership is not active",
                  404: "no organization on this host",
                  503: "the identity provider could not be reached"}),
    ("POST", "/api/v1/automations/{automationId}/webhook"): Described(
        "The inbound URL of a `webhook.received` automation: no credential; the sender proves it knows the rule's "
        "secret with `X-Svc-Signature` (`sha256=` HMAC of the body) or `X-Svc-Token`. 202 once the run is stored",
        202, headers=(("X-Svc-Signature", "`sha256=` and the hex HMAC-SHA256 of the body under the rule's secret"),
                      ("X-Svc-Token", "the rule's secret itself, where the sender cannot sign"),
                      ("webhook-id", "a delivery id (or `X-Svc-Delivery`): a repeat of one is not run again")),
        body=("application/json", {"type": "object"}),
        refusals={400: "the body is not a JSON object within the depth and number limits",
                  401: "signature or token does not match the automation's secret",
                  404: "no inbound-webhook automation by this id in this organization",
                  409: "the automation is disabled",
                  413: "the body is larger than the inbound limit"}),
    ("POST", "/api/v1/billing/webhook"): Described(
        "The payment processor's signed callbacks (docs/billing.md): no credential; `Stripe-Signature` must sign the "
        "body under the callback secret. A signed event of a type not handled is acknowledged",
        headers=(("Stripe-Signature", "the processor's signature of the body (timestamp and HMAC)"),),
        body=("application/json", {"type": "object"}),
        refusals={400: "the signature is missing, wrong or too old, or the event is malformed (the field named)"}),
}
