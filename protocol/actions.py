"""Corrective actions: the status, priority, source and category lists, the inputs with
their limits and the procedure declarations. Reading needs the `read:actions` key scope, changing
`write:actions`; changing is for members and up, reading for anyone who sees the board."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from protocol.fields import Cursor, Id
from protocol.items import Description, Version
from protocol.registry import Procedure, Role, declare

STATUSES = ("open", "in_progress", "completed", "verified", "closed")
PRIORITIES = ("critical", "high", "medium", "low")
# An action in one of these is still being worked on: only these can be overdue.
OPEN_STATUSES = ("open", "in_progress")

Status = Literal["open", "in_progress", "completed", "verified", "closed"]
Priority = Literal["critical", "high", "medium", "low"]
SourceType = Literal["kpi_breach", "audit", "gemba", "manual"]
# The SQCDP categories of a tier board.
Category = Literal["safety", "quality", "cost", "delivery", "people"]

Title = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
IsoDate = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}$")]
Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=1000)]
Note = Annotated[str, msgspec.Meta(max_length=2000)]


class CreateActionInput(msgspec.Struct):
    """`dueDate` is an ISO 8601 date (`2026-11-21`); `sourceType` None means `manual`."""

    boardId: Id
    title: Title
    priority: Priority
    assigneeId: Id
    dueDate: IsoDate
    description: Description | None = None
    sourceType: SourceType | None = None
    sourceId: Id | None = None
    category: Category | None = None


class UpdateActionInput(msgspec.Struct):
    """Absent fields stay as they are; only `description` may be set to null (cleared)."""

    id: Id
    title: Title | UnsetType = UNSET
    description: Description | None | UnsetType = UNSET
    status: Status | UnsetType = UNSET
    priority: Priority | UnsetType = UNSET
    assigneeId: Id | UnsetType = UNSET
    dueDate: IsoDate | UnsetType = UNSET
    expectedVersion: Version | None = None


class ActionIdInput(msgspec.Struct):
    id: Id


class ListActionsInput(msgspec.Struct):
    boardId: Id
    status: Status | None = None
    priority: Priority | None = None
    assigneeId: Id | None = None
    category: Category | None = None
    cursor: Cursor | None = None
    limit: int | None = None


class EscalateInput(msgspec.Struct):
    id: Id
    reason: Reason
    escalateToUserId: Id


class DeescalateInput(msgspec.Struct):
    id: Id
    reason: Reason


class VerifyInput(msgspec.Struct):
    id: Id
    verified: bool
    verificationNote: Note | None = None


class OrganizationActionsInput(msgspec.Struct):
    organizationId: Id
    cursor: Cursor | None = None
    limit: int | None = None


class BoardInput(msgspec.Struct):
    boardId: Id


READ, WRITE = "read:actions", "write:actions"


def _read(name: str, input: type[msgspec.Struct], summary: str) -> Procedure:
    return declare(name, "query", input, key_scope=READ, summary=summary)


def _write(name: str, input: type[msgspec.Struct], summary: str, *, token_scope: str | None = None) -> Procedure:
    return declare(name, "mutation", input, key_scope=WRITE, token_scope=token_scope, min_role=Role.MEMBER,
                   summary=summary)


CREATE = _write("actions.create", CreateActionInput, "Create an open action on a board and notify its assignee")
UPDATE = _write("actions.update", UpdateActionInput, "Change an action's title, description, status, priority, "
                "assignee or due date")
DELETE = _write("actions.delete", ActionIdInput, "Delete an action", token_scope="delete")
GET = _read("actions.getById", ActionIdInput, "One action with its escalation history")
LIST = _read("actions.list", ListActionsInput, "A board's actions, newest first, with filters")
ESCALATE = _write("actions.escalate", EscalateInput, "Raise an action's escalation level by one and notify the "
                  "person it is escalated to")
DEESCALATE = _write("actions.deescalate", DeescalateInput, "Return an escalated action to its previous level")
VERIFY = _write("actions.verify", VerifyInput, "Verify a completed action, or send it back to in_progress")
ESCALATED = _read("actions.getEscalated", OrganizationActionsInput, "Escalated actions across the boards the "
                  "caller sees, earliest due first")
OVERDUE = _read("actions.getOverdue", OrganizationActionsInput, "Overdue actions across the boards the caller "
                "sees, earliest due first")
STATS = _read("actions.getStats", BoardInput, "Counts of a board's actions by status and priority, overdue, "
              "escalated, and the mean days to completion")
