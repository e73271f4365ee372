"""What a change does to the node's caches, as messages: a revoked credential, an ended session, a membership or
role changed, board access changed, an organization's settings, a board's rules, the organizations with
webhooks, rows that moved to another board.

A service that changed one of these calls `node.invalidate(change)`: the change is applied to this node's caches
at once (`Node.drop_stale`), and, when the node runs beside others (`OBEYA_REDIS_URL`), handed to
`node.broadcast`, which publishes it for every other node to apply (actors/kernel/redis_invalidation.py).
The messages are msgspec Structs so that the same value is applied here and decoded there.
"""

from __future__ import annotations

import msgspec


class CredentialRevoked(msgspec.Struct, frozen=True, tag="credential"):
    """An API key or personal token was revoked, rotated or deleted: its sockets are checked again."""

    credential_id: str


class SessionEnded(msgspec.Struct, frozen=True, tag="session"):
    """A session was logged out (by the SHA-256 of its cookie): its sockets are checked again."""

    digest: str


class MembershipChanged(msgspec.Struct, frozen=True, tag="member"):
    """A member joined, changed role or left: their role, the member set and their board access are re-read."""

    organization_id: str
    user_id: str


class BoardAccessChanged(msgspec.Struct, frozen=True, tag="access"):
    """Who may see a board (or, without an id, any board) may have changed: workspace or project changes."""

    board_id: str | None = None


class OrganizationChanged(msgspec.Struct, frozen=True, tag="organization"):
    """An organization's settings changed (name, plan, time zone...): the cached organization is re-read."""

    slug: str


class RulesChanged(msgspec.Struct, frozen=True, tag="rules"):
    """A board's automation rules changed."""

    organization_id: str
    board_id: str


class WebhooksChanged(msgspec.Struct, frozen=True, tag="webhooks"):
    """A webhook was created, changed or deleted: which organizations have webhooks is re-read."""


class RowsMoved(msgspec.Struct, frozen=True, tag="moved"):
    """Items (with their sub-items and comments) moved to another board: where they were is forgotten."""

    row_ids: tuple[str, ...]


Invalidation = (CredentialRevoked | SessionEnded | MembershipChanged | BoardAccessChanged | OrganizationChanged
                | RulesChanged | WebhooksChanged | RowsMoved)
