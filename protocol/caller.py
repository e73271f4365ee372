"""Who is calling: the identity the web edge resolved from the host, cookie or bearer credential."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from protocol.registry import Role


class CredentialKind(enum.Enum):
    NONE = "none"
    SESSION = "session"
    API_KEY = "api_key"
    PERSONAL_TOKEN = "personal_token"
    MCP_KEY = "mcp_key"  # an assistant key: valid on /mcp only, its grants in `scopes` (actors/identity/mcp_keys.py)
    OAUTH_TOKEN = "oauth_token"  # an application's access token (`svc_oat_`), its granted scopes in `scopes`
    DISPLAY = "display"  # a wall screen's display link (`svc_dsp_`): acts as its creator, on `board_id` only


@dataclass(frozen=True)
class Organization:
    id: str
    slug: str
    name: str
    plan: str


@dataclass(frozen=True)
class AutomationRun:
    """Set on the caller an automation acts as: the events of its changes name the rule and how deep in a
    cascade of automations they are, which is how the next rule's run knows its depth."""

    automation_id: str
    depth: int


@dataclass(frozen=True)
class Caller:
    request_id: str
    organization: Organization | None = None
    user_id: str | None = None
    user_email: str | None = None
    role: Role | None = None  # the user's role in `organization`, if a member
    credential: CredentialKind = CredentialKind.NONE
    credential_id: str | None = None
    scopes: tuple[str, ...] = field(default=())
    automation: AutomationRun | None = None
    # A display's board (CredentialKind.DISPLAY): the one board it may see (actors/kernel/access.py sees_board).
    board_id: str | None = None
    # A session opened by single sign-on (sessions.organization_id): the organization's provider vouched for
    # the user here only, so the call sees and changes nothing of the user's other organizations.
    single_sign_on: bool = False
    # Set when the call was made under an Idempotency-Key: a digest of the credential, the key, the request and
    # the call's place in it. An actor that applied this call answers it again from what it kept (the first
    # reply may have been lost on its way back), never applying it twice.
    idempotency: str | None = None

    def call_key(self, what: str) -> str | None:
        """What identifies this call's message `what` (a procedure, a message type) to the actor it is sent
        to, when the call was made under an Idempotency-Key (Actor.call_key)."""
        return None if self.idempotency is None else f"{self.idempotency}/{what}"

    @property
    def is_member(self) -> bool:
        """A member of the organization calling as themself. A display link carries its creator's role but acts
        for its board only (docs/displays.md): it never answers a form or uploads to one in the creator's name."""
        return self.role is not None and self.credential is not CredentialKind.DISPLAY

    @property
    def org_id(self) -> str:
        """The organization id; only valid for ORG-scoped procedures, which the edge guarantees."""
        assert self.organization is not None
        return self.organization.id

    @property
    def uid(self) -> str:
        assert self.user_id is not None
        return self.user_id
