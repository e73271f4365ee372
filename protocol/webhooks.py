"""Outbound webhooks (docs/api.md, "Webhooks"): the event names a webhook may subscribe to, the inputs and the
procedure declarations. Managing webhooks is for owners and admins (`manage_settings` key scope, token
scope `webhooks`) on plans with the `webhooks` feature."""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec

from protocol.fields import Cursor, Id, Url
from protocol.registry import EmptyInput, Procedure, Role, declare

# Every event a webhook may subscribe to.
EVENT_NAMES = (
    "item.created", "item.updated", "item.deleted", "item.moved", "item.commented",
    "kpi.value_entered", "kpi.target_breached", "kpi.created", "kpi.updated",
    "action.created", "action.updated", "action.escalated", "action.completed",
    "project.created", "project.deleted", "board.created", "board.updated", "board.deleted",
    "member.invited", "member.joined", "member.removed", "member.role_changed",
    "form.submitted", "form.published", "meeting.started", "meeting.completed",
    "approval.requested", "approval.decided", "approval.completed",
)

EventName = Annotated[str, msgspec.Meta(pattern="^(" + "|".join(map(re.escape, EVENT_NAMES)) + ")$")]
EventNames = Annotated[list[EventName], msgspec.Meta(min_length=1, max_length=len(EVENT_NAMES))]
Secret = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
Description = Annotated[str, msgspec.Meta(max_length=500)]


class CreateWebhookInput(msgspec.Struct):
    url: Url
    events: EventNames
    secret: Secret | None = None
    description: Description | None = None


class UpdateWebhookInput(msgspec.Struct):
    id: Id
    events: EventNames | None = None
    active: bool | None = None
    url: Url | None = None
    description: Description | None = None


class WebhookIdInput(msgspec.Struct):
    id: Id


class DeliveriesInput(msgspec.Struct):
    id: Id
    cursor: Cursor | None = None
    limit: int | None = None


def _declare(name: str, kind: Literal["query", "mutation"], input: type[msgspec.Struct],
             summary: str) -> Procedure:
    return declare(name, kind, input, summary=summary, min_role=Role.ADMIN,
                   key_scope="manage_settings", token_scope="webhooks", feature="webhooks")


CREATE = _declare("webhooks.create", "mutation", CreateWebhookInput,
                  "Register a URL to receive the subscribed events")
LIST = _declare("webhooks.list", "query", EmptyInput, "The organization's webhooks, newest first")
UPDATE = _declare("webhooks.update", "mutation", UpdateWebhookInput,
                  "Change a webhook's events, URL, description or active flag")
DELETE = _declare("webhooks.delete", "mutation", WebhookIdInput, "Remove a webhook and its delivery log")
DELIVERIES = _declare("webhooks.deliveries", "query", DeliveriesInput,
                      "A webhook's delivery attempts, newest first")
REDELIVER = _declare("webhooks.redeliver", "mutation", WebhookIdInput,
                     "Re-send a webhook's failed deliveries and reactivate it if it was marked failed")
