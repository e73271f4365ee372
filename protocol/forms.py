"""Forms and their submissions (docs/forms-and-approvals.md): the inputs with their limits and the procedure
declarations. Reading forms is for anyone who sees the form's board; changing forms and reading or moving
submissions is for members and up who see it. Key scopes: `read:items` to read, `write:items` to change.
The public definition and submit paths are not procedures (web/routes_forms_public.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Cursor, Id, Url
from protocol.form_schema import FormSchema, FormSettings, Mapping, NotifyOnSubmit, SuccessMessage
from protocol.registry import Procedure, Role, declare

Status = Literal["draft", "published", "closed"]
SubmissionStatus = Literal["new", "reviewed", "archived"]
FormName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
FormDescription = Annotated[str, msgspec.Meta(max_length=5000)]
# Lower case on the way in; the public URL is `{base_url}/forms/<slug>`.
FORM_SLUG_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,78}[A-Za-z0-9])?$"
FormSlug = Annotated[str, msgspec.Meta(pattern=FORM_SLUG_PATTERN)]
Mappings = Annotated[list[Mapping], msgspec.Meta(max_length=200)]


class CreateFormInput(msgspec.Struct):
    boardId: Id
    name: FormName
    schema: FormSchema = msgspec.field(default_factory=FormSchema)
    mappings: Mappings = msgspec.field(default_factory=list)
    settings: FormSettings = msgspec.field(default_factory=FormSettings)
    description: FormDescription | None = None
    slug: FormSlug | None = None
    status: Status = "draft"


class SettingsChange(msgspec.Struct, omit_defaults=True):
    """forms.update's `settings`: the settings named change, the others stay (so that changing the success
    message does not quietly turn `requireAuth` off); `redirectUrl` and `groupId` may be set to null."""

    successMessage: SuccessMessage | UnsetType = UNSET
    redirectUrl: Url | None | UnsetType = UNSET
    notifyOnSubmit: NotifyOnSubmit | UnsetType = UNSET
    groupId: Id | None | UnsetType = UNSET
    requireAuth: bool | UnsetType = UNSET
    allowMultiple: bool | UnsetType = UNSET


class UpdateFormInput(msgspec.Struct):
    """Absent fields stay as they are; only `description` may be set to null (cleared); `settings` changes the
    settings it names."""

    id: Id
    name: FormName | UnsetType = UNSET
    description: FormDescription | None | UnsetType = UNSET
    slug: FormSlug | UnsetType = UNSET
    status: Status | UnsetType = UNSET
    schema: FormSchema | UnsetType = UNSET
    mappings: Mappings | UnsetType = UNSET
    settings: SettingsChange | UnsetType = UNSET


class FormIdInput(msgspec.Struct):
    id: Id


class ListFormsInput(msgspec.Struct):
    boardId: Id


class ListSubmissionsInput(msgspec.Struct):
    formId: Id
    cursor: Cursor | None = None
    limit: int | None = None
    status: SubmissionStatus | None = None


class SubmissionIdInput(msgspec.Struct):
    id: Id


class UpdateSubmissionInput(msgspec.Struct):
    id: Id
    status: SubmissionStatus


READ, WRITE = "read:items", "write:items"


def _read(name: str, input: type[msgspec.Struct], summary: str, *, min_role: Role = Role.GUEST) -> Procedure:
    return declare(name, "query", input, key_scope=READ, min_role=min_role, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=Role.MEMBER,
                   summary=summary)


LIST = _read("forms.list", ListFormsInput, "The forms of a board, newest first, without schema and mappings")
GET = _read("forms.get", FormIdInput, "One form with its schema, mappings and settings")
CREATE = _write("forms.create", CreateFormInput, "Create a form on a board (draft unless a status is given)")
UPDATE = _write("forms.update", UpdateFormInput, "Change a form's name, slug, status, schema, mappings or settings")
DELETE = _write("forms.delete", FormIdInput, "Delete a form and its submissions; the items they made remain",
                token_scope="delete")
SUBMISSIONS_LIST = _read("forms.submissions.list", ListSubmissionsInput, "A form's submissions, newest first",
                         min_role=Role.MEMBER)
SUBMISSIONS_GET = _read("forms.submissions.get", SubmissionIdInput, "One submission with its version history",
                        min_role=Role.MEMBER)
SUBMISSIONS_UPDATE = _write("forms.submissions.update", UpdateSubmissionInput,
                            "Move a submission between new, reviewed and archived")
