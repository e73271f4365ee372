"""The one procedure registry: every procedure is declared here once, with its kind, input Struct,
who may call it and what a bearer credential needs.

`actors/` implements each declared procedure once; the RPC router serves every procedure and the
REST router maps the spec's REST paths onto the same declarations.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal

import msgspec


class Access(enum.Enum):
    PUBLIC = "public"  # no credential needed
    USER = "user"      # a signed-in user; no organization membership needed
    ORG = "org"        # a member of the organization named by the host


class Role(enum.IntEnum):
    """Organization roles, ordered so that `role >= Role.ADMIN` reads naturally."""

    GUEST = 1
    MEMBER = 2
    ADMIN = 3
    OWNER = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Role:
        return cls[text.upper()]


# Token scopes (personal access and OAuth tokens; docs/scopes.md).
TOKEN_SCOPES = ("read", "write", "delete", "admin", "webhooks")
# API-key scopes (docs/scopes.md).
KEY_SCOPES = ("read:items", "write:items", "read:actions", "write:actions", "read:kpis", "write:kpis",
              "read:members", "manage_settings", "manage_billing")


class EmptyInput(msgspec.Struct):
    """Input of a procedure that takes none."""


@dataclass(frozen=True)
class Procedure:
    name: str
    kind: Literal["query", "mutation"]
    input: type[msgspec.Struct]
    summary: str
    access: Access = Access.ORG
    # Scope an API key needs (None: any key of the organization). Empty key scopes = full access.
    key_scope: str | None = None
    # Scope a personal or OAuth token needs.
    token_scope: str | None = None
    min_role: Role = Role.GUEST
    # Only the session cookie may call it (API key management).
    session_only: bool = False
    # Plan feature gate (billing feature key), checked before the handler runs.
    feature: str | None = None
    # Its reply holds a secret shown once (a new API key, personal token, OAuth client secret, MCP key): the
    # reply is never kept for an Idempotency-Key retry, which gets 409 instead (web/idempotency.py).
    returns_secret: bool = False
    tags: tuple[str, ...] = field(default=())

    @property
    def is_query(self) -> bool:
        return self.kind == "query"


REGISTRY: dict[str, Procedure] = {}


def declare(name: str, kind: Literal["query", "mutation"], input: type[msgspec.Struct] = EmptyInput, *,
            summary: str, access: Access = Access.ORG, key_scope: str | None = None,
            token_scope: str | None = None, min_role: Role = Role.GUEST, session_only: bool = False,
            feature: str | None = None, returns_secret: bool = False) -> Procedure:
    if name in REGISTRY:
        raise ValueError(f"procedure {name} declared twice")
    if token_scope is None and access is not Access.PUBLIC:
        token_scope = "read" if kind == "query" else "write"
    procedure = Procedure(name=name, kind=kind, input=input, summary=summary, access=access,
                          key_scope=key_scope, token_scope=token_scope, min_role=min_role,
                          session_only=session_only, feature=feature, returns_secret=returns_secret)
    REGISTRY[name] = procedure
    return procedure
