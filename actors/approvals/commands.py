"""The messages a flow actor takes, and what the handler gives with each: the time, the caller, and the
context a decision needs without I/O (the organization's active members with their names and e-mails, the
form's public URL and name, how e-mail is sent). Inputs are checked by the handlers (answers against the
form's schema, a GxP password) before the message is sent. Messages are tagged msgspec Structs, so a command
crosses nodes decoded by its declared types (`FlowActor.codec`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from protocol.caller import Caller


@dataclass(frozen=True)
class Context:
    base_url: str = ""
    public_url: str = ""       # the form's `{base_url}/forms/<slug>`
    form_name: str = ""
    success_message: str | None = None
    people: dict[str, tuple[str, str]] = field(default_factory=dict)  # active member -> (name, e-mail)
    smtp_configured: bool = False


class Refresh(msgspec.Struct, frozen=True, tag=True):
    """The flow's definition changed in the database: read it again (done in `prepare`)."""


class Open(msgspec.Struct, frozen=True, tag=True):
    submission_id: str
    item_id: str | None
    data: dict[str, Any]
    version: int
    respondent_email: str | None


class Decide(msgspec.Struct, frozen=True, tag=True):
    request_id: str
    node_id: str | None           # None: the token's step
    decision: str
    comment: str | None
    modifications: dict[str, Any]  # validated answers by key
    meaning: str | None = None
    signed: bool = False           # the password was checked (GxP)
    token_hash: str | None = None
    ip_address: str | None = None
    user_agent: str | None = None
    user_id: str | None = None     # the deciding approver (a token's user for token decisions)


class Return(msgspec.Struct, frozen=True, tag=True):
    request_id: str
    comment: str


class Revise(msgspec.Struct, frozen=True, tag=True):
    token_hash: str
    answers: dict[str, Any]


class Expire(msgspec.Struct, frozen=True, tag=True):
    request_ids: tuple[str, ...]


class Departed(msgspec.Struct, frozen=True, tag=True):
    """A member left the organization: their `all` steps complete when every approver still a member approved."""
    user_id: str


Message = Refresh | Open | Decide | Return | Revise | Expire | Departed


@dataclass(frozen=True)
class Command:
    message: Message
    caller: Caller | None
    now: datetime
    context: Context = field(default_factory=Context)
