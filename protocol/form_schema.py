"""A form's definition as the wire carries it: the schema's components, the mappings of answers
onto the item a submission makes, and the settings. Shared by the forms procedures (protocol/forms.py), the
answer validator (actors/forms/answers.py) and the approval flows, whose conditions and field modifications
name form keys."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.fields import Id, Url

# The component types a form may hold; each validates its answers (actors/forms/answers.py).
COMPONENT_TYPES = ("textfield", "textarea", "number", "email", "phoneNumber", "url", "select", "radio",
                   "checkbox", "date", "datetime", "file")
ComponentType = Literal["textfield", "textarea", "number", "email", "phoneNumber", "url", "select", "radio",
                        "checkbox", "date", "datetime", "file"]
# A form key is what answers, mappings and approval conditions name.
FormKey = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
Label = Annotated[str, msgspec.Meta(max_length=500)]
MAX_COMPONENTS = 200
MAX_CHOICES = 500
# Files one file component takes (`multiple`); one without `multiple` takes one.
MAX_FILES_PER_FIELD = 10


class Validate(msgspec.Struct, omit_defaults=True):
    required: bool = False
    minLength: Annotated[int, msgspec.Meta(ge=0, le=100_000)] | None = None
    maxLength: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None
    min: float | None = None
    max: float | None = None


class Choice(msgspec.Struct):
    label: Label
    value: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class ChoiceData(msgspec.Struct, omit_defaults=True):
    values: Annotated[list[Choice], msgspec.Meta(max_length=MAX_CHOICES)] = msgspec.field(default_factory=list)


class Component(msgspec.Struct, omit_defaults=True):
    type: ComponentType
    key: FormKey
    label: Label = ""
    description: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    placeholder: Label | None = None
    validate: Validate = msgspec.field(default_factory=Validate)
    data: ChoiceData | None = None  # select and radio: the allowed values
    multiple: bool = False          # select: several values; file: several files


class FormSchema(msgspec.Struct, omit_defaults=True):
    components: Annotated[list[Component], msgspec.Meta(max_length=MAX_COMPONENTS)] = \
        msgspec.field(default_factory=list)


class Mapping(msgspec.Struct):
    """Answer `formField` goes to the item's name, description, or column `columnId` (null for the first two)."""

    formField: FormKey
    target: Literal["item_name", "item_description", "column"]
    columnId: Id | None = None


SuccessMessage = Annotated[str, msgspec.Meta(max_length=2000)]
NotifyOnSubmit = Annotated[list[Id], msgspec.Meta(max_length=100)]


class FormSettings(msgspec.Struct, omit_defaults=False):
    successMessage: SuccessMessage = "Thank you, your response was received."
    redirectUrl: Url | None = None
    notifyOnSubmit: NotifyOnSubmit = msgspec.field(default_factory=list)
    groupId: Id | None = None  # the group items land in; None: the board's first group
    requireAuth: bool = False
    allowMultiple: bool = True
