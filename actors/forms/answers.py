"""Answers checked against a form's schema: each component's type, `validate` rules and choices. Every bad
key is named in one 422 (one `details[]` entry per key); keys the schema does not have are dropped. Used by
submissions, revisions and approvers' field modifications alike.

File answers are checked for shape here (a list of file ids); whether those files exist in the organization
is the caller's check (`file_ids` lists them), since it needs the database."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

from protocol.errors import FieldError, ValidationFailed
from protocol.fields import EMAIL_PATTERN
from protocol.form_schema import MAX_FILES_PER_FIELD, Component, FormSchema
from protocol.ids import parse_iso

_EMAIL = re.compile(EMAIL_PATTERN)
_PHONE = re.compile(r"^\+?[0-9 ()./-]{3,40}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FILE_ID = re.compile(r"^file_[a-z2-7]{20}$")
# Longest answer a text component takes when its schema sets no maxLength.
_TEXT_LIMITS = {"textfield": 1000, "textarea": 10_000}


class _Bad(Exception):
    """One answer's fault, reported against its key."""


def _blank(component: Component, value: Any) -> bool:
    """No answer: null or an empty text for any component; an empty list where a list is the answer (files,
    several choices); false for a check box. Anything else goes through the component's own check, so a
    number field does not keep `false` or `[]`."""
    if value is None or value == "":
        return True
    if value == []:
        return component.type == "file" or (component.type == "select" and component.multiple)
    return value is False and component.type == "checkbox"


def _text(component: Component, value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad("must be a string")
    rules = component.validate
    limit = rules.maxLength or _TEXT_LIMITS.get(component.type, 1000)
    if len(value) > limit:
        raise _Bad(f"must be at most {limit} characters")
    if rules.minLength is not None and len(value) < rules.minLength:
        raise _Bad(f"must be at least {rules.minLength} characters")
    if "\x00" in value:
        raise _Bad("must not contain NUL characters")
    return value


def _number(component: Component, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            (isinstance(value, float) and not math.isfinite(value)):
        raise _Bad("must be a number")
    if isinstance(value, int) and abs(value) >= 2**63:
        raise _Bad("is out of range")
    rules = component.validate
    if rules.min is not None and value < rules.min:
        raise _Bad(f"must be at least {rules.min:g}")
    if rules.max is not None and value > rules.max:
        raise _Bad(f"must be at most {rules.max:g}")
    return value


def _matching(pattern: re.Pattern[str], what: str) -> Callable[[Component, Any], str]:
    def check(component: Component, value: Any) -> str:
        text = _text(component, value)
        if not pattern.match(text):
            raise _Bad(f"must be {what}")
        return text
    return check


def _url(component: Component, value: Any) -> str:
    text = _text(component, value)
    if not text.lower().startswith(("http://", "https://")):
        raise _Bad("must be an http or https URL")
    return text


def _choices(component: Component) -> set[str]:
    return {choice.value for choice in component.data.values} if component.data else set()


def _choice(component: Component, value: Any) -> str | list[str]:
    allowed = _choices(component)
    if component.type == "select" and component.multiple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Bad("must be a list of the component's values")
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise _Bad(f"{unknown[0]!r} is not one of the component's values")
        return list(dict.fromkeys(value))
    if not isinstance(value, str) or value not in allowed:
        raise _Bad("must be one of the component's values")
    return value


def _checkbox(component: Component, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad("must be true or false")
    return value


def _date(component: Component, value: Any) -> str:
    if not isinstance(value, str) or not _DATE.match(value):
        raise _Bad("must be a date (YYYY-MM-DD)")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise _Bad("must be a date (YYYY-MM-DD)") from None
    return value


def _datetime(component: Component, value: Any) -> str:
    if not isinstance(value, str) or len(value) > 40:
        raise _Bad("must be an ISO 8601 timestamp")
    try:
        parse_iso(value)
    except ValueError:
        raise _Bad("must be an ISO 8601 timestamp") from None
    return value


def _files(component: Component, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and _FILE_ID.match(v) for v in value):
        raise _Bad("must be a list of file ids")
    limit = MAX_FILES_PER_FIELD if component.multiple else 1
    if len(value) > limit:
        raise _Bad(f"takes at most {limit} file{'s' if limit > 1 else ''}")
    return list(dict.fromkeys(value))


_CHECKS: dict[str, Callable[[Component, Any], Any]] = {
    "textfield": _text, "textarea": _text, "number": _number, "email": _matching(_EMAIL, "an e-mail address"),
    "phoneNumber": _matching(_PHONE, "a phone number"), "url": _url, "select": _choice, "radio": _choice,
    "checkbox": _checkbox, "date": _date, "datetime": _datetime, "file": _files,
}


def validate_answers(schema: FormSchema, answers: Any, *, only: Iterable[str] | None = None) -> dict[str, Any]:
    """The answers the schema knows, cleaned (select lists and file lists without repeats); 422 naming every
    bad key. `only`: check just these keys (field modifications), and let the others' required rule be."""
    if not isinstance(answers, dict):
        raise ValidationFailed.of("body", "must be an object of form answers")
    wanted = None if only is None else set(only)
    clean: dict[str, Any] = {}
    faults: list[FieldError] = []
    for component in schema.components:
        key = component.key
        if wanted is not None and key not in wanted:
            continue
        value = answers.get(key)
        if _blank(component, value):
            if component.validate.required:
                faults.append(FieldError(key, "is required"))
            elif value is not None:
                clean[key] = value
            continue
        try:
            clean[key] = _CHECKS[component.type](component, value)
        except _Bad as fault:
            faults.append(FieldError(key, str(fault)))
    if faults:
        raise ValidationFailed.naming(faults)
    return clean


def answer_text(answer: Any) -> str:
    """An answer as one line of text (an item's name or description, an approver's summary): a list's parts
    joined by commas, a check box yes or no, nothing for no answer."""
    if isinstance(answer, list):
        return ", ".join(str(part) for part in answer)
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    return "" if answer is None else str(answer)


def file_ids(schema: FormSchema, answers: dict[str, Any]) -> list[str]:
    """Every file id the (validated) answers name, in order, once each."""
    ids = (file_id for component in schema.components if component.type == "file"
           for file_id in answers.get(component.key) or ())
    return list(dict.fromkeys(ids))
