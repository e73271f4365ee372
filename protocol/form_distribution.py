"""A form's respondents (docs/forms-and-approvals.md): sending a published form to recipients with
tracking links, their status and reminders (members and up who see the form's board; key scopes
`read:items` / `write:items`), and the one-time passwords that give an anonymous respondent a session for
one form (public; the organization is the host's)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.fields import Email, Id
from protocol.registry import Access, Role, declare

MAX_RECIPIENTS = 500
RecipientName = Annotated[str, msgspec.Meta(max_length=200)]
# A form slug as forms.create makes it; long enough for any, short enough to refuse junk.
FormSlug = Annotated[str, msgspec.Meta(min_length=1, max_length=120)]
OtpCode = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{6}$")]
TrackingToken = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class Recipient(msgspec.Struct):
    email: Email
    name: RecipientName | None = None


class CreateDistributionInput(msgspec.Struct):
    formId: Id
    recipients: Annotated[list[Recipient], msgspec.Meta(min_length=1, max_length=MAX_RECIPIENTS)]


class FormIdInput(msgspec.Struct):
    formId: Id


class RequestOtpInput(msgspec.Struct):
    formSlug: FormSlug
    organizationSlug: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    email: Email
    t: TrackingToken | None = None


class VerifyOtpInput(msgspec.Struct):
    formId: Id
    email: Email
    code: OtpCode


READ, WRITE = "read:items", "write:items"

CREATE_DISTRIBUTION = declare(
    "forms.createDistribution", "mutation", CreateDistributionInput, key_scope=WRITE, min_role=Role.MEMBER,
    summary="E-mail a published form to 1-500 recipients, each with a link carrying their own tracking token")
DISTRIBUTION_STATUS = declare(
    "forms.getDistributionStatus", "query", FormIdInput, key_scope=READ, min_role=Role.MEMBER,
    summary="A form's recipients with their progress (sent, opened, started, completed) and the response rate")
SEND_REMINDERS = declare(
    "forms.sendReminders", "mutation", FormIdInput, key_scope=WRITE, min_role=Role.MEMBER,
    summary="E-mail every recipient who has not completed the form their link again")
REQUEST_OTP = declare(
    "forms.requestOtp", "mutation", RequestOtpInput, access=Access.PUBLIC,
    summary="E-mail a 6-digit code for a published form; always answers {sent: true}")
VERIFY_OTP = declare(
    "forms.verifyOtp", "mutation", VerifyOtpInput, access=Access.PUBLIC, returns_secret=True,
    summary="Exchange a one-time code for a 24-hour session token for that form and e-mail")
